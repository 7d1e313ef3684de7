#!/usr/bin/env bash
# phc-ninja regen on a hand-written manifest compiled with the new offload
# driver: clang 22 (device bitcode, then each architecture's code generation
# as an edge of its own, then the bundle and the host compile) and clang 19
# (which runs the old driver's jobs for it): objects byte-identical to the
# driver's own compile with the same CUID, no-op after the build, a header only
# device code reads rebuilds that object's device edges and code generation.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
export PHC_REGEN_VERIFY=1
dir=$(suite_dir regen_newdriver)
cd "$dir" || exit 1
C22=/usr/lib/llvm-22/bin/clang++
C19=/usr/lib/llvm-19/bin/clang++
SHIM="-mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64" # ROCm 5.2 headers under clang 22
printf '#pragma once\n#define SCALE 2.0f\n' >scale.h
cat >k.hip <<'K'
#include <hip/hip_runtime.h>
#include "scale.h"
__global__ void k(float* x) { x[threadIdx.x] *= SCALE; }
K
cp k.hip m.hip
cat >build.ninja <<R
rule hip
  command = \$cc $HIP_FLAGS_DEFAULT -O2 --offload-new-driver \$flags -MD -MF \$out.d -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
  description = CC \$out
build out/k22.o: hip k.hip
  cc = $C22
  flags = $SHIM --offload-arch=gfx906 --offload-arch=gfx90a
build out/m22.o: hip m.hip
  cc = $C22
  flags = $SHIM --offload-arch=gfx906 --offload-arch=gfx90a
build out/k19.o: hip k.hip
  cc = $C19
  flags = --offload-arch=gfx906 --offload-arch=gfx90a
R
"$PHC" regen --device-jobs 1 >regen.out || fail "regen failed: $(cat regen.out)"
grep -q "split 3 objects into 6 device edges" regen.out || fail "unexpected summary: $(cat regen.out)"
n=$(grep -c "HIP codegen gfx90[6a] out/[km]22.o" build.ninja || true)
expect_eq "code generation edges" 4 "$n"
ninja >ninja.out 2>&1 || fail "build failed: $(cat ninja.out)"

# identical OBJ SRC CC FLAGS...: the object equals the driver's compile with its split's CUID
# (none for clang 19, whose new driver gives its jobs no CUID).
identical() {
  local obj=$1 src=$2 cc=$3 cuid
  shift 3
  cuid=$(grep -A2 "^build $obj: " build.ninja | grep -o -- "-cuid=[0-9a-f]*" | head -1 || true)
  case "$cc" in
    *llvm-19*) [ -z "$cuid" ] || fail "a CUID for $obj, whose driver uses none" ;;
    *) [ -n "$cuid" ] || fail "no CUID for $obj" ;;
  esac
  # shellcheck disable=SC2086
  "$cc" -x hip $HIP_FLAGS_DEFAULT -O2 --offload-new-driver "$@" $cuid -c "$src" -o ref.o ||
    fail "driver compile of $obj failed"
  cmp -s ref.o "$obj" || fail "$obj differs from the driver's own compile with $cuid"
}
# shellcheck disable=SC2086
identical out/k22.o k.hip "$C22" $SHIM --offload-arch=gfx906 --offload-arch=gfx90a
# shellcheck disable=SC2086
identical out/m22.o m.hip "$C22" $SHIM --offload-arch=gfx906 --offload-arch=gfx90a
identical out/k19.o k.hip "$C19" --offload-arch=gfx906 --offload-arch=gfx90a
expect_no_work "$dir" "after the build"
pass "clang 22 and clang 19 new-driver objects split (code generation per architecture), identical"

# A header change: device bitcode, code generation, bundle and host of each object.
sed -i 's/2.0f/3.0f/' scale.h
w=$(ninja_work "$dir")
for step in "HIP gfx906 out/k22.o" "HIP codegen gfx906 out/k22.o" "HIP codegen gfx90a out/m22.o"; do
  grep -q "$step" <<<"$w" || fail "after the header change, no '$step': $w"
done
ninja >/dev/null 2>&1 || fail "rebuild failed"
# shellcheck disable=SC2086
identical out/k22.o k.hip "$C22" $SHIM --offload-arch=gfx906 --offload-arch=gfx90a
expect_no_work "$dir" "after the rebuild"
pass "a header change rebuilds device code, code generation, bundle and host; identical"
