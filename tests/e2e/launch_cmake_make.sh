#!/usr/bin/env bash
# phc-launch as CMAKE_HIP_COMPILER_LAUNCHER with CMake's Makefile generator (a
# tiny project written here): CMake's recipes are not marked '+', so GNU make
# 4.3 advertises --jobserver-auth=R,W (3,4 from a shell) with those descriptors closed. Each HIP
# compile must say so once, split anyway, and give the driver's own bytes.
set -euo pipefail
: "${PHC:?}" "${PHC_TMP:?}"
L=$(dirname "$PHC")/phc-launch
W=$PHC_TMP/launch_cmake_make
rm -rf "$W" && mkdir -p "$W/src" "$W/tmp" && cd "$W"
export TMPDIR=$W/tmp PHC_PROBE_CACHE=$W/probes.json
fail() { echo "launch_cmake_make: FAIL: $*" >&2; exit 1; }
grep -q "^  explain " <<<"$("$PHC" --help)" \
  || fail "this phc-ninja has no split planner ('phc-ninja explain'); the launcher cannot split"

cat > src/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.21)
project(tiny LANGUAGES HIP)
add_library(tiny STATIC a.hip b.hip)
CM
printf '#include <hip/hip_runtime.h>\n__global__ void a(float* x) { x[threadIdx.x] += 1.0f; }\n' > src/a.hip
printf '#include <hip/hip_runtime.h>\n__global__ void b(float* x) { x[threadIdx.x] *= 3.0f; }\n' > src/b.hip
HIPFLAGS="--rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
cmake -S src -B b -G "Unix Makefiles" -DCMAKE_HIP_COMPILER=clang++-15 -DCMAKE_HIP_FLAGS="$HIPFLAGS" \
  -DCMAKE_HIP_ARCHITECTURES="gfx906;gfx90a" -DCMAKE_HIP_COMPILER_LAUNCHER="$L" \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >cfg.log 2>&1 || { cat cfg.log; fail "cmake configure failed"; }

echo "-- make -j2 with CMake's recipes"
PHC_NINJA_TRACE=$W/trace.log make -C b -j2 >make.log 2>&1 || { cat make.log; fail "make -j2 failed"; }
[ -f b/libtiny.a ] || fail "libtiny.a not built"
n=$(grep -Ec "^phc-launch: warning: jobserver '--jobserver-auth=[0-9]+,[0-9]+' is unusable \(fd [0-9]+ is not open\)" make.log || true)
[ "$n" = 2 ] || { cat make.log; fail "expected one warning per HIP compile (2), got $n"; }
for o in a b; do
  grep -q "CMakeFiles/tiny.dir/$o.hip.o::gfx90a" trace.log || fail "$o.hip was not split"
done

echo "-- objects are the driver's own (same -cuid)"
python3 - b/compile_commands.json >cmds.txt <<'PY'
import json, sys
for e in json.load(open(sys.argv[1])):
    print(e["directory"] + "\t" + e["command"])
PY
[ "$(wc -l <cmds.txt)" = 2 ] || fail "compile_commands.json should list 2 compiles"
while IFS=$'\t' read -r dir cmd; do
  # shellcheck disable=SC2086
  set -- $cmd
  [ "$(basename "$1")" != phc-launch ] || shift # the launcher, if CMake lists it
  obj=""; prev=""; ref=()
  for a in "$@"; do
    if [ "$prev" = -o ]; then obj=$a; ref+=("$W/ref.o"); else ref+=("$a"); fi
    prev=$a
  done
  cuid=$(cd "$dir" && "$PHC" explain -- "$@" | sed -n 's/^# cuid: //p')
  [ -n "$cuid" ] || fail "no cuid for $obj"
  rm -f "$W/ref.o"
  (cd "$dir" && "${ref[@]}" -cuid="$cuid")
  cmp "$dir/$obj" "$W/ref.o" || fail "$obj differs from the driver's compile (cuid $cuid)"
done <cmds.txt
[ -z "$(find tmp -maxdepth 1 -name 'phc-launch-*')" ] || fail "private folders left in TMPDIR"

echo "launch_cmake_make: all passed"
rm -rf "$W"
