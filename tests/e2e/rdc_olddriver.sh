#!/usr/bin/env bash
# Old-driver RDC links of clang 19 (its default driver) and clang 22
# (--no-offload-new-driver), whose fat binary's object the driver writes from
# the __hip_fatbin_* symbols the host objects leave undefined: regen splits
# them into one device link per architecture, the fat binary and its object
# (the assembly asked of the driver when the link runs: phc-ninja fatbin-asm),
# then the host link. Each program links two objects and a static archive of an
# RDC object and a member without device code; it is byte-identical to the
# driver's own link of the same files, a second ninja has no work, touching the
# archive's source relinks without recompiling the other objects, a CMake
# POST_BUILD command runs after the split link, and
# phc-launch splits the same link, identical too.
source "$(dirname "$0")/lib/common.sh"
dir=$(suite_dir rdc_olddriver)
cd "$dir" || exit 1
C19=/usr/lib/llvm-19/bin/clang++
C22=/usr/lib/llvm-22/bin/clang++
SHIM="--no-offload-new-driver -mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64"
ARCHS="--offload-arch=gfx906 --offload-arch=gfx90a"
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
void launch_c(int*);
int main() { launch_a(); launch_c(nullptr); use<<<1, 1>>>(nullptr); return 0; }
K
cat >c.hip <<'K'
#include <hip/hip_runtime.h>
extern __device__ int helper(int);
__global__ void twice(int* p) { p[0] = 2 * helper(p[0]); }
void launch_c(int* p) { twice<<<1, 1>>>(p); }
K
printf 'int plain_d(int x) { return x + 7; }\n' >d.cpp
{
  cat <<R
rule rdc
  command = \$cc $HIP_FLAGS_DEFAULT -O2 -fgpu-rdc \$flags $ARCHS -MD -MF \$out.d -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
  description = CC \$out
rule cxx
  command = g++ -O2 -c \$in -o \$out
rule ar
  command = rm -f \$out && ar rcs \$out \$in
rule link
  command = \$PRE_LINK && \$cc $HIP_FLAGS_DEFAULT -fgpu-rdc --hip-link \$flags $ARCHS \$in -o \$out && \$POST_BUILD
  description = LINK \$out
build d.o: cxx d.cpp
R
  for l in 19 22; do
    cc=$C19 flags=
    [ "$l" = 22 ] && cc=$C22 flags=$SHIM
    for s in a b c; do
      printf 'build %s%s.o: rdc %s.hip\n  cc = %s\n  flags = %s\n' "$s" "$l" "$s" "$cc" "$flags"
    done
    printf 'build libc%s.a: ar c%s.o d.o\n' "$l" "$l"
    # CMake's link rule: `$PRE_LINK && LINK && $POST_BUILD`, ":" for none;
    # app19 has a POST_BUILD command.
    post=":"
    [ "$l" = 19 ] && post="cd $dir && touch post$l.stamp"
    printf 'build app%s: link a%s.o b%s.o libc%s.a\n  cc = %s\n  flags = %s\n' \
      "$l" "$l" "$l" "$l" "$cc" "$flags"
    printf '  PRE_LINK = :\n  POST_BUILD = %s\n' "$post"
  done
} >build.ninja

"$PHC" regen --device-jobs 2 >regen.out || fail "regen failed: $(cat regen.out)"
"$PHC" regen --dry-run --explain >explain.out 2>&1 || fail "regen --explain failed: $(cat explain.out)"
for l in 19 22; do
  grep -q "^split .*app$l " explain.out || fail "app$l's link is not split: $(cat explain.out)"
  for a in gfx906 gfx90a; do
    grep -q "HIP link $a app$l\$" build.ninja || fail "no device link edge for $a of app$l"
  done
  grep -q "fatbin-asm --fatbin app$l.phc/fatbin.hipfb" build.ninja ||
    fail "app$l's fat binary object does not ask the driver for its assembly"
done
pass "old-driver RDC links of clang 19 and clang 22 split, one device link per architecture"

ninja >ninja.out 2>&1 || fail "build failed: $(cat ninja.out)"
for l in 19 22; do
  cc=$C19 flags=
  [ "$l" = 22 ] && cc=$C22 flags=$SHIM
  # shellcheck disable=SC2086 # flag lists
  "$cc" $HIP_FLAGS_DEFAULT -fgpu-rdc --hip-link $flags $ARCHS "a$l.o" "b$l.o" "libc$l.a" \
    -o "ref$l" || fail "the driver's own link $l failed"
  cmp -s "ref$l" "app$l" || fail "app$l differs from the driver's own link of the same files"
  # The device code holds the kernels of all three objects, the archive's too
  # (a fat binary without them would still link: the host code names them).
  for a in gfx906 gfx90a; do
    for k in _Z3usePi _Z5twicePi _ZL4bumpv; do
      grep -aq "$k" "app$l.phc/$a.out" || fail "app$l's $a device code has no kernel $k"
    done
  done
done
[ -f post19.stamp ] || fail "app19's POST_BUILD command did not run"
expect_no_work "$dir" "after the build"
pass "split old-driver RDC programs identical to the driver's link of the same objects and archive; no-op"

touch c.hip
w=$(ninja_work "$dir")
grep -q "c19.o" <<<"$w" || fail "touching c.hip does not rebuild c19.o: $w"
grep -q "HIP link gfx906 app19" <<<"$w" || fail "touching c.hip does not relink app19: $w"
! grep -Eq "HIP (gfx[0-9a-z]+|host|bundle) (a|b)(19|22)\.o" <<<"$w" ||
  fail "touching c.hip recompiles other objects: $w"
ninja >ninja2.out 2>&1 || fail "rebuild failed: $(cat ninja2.out)"
for l in 19 22; do
  cmp -s "ref$l" "app$l" || fail "app$l differs after the rebuild"
done
expect_no_work "$dir" "after the rebuild"
pass "touching the archive's source relinks without recompiling the other objects"

launch="$(dirname "$PHC")/phc-launch"
for l in 19 22; do
  cc=$C19 flags=
  [ "$l" = 22 ] && cc=$C22 flags=$SHIM
  "$PHC" explain -- "$cc" $HIP_FLAGS_DEFAULT -fgpu-rdc --hip-link $flags $ARCHS "a$l.o" "b$l.o" \
    "libc$l.a" -o "launched$l" >"plan$l.txt" 2>&1 || fail "explain of link $l failed"
  grep -q "^# decision: split" "plan$l.txt" || fail "the launcher leaves link $l alone: $(head -3 "plan$l.txt")"
  # shellcheck disable=SC2086 # flag lists
  PHC_PROBE_CACHE=$dir/probes.json "$launch" "$cc" $HIP_FLAGS_DEFAULT -fgpu-rdc --hip-link $flags \
    $ARCHS "a$l.o" "b$l.o" "libc$l.a" -o "launched$l" || fail "phc-launch of link $l failed"
  cmp -s "ref$l" "launched$l" || fail "phc-launch's link $l differs from the driver's"
done
pass "phc-launch splits the same links, identical"
