#!/usr/bin/env bash
# phc-ninja regen on samples/cmake-hip configured with
# CMAKE_NINJA_FORCE_RESPONSE_FILE=ON (every compile reads its flags from a ninja
# rspfile): every HIP object split, each device and host edge with a response
# file of its own, objects byte-identical to the driver's compile with the same
# CUID, no-op after the build, exact rebuilds. Also `@file` through gen and the
# launcher.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir regen_rsp)
src=$dir/src
b=$dir/build
ref=$dir/ref
cp -r "$PHC_SRC/samples/cmake-hip" "$src"
configure() { # configure DIR [extra args]
  local d=$1
  shift
  cmake -S "$src" -B "$d" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPHC_SAMPLE_HEAVY=OFF \
    -DCMAKE_HIP_COMPILER=clang++-15 -DCMAKE_HIP_FLAGS="$HIP_FLAGS_DEFAULT" \
    -DCMAKE_HIP_ARCHITECTURES="gfx906;gfx90a" "$@" >/dev/null
}
configure "$b" -DCMAKE_NINJA_FORCE_RESPONSE_FILE=ON
configure "$ref" # the same flags on command lines: the reference compiles
grep -q "rspfile_content" "$b/CMakeFiles/rules.ninja" || fail "CMake wrote no response-file rules"
"$PHC" regen -C "$b" | tee "$dir/regen.out"
grep -q "split 2 objects into 4 device edges" "$dir/regen.out" || fail "unexpected summary: $(cat "$dir/regen.out")"
n=$(grep -c "^  PHC_RSP = .*\.rsp$" "$b/build.ninja" || true)
expect_eq "device and host edges with a response file of their own" 6 "$n"
ninja -C "$b" >/dev/null || fail "build failed"

for o in $(hip_objects "$b"); do
  rel=${o#"$b"/}
  cuid=$(grep -A3 "^build $rel: " "$b/build.ninja" | grep -o -- "-cuid=[0-9a-f]*" | head -1)
  [ -n "$cuid" ] || fail "no CUID for $rel"
  cmd=$(ninja -C "$ref" -t commands "$rel" | tail -n 1)
  (cd "$ref" && eval "${cmd/-o $rel/-o $dir/ref.o} $cuid") || fail "reference compile of $rel failed"
  cmp -s "$dir/ref.o" "$o" || fail "$rel differs from the driver's compile with $cuid"
done
expect_no_work "$b" "after the build"
pass "response-file compiles split, each step with its own response file, identical, no-op"

touch "$src/src/reduce.hip"
w=$(ninja_work "$b")
expect_eq "edges for touched reduce.hip" 4 "$(grep -c "reduce.hip.o" <<<"$w" || true)"
ninja -C "$b" >/dev/null || fail "rebuild failed"
expect_no_work "$b" "after the rebuild"
pass "touching a .hip file rebuilds its own edges only"

# `@file` read from disk: the launcher and explain.
cd "$dir" || exit 1
printf '#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }\n' >k.hip
printf -- '-x hip %s -O2 --offload-arch=gfx906 --offload-arch=gfx90a\n' "$HIP_FLAGS_DEFAULT" >flags.rsp
"$PHC" explain -- clang++-15 @flags.rsp -c k.hip -o k.o >plan.txt
grep -q "^# decision: split" plan.txt || fail "explain of an @file compile: $(cat plan.txt)"
cuid=$(sed -n 's/^# cuid: //p' plan.txt)
PHC_PROBE_CACHE=$dir/probes.json "$(dirname "$PHC")/phc-launch" clang++-15 @flags.rsp -c k.hip -o k.o ||
  fail "phc-launch of an @file compile failed"
clang++-15 @flags.rsp -cuid="$cuid" -c k.hip -o kref.o
cmp -s k.o kref.o || fail "the launcher's @file object differs from the driver's"
pass "@file compiles through explain and the launcher split, identical"

# `@file` in a compilation database: gen splits it, each compile step with a
# response file of its own.
cat >compile_commands.json <<J
[{"directory": "$dir", "file": "k.hip", "output": "kg.o",
  "arguments": ["clang++-15", "@flags.rsp", "-c", "k.hip", "-o", "kg.o"]}]
J
"$PHC" gen -p compile_commands.json -o phc.ninja >gen.out || fail "gen failed: $(cat gen.out)"
grep -q "1 entries (1 split, 0 plain)" gen.out || fail "gen: $(cat gen.out)"
expect_eq "gen compile steps with a response file" 3 "$(grep -c '^  PHC_RSP = ' phc.ninja || true)"
ninja -f phc.ninja >/dev/null || fail "ninja -f phc.ninja failed"
cuid=$(grep -o -- "-cuid=[0-9a-f]*" phc.ninja | head -1)
clang++-15 @flags.rsp "$cuid" -c k.hip -o kgref.o
cmp -s kg.o kgref.o || fail "gen's @file object differs from the driver's"
pass "gen: an @file compile of a compilation database split with response files, identical"
