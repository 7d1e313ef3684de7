#!/usr/bin/env bash
# Header sets (src/depsets/depsets.h) on a real CMake HIP build (clang-15, two
# architectures): each device and host edge's deps record is one shared set,
# and the rebuilds stay exact: a header only device code reads rebuilds that
# device code (both architectures) and nothing else; one only host code reads
# rebuilds the host compile only; a common header rebuilds device and host
# code; a newly included header is tracked from its first build on; a
# deleted header (with its #include) is a rebuild, not an error, also one only
# device code read; regen again keeps the sets; without sets (PHC_REGEN_DEPSETS=0)
# the records are whole again.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir regen_deps)
src=$dir/src
b=$dir/build
mkdir -p "$src/include"
cat >"$src/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.21)
project(phc_deps LANGUAGES HIP)
add_library(k STATIC a.hip b.hip)
target_include_directories(k PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/include)
C
echo '#define PHC_COMMON 1' >"$src/include/common.h"
echo '#define PHC_DEV_SCALE 1.0f' >"$src/include/dev_only.h"
echo '#define PHC_GONE 1' >"$src/include/gone.h"
echo '#define PHC_DEV_GONE 1' >"$src/include/dev_gone.h"
echo '#define PHC_NEW 1' >"$src/include/new.h"
echo '#define PHC_HOST_ONLY 1' >"$src/include/host_only.h"
cat >"$src/a.hip" <<'H'
#include <hip/hip_runtime.h>
#include "common.h"
#include "gone.h"
#if defined(__HIP_DEVICE_COMPILE__)
#include "dev_only.h"
#include "dev_gone.h"
#else
#include "host_only.h"
#define PHC_DEV_SCALE 0.0f
#endif
__global__ void ka(float* x) { x[threadIdx.x] *= PHC_DEV_SCALE + PHC_COMMON; }
H
cat >"$src/b.hip" <<'H'
#include <hip/hip_runtime.h>
#include "common.h"
__global__ void kb(float* x) { x[threadIdx.x] += PHC_COMMON; }
H
cmake -S "$src" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_HIP_COMPILER=clang++-15 \
  -DCMAKE_HIP_FLAGS="$HIP_FLAGS_DEFAULT" -DCMAKE_HIP_ARCHITECTURES="gfx906;gfx90a" >/dev/null
"$PHC" regen -C "$b" --quiet
grep -q "^include .phc-ninja/deps.ninja$" "$b/build.ninja" || fail "the rewritten manifest does not include the sets"
grep -q "^ninja_required_version = 1.11$" "$b/build.ninja" || fail "sets need ninja 1.11, not required"
ninja -C "$b" >/dev/null || fail "first build failed"
expect_no_work "$b" "after the first build"

a=CMakeFiles/k.dir/a.hip.o
bo=CMakeFiles/k.dir/b.hip.o
deps_of() { ninja -C "$b" -t deps "$1" | grep -v '^ninja: Entering'; }
for arch in gfx906 gfx90a; do
  d=$(deps_of "$a.phc/$arch.o")
  grep -q "#deps 1," <<<"$d" || fail "$arch device record of a.hip is not one entry: $d"
  grep -Eq "^    phc_s_[0-9a-f]{16}$" <<<"$d" || fail "$arch device record of a.hip is not a set: $d"
done
[ "$(deps_of "$a.phc/gfx906.o" | grep phc_s_)" = "$(deps_of "$bo.phc/gfx90a.o" | grep phc_s_)" ] &&
  fail "a.hip and b.hip read different headers but share a set"
h=$(deps_of "$a")
grep -Eq "#deps 1,.*" <<<"$h" && grep -Eq "^    phc_s_[0-9a-f]{16}$" <<<"$h" || fail "the host record of a.hip is not one set: $h"
[ "$(grep phc_s_ <<<"$h")" = "$(deps_of "$a.phc/gfx906.o" | grep phc_s_)" ] &&
  fail "a.hip's host and device code read different headers but share a set"
grep -q "dev_only.h" "$b/.phc-ninja/deps.ninja" || fail "the device-only header is in no set"
grep -q "host_only.h" "$b/.phc-ninja/deps.ninja" || fail "the host-only header is in no set"
pass "device and host records are one set each"

# work: what ninja would run, one "<description>" per line.
work() { ninja -C "$b" -n | sed -n 's/^\[[0-9]*\/[0-9]*\] //p'; }
echo '#define PHC_DEV_SCALE 2.0f' >"$src/include/dev_only.h"
w=$(work)
for arch in gfx906 gfx90a; do
  grep -q "HIP $arch $a\$" <<<"$w" || fail "device-only header: no $arch edge of a.hip in: $w"
done
grep -q "b.hip" <<<"$w" && fail "device-only header: b.hip rebuilt: $w"
ninja -C "$b" >/dev/null || fail "build after the device-only header changed failed"
expect_no_work "$b" "after the device-only header rebuild"
pass "a device-only header rebuilds a.hip's device code for both architectures, nothing else"

echo '#define PHC_HOST_ONLY 2' >"$src/include/host_only.h"
w=$(work)
grep -q "HIP host $a\$" <<<"$w" || fail "host-only header: a.hip's host edge does not run: $w"
grep -q "^HIP gfx90" <<<"$w" && fail "host-only header: device code rebuilt: $w"
grep -q "b.hip" <<<"$w" && fail "host-only header: b.hip rebuilt: $w"
ninja -C "$b" >/dev/null || fail "build after the host-only header changed failed"
expect_no_work "$b" "after the host-only header rebuild"
pass "a host-only header rebuilds a.hip's host compile only"

echo '#define PHC_COMMON 2' >"$src/include/common.h"
w=$(work)
n=$(grep -c "^HIP gfx90[6a] " <<<"$w" || true)
expect_eq "device edges after common.h changed" 4 "$n"
grep -q "HIP host $bo" <<<"$w" || fail "common header: b.hip's host edge does not run: $w"
ninja -C "$b" >/dev/null || fail "build after common.h changed failed"
pass "a common header rebuilds the device and host code of both sources"

# A header included for the first time is tracked from that build on.
sed -i 's|#include "common.h"|#include "common.h"\n#include "new.h"|' "$src/b.hip"
ninja -C "$b" >/dev/null || fail "build after including new.h failed"
expect_no_work "$b" "after including new.h"
echo '#define PHC_NEW 2' >"$src/include/new.h"
w=$(work)
for arch in gfx906 gfx90a; do
  grep -q "HIP $arch $bo\$" <<<"$w" || fail "new.h: no $arch edge of b.hip in: $w"
done
grep -q "a.hip" <<<"$w" && fail "new.h: a.hip rebuilt: $w"
ninja -C "$b" >/dev/null || fail "build after new.h changed failed"
pass "a newly included header rebuilds its includer's device code"

# Deleted headers (with their includes): a rebuild, not "missing and no known rule".
sed -i '/gone.h/d' "$src/a.hip"
rm "$src/include/gone.h" "$src/include/dev_gone.h"
ninja -C "$b" >"$dir/gone.out" 2>&1 || fail "build after deleting headers failed: $(cat "$dir/gone.out")"
expect_no_work "$b" "after deleting headers"
pass "deleting a header and a device-only header with their includes rebuilds, no error"

# regen again (as after a CMake run) keeps the sets: nothing to do.
cp "$b/.phc-ninja/deps.ninja" "$dir/sets.before"
"$PHC" regen -C "$b" --quiet
cmp -s "$b/.phc-ninja/deps.ninja" "$dir/sets.before" || fail "regen changed the sets"
expect_no_work "$b" "after regen again"
touch "$src/CMakeLists.txt"
ninja -C "$b" >"$dir/rerun.out" 2>&1 || fail "build after touching CMakeLists.txt failed: $(cat "$dir/rerun.out")"
expect_no_work "$b" "after CMake re-ran"
pass "regen and CMake re-runs keep the sets; nothing rebuilds"

# Without sets the device records are whole again.
PHC_REGEN_DEPSETS=0 "$PHC" regen -C "$b" --quiet
grep -q -- "--sets " "$b/build.ninja" && fail "PHC_REGEN_DEPSETS=0 still records header sets"
grep -q "^include .phc-ninja/deps.ninja" "$b/build.ninja" && fail "PHC_REGEN_DEPSETS=0 still includes the sets"
ninja -C "$b" >/dev/null || fail "build without sets failed"
grep -q "include/dev_only.h" <<<"$(deps_of "$a.phc/gfx906.o")" || fail "without sets the device record is not whole"
grep -q "include/host_only.h" <<<"$(deps_of "$a")" || fail "without sets the host record is not whole"
expect_no_work "$b" "after the build without sets"
pass "PHC_REGEN_DEPSETS=0: whole device records"
