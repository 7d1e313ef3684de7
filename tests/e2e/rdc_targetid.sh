#!/usr/bin/env bash
# The new offload driver's RDC links whose architectures are target IDs with
# features (clang 22: gfx906:xnack-, gfx90a:xnack+ beside a plain gfx1030;
# issue 41). clang-linker-wrapper names the images it is given by processor
# alone, so the split bundles the fat binary with the wrapper's own bundler job
# (names by target ID) and `phc-ninja wrapper-link` puts it in place of the
# wrapper's bundle (src/split/wrapper_link.h). A program of split objects and
# one of an object, a static archive and a -l archive: each identical to the
# driver's own link of the same files; a device change relinks every
# architecture, adding one links only it; a fat binary wrapper-link cannot
# prove is left to the wrapper, and the program is still the driver's; the
# launcher splits the same link.
# gfx1030 is wave32: the ROCm 5.2 headers need __AMDGCN_WAVEFRONT_SIZE under
# clang 22, 64 for gfx9 and 32 for it (-Xarch_gfx1030).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir rdc_targetid)
cd "$dir" || exit 1
mkdir -p tmp lib
export TMPDIR=$dir/tmp PHC_PROBE_CACHE=$dir/probes.json
C22=/usr/lib/llvm-22/bin/clang++
SHIM="-mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64 -Xarch_gfx1030 -U__AMDGCN_WAVEFRONT_SIZE -Xarch_gfx1030 -D__AMDGCN_WAVEFRONT_SIZE=32"
cat >main.hip <<'K'
#include <hip/hip_runtime.h>
extern __device__ int helper(int);
extern __device__ int twice(int);
__global__ void use(int* p) { p[threadIdx.x] = twice(helper(p[threadIdx.x])); }
int main() { use<<<1, 1>>>(nullptr); return 0; }
K
printf '#include <hip/hip_runtime.h>\n__device__ int helper(int x) { return 3 * x + 1; }\n' >helper.hip
printf '#include <hip/hip_runtime.h>\n__device__ int twice(int x) { return 2 * x; }\n' >two.hip

# manifest ARCH...: build.ninja compiling and linking for these --offload-arch values.
manifest() {
  local archs="" a
  for a in "$@"; do archs+=" --offload-arch=$a"; done
  CFLAGS="-x hip $HIP_FLAGS_DEFAULT $SHIM -O2 --offload-new-driver -fgpu-rdc$archs"
  LFLAGS="--rocm-path=/usr --offload-new-driver -fgpu-rdc --hip-link$archs"
  cat >build.ninja <<R
rule rdc
  command = $C22 $CFLAGS -MD -MF \$out.d -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
  description = CC \$out
rule ar
  command = rm -f \$out && ar qc \$out \$in && ar s \$out
rule link
  command = $C22 $LFLAGS \$in \$flags -o \$out
  description = LINK \$out
build main.o: rdc main.hip
build helper.o: rdc helper.hip
build two.o: rdc two.hip
build libdev.a: ar helper.o
build lib/libtwo.a: ar two.o
build app: link main.o helper.o two.o
build apparch: link main.o libdev.a | lib/libtwo.a
  flags = -Llib -ltwo
R
}

# same_as_driver: app and apparch are the driver's own links of the same files.
same_as_driver() {
  # shellcheck disable=SC2086
  $C22 $LFLAGS main.o helper.o two.o -o ref 2>/dev/null || fail "the driver's link of app failed"
  cmp -s ref app || fail "app differs from the driver's own link of the same files $1"
  # shellcheck disable=SC2086
  $C22 $LFLAGS main.o libdev.a -Llib -ltwo -o refarch 2>/dev/null || fail "the driver's link of apparch failed"
  cmp -s refarch apparch || fail "apparch differs from the driver's own link of the same files $1"
}

manifest gfx906:xnack- gfx90a:xnack+ gfx1030
"$PHC" regen --device-jobs 1 --explain >regen.out 2>&1 || fail "regen failed: $(cat regen.out)"
grep -q "split 2 RDC links into 6 device links" regen.out || fail "the links are not split: $(cat regen.out)"
grep -q "HIP fatbin app\$" build.ninja || fail "app has no fat binary edge of its own"
grep -q "HIP link plan apparch\$" build.ninja || fail "apparch (archives, -l) is not planned when it runs"
for a in gfx906:xnack- gfx90a:xnack+ gfx1030; do
  grep -q "HIP link $a app\$" build.ninja || fail "no device link edge for $a of app"
done
ninja >ninja.out 2>&1 || fail "build failed: $(tail -20 ninja.out)"
! grep -q "links the device code itself" ninja.out || fail "a link was left to the wrapper: $(cat ninja.out)"
same_as_driver "(first build)"
entries=$(grep -a -o 'hip-amdgcn-amd-amdhsa--gfx[0-9a-z:+-]*' app | sort -u | tr '\n' ' ')
expect_eq "app's bundle entries" "hip-amdgcn-amd-amdhsa--gfx1030 hip-amdgcn-amd-amdhsa--gfx906:xnack- hip-amdgcn-amd-amdhsa--gfx90a:xnack+ " "$entries"
"$PHC" check --all >check.out 2>&1 || fail "check: $(cat check.out)"
grep -q "^phc-ninja check: 5 of 5 split outputs checked: 5 identical$" check.out || fail "check: $(cat check.out)"
expect_no_work "$dir" "after the build"
pass "target IDs with features: a program of split objects and one of an archive and -l, split and identical to the driver's"

# A device change in one source: its compile and every architecture relink.
sed -i 's/3 \* x + 1/5 * x + 1/' helper.hip
ninja >dev.out 2>&1 || fail "rebuild after a device change failed: $(tail dev.out)"
for a in gfx906:xnack- gfx90a:xnack+ gfx1030; do
  grep -q "HIP link $a app\$" dev.out || fail "a device change did not relink $a of app: $(cat dev.out)"
done
! grep -q "main.o\|two.o" dev.out || fail "changing helper.hip recompiled other sources: $(cat dev.out)"
same_as_driver "after a device change"
expect_no_work "$dir" "after the device change"
pass "a device change relinks each architecture; identical"

# Adding an architecture: only its compiles and its device links run.
manifest gfx906:xnack- gfx90a:xnack+ gfx1030 gfx908
"$PHC" regen --device-jobs 1 >regen2.out 2>&1 || fail "regen failed: $(cat regen2.out)"
ninja >add.out 2>&1 || fail "build after adding gfx908 failed: $(tail add.out)"
grep -q "HIP link gfx908 app\$" add.out || fail "gfx908 was not linked: $(cat add.out)"
! grep -Eq "HIP link (gfx906|gfx90a|gfx1030)" add.out || fail "adding gfx908 relinked other architectures: $(cat add.out)"
same_as_driver "after adding gfx908"
pass "adding an architecture links only it; identical"

# A fat binary wrapper-link cannot prove (one image byte changed): the wrapper
# links the device code itself, saying why, and the program is the driver's.
cmd=$(grep -m 1 -o "wrapper-link --fatbin app.phc/fatbin.hipfb -- .*" build.ninja) ||
  fail "no wrapper-link command in build.ninja"
cp app.phc/fatbin.hipfb tampered.hipfb
printf 'X' | dd of=tampered.hipfb bs=1 seek=$(($(stat -c %s tampered.hipfb) - 1)) conv=notrunc 2>/dev/null
cmd=${cmd/--fatbin app.phc\/fatbin.hipfb/--fatbin tampered.hipfb}
# shellcheck disable=SC2086
"$PHC" ${cmd/ -o app / -o fallback } >fallback.out 2>&1 || fail "wrapper-link failed: $(cat fallback.out)"
grep -q "note: fallback: the wrapper links the device code itself: the fat binary's images are not the wrapper's" fallback.out ||
  fail "wrapper-link did not say why it left the link to the wrapper: $(cat fallback.out)"
cmp -s ref fallback || fail "the wrapper's own link of app differs from the driver's"
pass "a fat binary wrapper-link cannot prove: the wrapper links, saying why; identical"

# The launcher: the archive link (planned when it runs), split and identical.
PHC_NINJA_TRACE=$dir/trace.log "$(dirname "$PHC")/phc-launch" "$C22" $LFLAGS main.o libdev.a -Llib -ltwo \
  -o applaunch >launch.out 2>&1 || fail "phc-launch failed: $(cat launch.out)"
for a in gfx906:xnack- gfx90a:xnack+ gfx1030 gfx908; do
  grep -q "applaunch::link $a" trace.log || fail "no launcher device link step for $a: $(cat trace.log)"
done
cmp -s refarch applaunch || fail "the launcher's link differs from the driver's"
pass "phc-launch splits the target-ID link; identical"
