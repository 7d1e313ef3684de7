#!/usr/bin/env bash
# phc-ninja regen on a hand-written manifest compiled with the new offload
# driver: clang 22 (device bitcode, then each architecture's code generation
# as an edge of its own, then the bundle and the host compile) and clang 19
# (which runs the old driver's jobs for it): objects byte-identical to the
# driver's own compile with the same CUID, no-op after the build, a header only
# device code reads rebuilds that object's device edges and code generation.
# Then -fgpu-rdc (clang 22 and 19): compiles split into device bitcode, the
# packer and the host compile; clang 22's links into one device link per
# architecture and the wrapper's own bundling and host link (clang 19's, whose
# wrapper links in its own process, planned when it runs: the wrapper given
# each architecture's device code alone), identical to the driver's; a failing
# device link shows lld's message for its architecture.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
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

# Relocatable device code: two programs (clang 22, clang 19), each of two objects
# that share a device function, and a third whose device code does not link for one
# architecture.
rdc=$dir/rdc
mkdir -p "$rdc"
cd "$rdc" || exit 1
cat >a.hip <<'K'
#include <hip/hip_runtime.h>
__device__ int helper(int x) { return 3 * x + 1; }
static __device__ int counter;
static __global__ void bump() { atomicAdd(&counter, helper(1)); }
void launch_a() { bump<<<1, 1>>>(); }
K
cat >b.hip <<'K'
#include <hip/hip_runtime.h>
extern __device__ int helper(int);
__global__ void use(int* p) { p[threadIdx.x] = helper(p[threadIdx.x]); }
void launch_a();
int main() { launch_a(); use<<<1, 1>>>(nullptr); return 0; }
K
cat >c.hip <<'K'
#include <hip/hip_runtime.h>
#if !defined(__gfx90a__)
__device__ int helper(int x) { return x; }
#endif
K
cat >build.ninja <<R
rule rdc
  command = \$cc $HIP_FLAGS_DEFAULT -O2 --offload-new-driver -fgpu-rdc \$flags -MD -MF \$out.d -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
  description = CC \$out
rule link
  command = \$cc --rocm-path=/usr --offload-new-driver -fgpu-rdc --hip-link \$flags \$in -o \$out
  description = LINK \$out
build a22.o: rdc a.hip
  cc = $C22
  flags = $SHIM --offload-arch=gfx906 --offload-arch=gfx90a
build b22.o: rdc b.hip
  cc = $C22
  flags = $SHIM --offload-arch=gfx906 --offload-arch=gfx90a
build app22: link a22.o b22.o
  cc = $C22
  flags = --offload-arch=gfx906 --offload-arch=gfx90a
build a19.o: rdc a.hip
  cc = $C19
  flags = --offload-arch=gfx906 --offload-arch=gfx90a
build b19.o: rdc b.hip
  cc = $C19
  flags = --offload-arch=gfx906 --offload-arch=gfx90a
build app19: link a19.o b19.o
  cc = $C19
  flags = --offload-arch=gfx906 --offload-arch=gfx90a
build c22.o: rdc c.hip
  cc = $C22
  flags = $SHIM --offload-arch=gfx906 --offload-arch=gfx90a
build bad22: link c22.o b22.o
  cc = $C22
  flags = --offload-arch=gfx906 --offload-arch=gfx90a
R
"$PHC" regen --device-jobs 1 >regen.out || fail "rdc regen failed: $(cat regen.out)"
# clang 19's wrapper links the bitcode in its own process (its LTO): its link
# is planned when it runs, each architecture's device link the wrapper given
# that architecture's device code alone (wrapper-image).
grep -q "HIP link plan app19\$" build.ninja || fail "app19's link is not planned when it runs: $(cat regen.out)"
for l in app22 bad22 app19; do
  for a in gfx906 gfx90a; do
    grep -q "HIP link $a $l\$" build.ninja || fail "no device link edge for $a of $l: $(cat regen.out)"
  done
done
ninja app22 app19 >ninja.out 2>&1 || fail "rdc build failed: $(cat ninja.out)"
identical a22.o a.hip "$C22" -fgpu-rdc $SHIM --offload-arch=gfx906 --offload-arch=gfx90a
identical b22.o b.hip "$C22" -fgpu-rdc $SHIM --offload-arch=gfx906 --offload-arch=gfx90a
identical a19.o a.hip "$C19" -fgpu-rdc --offload-arch=gfx906 --offload-arch=gfx90a
for l in 22 19; do
  cc=$C22
  [ "$l" = 19 ] && cc=$C19
  "$cc" --rocm-path=/usr --offload-new-driver -fgpu-rdc --hip-link --offload-arch=gfx906 \
    --offload-arch=gfx90a "a$l.o" "b$l.o" -o "ref$l" 2>/dev/null || fail "driver link $l failed"
  cmp -s "ref$l" "app$l" || fail "app$l differs from the driver's own link of the same objects"
done
w=$(ninja -n app22 app19)
expect_eq "ninja -n app22 app19 after the RDC build" "ninja: no work to do." "$w"
pass "new-driver RDC objects and programs (clang 22 and 19) identical to the driver's"

# One source touched: its own edges and the link's, nothing of the other object.
touch a.hip
w=$(ninja -n app22 app19)
grep -q "HIP gfx906 a22.o" <<<"$w" || fail "touching a.hip does not recompile a22.o: $w"
grep -q "HIP link gfx90a app22" <<<"$w" || fail "touching a.hip does not relink app22: $w"
! grep -q "b22.o" <<<"$w" || fail "touching a.hip rebuilds b22.o: $w"
ninja app22 app19 >/dev/null 2>&1 || fail "rebuild after touching a.hip failed"
pass "touching a source rebuilds its own edges and the links only"

# A device link that fails for one architecture fails with lld's message for it.
if ninja bad22 >bad.out 2>&1; then fail "bad22 linked although helper is missing for gfx90a"; fi
grep -q "FAILED: .*bad22.phc/gfx90a" bad.out || fail "the failing edge is not gfx90a's link: $(cat bad.out)"
grep -q "undefined.*helper" bad.out || fail "no lld message naming helper: $(cat bad.out)"
[ ! -e bad22 ] || fail "bad22 exists after its link failed"
pass "a device link failing for one architecture shows lld's message"

# gen from a compilation database: the same new-driver compiles (clang 22, RDC
# and not) split, objects identical to the driver's.
mkdir -p "$dir/gen/out"
cd "$dir/gen" || exit 1
cp "$dir/k.hip" "$dir/scale.h" .
python3 - "$PWD" "$C22" "$SHIM $HIP_FLAGS_DEFAULT" <<'PY'
import json, sys
d, cc, flags = sys.argv[1:4]
two = "--offload-arch=gfx906 --offload-arch=gfx90a"
def entry(extra, out):
    return {"directory": d, "file": "k.hip", "output": out,
            "command": f"{cc} -x hip {flags} -O2 --offload-new-driver {extra} {two} -c k.hip -o {out}"}
json.dump([entry("", "out/k.o"), entry("-fgpu-rdc", "out/krdc.o")], open("compile_commands.json", "w"))
PY
"$PHC" gen -p compile_commands.json -o phc.ninja >gen.out || fail "gen failed: $(cat gen.out)"
grep -q "(2 split" gen.out || fail "gen did not split both new-driver compiles: $(cat gen.out)"
ninja -f phc.ninja >ninja.out 2>&1 || fail "gen build failed: $(cat ninja.out)"
for o in k krdc; do
  extra=""
  [ "$o" = krdc ] && extra=-fgpu-rdc
  cuid=$(grep -F "out/$o.o" phc.ninja | grep -o -- "-cuid=[0-9a-f]*" | head -1 || true)
  [ -n "$cuid" ] || fail "no CUID for gen's out/$o.o"
  # shellcheck disable=SC2086
  "$C22" -x hip $SHIM $HIP_FLAGS_DEFAULT -O2 --offload-new-driver $extra --offload-arch=gfx906 \
    --offload-arch=gfx90a "$cuid" -c k.hip -o ref.o 2>/dev/null || fail "driver compile of out/$o.o failed"
  cmp -s ref.o "out/$o.o" || fail "gen's out/$o.o differs from the driver's compile ($cuid)"
done
pass "gen: clang 22 new-driver compiles (RDC and not) split, identical"
