#!/usr/bin/env bash
# TheRock's shape (issue 39): a CMake project whose HIP code is compiled by
# CXX rules, `-x hip` and the architectures coming from the compile options
# of an interface target (as hip::device gives them), built with
# -DCMAKE_CXX_COMPILER=clang++-15 -DCMAKE_CXX_COMPILER_LAUNCHER="phc-launch;ccache"
# under plain ninja (no jobserver; the CPU pool in scratch):
#   - every HIP object is split (the trace has a step per architecture) and
#     is the driver's own (PHC_CHECK=1); plain C++ goes through unchanged;
#   - a second build from a clean build directory (same path, ccache's folder
#     in scratch) is all ccache hits;
#   - `phc-ninja regen` on the same project (no launcher) splits the CXX
#     edges, and `phc-ninja check` finds them identical.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
command -v ccache >/dev/null || fail "ccache is not installed"
L=$(dirname "$PHC")/phc-launch
W=$(suite_dir launch_therock)
export TMPDIR=$W/tmp PHC_PROBE_CACHE=$W/probes.json CCACHE_DIR=$W/ccache CCACHE_BASEDIR=$W
unset MAKEFLAGS CARGO_MAKEFLAGS CCACHE_PREFIX
mkdir -p "$TMPDIR" "$W/src"
cd "$W" || exit 1

cat >src/CMakeLists.txt <<CM
cmake_minimum_required(VERSION 3.21)
project(rocklike LANGUAGES CXX)
# What hip::device hands its users (hip-targets.cmake): -x hip and the
# architectures as interface compile options of CXX.
add_library(fake_hip_device INTERFACE)
target_compile_options(fake_hip_device INTERFACE
  "\$<\$<COMPILE_LANGUAGE:CXX>:SHELL:-x hip>"
  "\$<\$<COMPILE_LANGUAGE:CXX>:--offload-arch=gfx906>"
  "\$<\$<COMPILE_LANGUAGE:CXX>:--offload-arch=gfx90a>"
  --rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode)
add_library(kernels STATIC a.cpp b.cpp c.cpp)
target_link_libraries(kernels PRIVATE fake_hip_device)
add_library(plain STATIC plain.cpp)
CM
for k in a b c; do
  printf '#include <hip/hip_runtime.h>\n__global__ void %s(float* x) { x[threadIdx.x] += 1.0f; }\n' "$k" >"src/$k.cpp"
done
echo 'int plain() { return 42; }' >src/plain.cpp

# configure BUILD [ARGS...]
configure() {
  local b=$1
  shift
  cmake -S src -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++-15 "$@" \
    >"$b.cmake.log" 2>&1 || { cat "$b.cmake.log"; fail "cmake of $b failed"; }
}
objects() { find "$1/CMakeFiles/kernels.dir" -name '*.o' | sort; }
# stats: "hits misses" of ccache since the last ccache -z.
stats() {
  ccache --print-stats | awk '
    $1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h += $2 }
    $1 == "cache_miss" { m += $2 }
    END { printf "%d %d\n", h, m }'
}

echo "-- CMAKE_CXX_COMPILER_LAUNCHER=\"phc-launch;ccache\", plain ninja: split and identical"
configure build "-DCMAKE_CXX_COMPILER_LAUNCHER=$L;ccache"
grep -q -- "-x hip" build/build.ninja || fail "the CXX edges carry no -x hip"
PHC_CHECK=1 PHC_NINJA_TRACE=$W/trace.log ninja -C build -j2 >build.log 2>&1 || { cat build.log; fail "the first build failed"; }
for k in a b c; do
  for arch in gfx906 gfx90a; do
    grep -q "$k.cpp.o::$arch" trace.log || fail "$k.cpp.o was not split ($arch missing from the trace)"
  done
done
! grep -q "plain.cpp.o" trace.log || fail "the plain C++ source was split"
[ "$(objects build | wc -l)" = 3 ] || fail "expected 3 HIP objects: $(objects build)"
pass "three CXX-rule HIP objects split and identical to the driver's (PHC_CHECK=1)"

echo "-- a clean build directory, built again: every step a ccache hit"
mkdir -p keep && for o in $(objects build); do cp "$o" "keep/$(basename "$o")"; done
rm -rf build
configure build "-DCMAKE_CXX_COMPILER_LAUNCHER=$L;ccache"
ccache -z >/dev/null
ninja -C build -j2 >build2.log 2>&1 || { cat build2.log; fail "the second build failed"; }
read -r hits misses < <(stats)
# 3 objects x (2 device compiles + 1 host compile), and the plain source.
expect_eq "ccache misses in the second build" 0 "$misses"
[ "$hits" -ge 10 ] || fail "only $hits ccache hits in the second build (expected 3 x 3 + 1)"
for o in $(objects build); do cmp "$o" "keep/$(basename "$o")" || fail "$o differs from the first build's"; done
pass "second build from a clean directory: $hits hits, 0 misses, the same objects"

echo "-- regen on the same project splits the CXX edges"
configure regen
"$PHC" regen -C regen >regen.out 2>&1 || { cat regen.out; fail "regen failed"; }
[ "$(grep -c -- '--offload-device-only' regen/build.ninja)" -ge 1 ] || fail "regen wrote no device edges"
for k in a b c; do
  grep -q "$k.cpp.o.*gfx906\|gfx906.*$k.cpp" regen/build.ninja || fail "regen did not split $k.cpp.o"
done
ninja -C regen -j2 >regen.log 2>&1 || { cat regen.log; fail "the regen build failed"; }
"$PHC" check -C regen --all >check.out 2>&1 || { cat check.out; fail "phc-ninja check found a difference"; }
grep -q "3 identical" check.out || { cat check.out; fail "check did not find the 3 CXX objects identical"; }
pass "regen splits the CXX edges; phc-ninja check: identical"
