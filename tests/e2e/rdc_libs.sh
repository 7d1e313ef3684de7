#!/usr/bin/env bash
# An RDC link's -l libraries (issues 24 and 28): the driver takes device code
# from the archive a -l names when the link runs. A library the build makes
# (./libfoo.a, while an installed libfoo.a sits in a later -L folder) or a name
# several folders hold is planned when the link runs (a plan step runs the
# driver's -### then and unbundles as it does); a prebuilt archive in one
# folder is unbundled by the split planned now. Every program equals the
# driver's own link (real clang-15 RDC objects, gfx906 and gfx90a), and a
# change to the library the build makes relinks with its new device code.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir rdc_libs)
cd "$dir" || exit 1
archs="--offload-arch=gfx906 --offload-arch=gfx90a"
# The compiler by its own folder: the driver runs the lld beside it (InstalledDir),
# where /usr/bin may hold another version's lld.
cxx="/usr/lib/llvm-15/bin/clang++ $HIP_FLAGS_DEFAULT -fgpu-rdc $archs"

cat >lib.hip <<'K'
#include <hip/hip_runtime.h>
__device__ int foo_value() { return FOO_VALUE; }
K
cat >bar.hip <<'K'
#include <hip/hip_runtime.h>
__device__ int bar_value() { return 7; }
K
cat >main.hip <<'K'
#include <hip/hip_runtime.h>
__device__ int foo_value();
__global__ void k(int* p) { p[0] = foo_value(); }
int main() { return 0; }
K
cat >main2.hip <<'K'
#include <hip/hip_runtime.h>
__device__ int bar_value();
__global__ void k2(int* p) { p[0] = bar_value(); }
int main() { return 0; }
K
# Installed copies: another libfoo.a (another constant) and a prebuilt libbar.a.
mkdir -p inst inst2 prebuilt
$cxx -DFOO_VALUE=2 -x hip -c lib.hip -o inst/lib.o
ar rcs inst/libfoo.a inst/lib.o
cp inst/libfoo.a inst2/libfoo.a
$cxx -x hip -c bar.hip -o prebuilt/bar.o
ar rcs prebuilt/libbar.a prebuilt/bar.o

cat >build.ninja <<R
rule hipcc
  command = $cxx \$defs -x hip -c \$in -o \$out
rule ar
  command = rm -f \$out && ar rcs \$out \$in
rule link
  command = $cxx --hip-link \$in -o \$out \$libs
build lib.o: hipcc lib.hip
  defs = -DFOO_VALUE=1
build libfoo.a: ar lib.o
build main.o: hipcc main.hip
build main2.o: hipcc main2.hip
build app: link main.o | libfoo.a
  libs = -L. -Linst -lfoo
build app2: link main2.o
  libs = -Lprebuilt -lbar
build app3: link main.o
  libs = -Linst -Linst2 -lfoo
R

"$PHC" regen --explain >regen.out 2>&1 || fail "regen failed: $(cat regen.out)"
for out in app app2 app3; do
  grep -q "^split       $out  \[gfx906 gfx90a\]" regen.out || fail "$out's link is not split: $(cat regen.out)"
done
for out in app app3; do
  grep -q "HIP link plan $out\$" build.ninja || fail "$out's link is not planned when it runs: $(cat regen.out)"
done
! grep -q "HIP link plan app2" build.ninja || fail "app2's link (a prebuilt archive) is planned when it runs"
pass "-l of a library the build makes, or that several folders hold, is planned when the link runs"

ninja >build.out 2>&1 || fail "build failed: $(cat build.out)"
grep -q "HIP link gfx90a app2" build.out || fail "app2's device links did not run split: $(cat build.out)"
# The driver's own links, run by hand now that everything is built.
for out in app app2 app3; do
  cmd=$(ninja -f build.ninja.cmake -t commands "$out" | tail -n 1)
  eval "${cmd/-o $out/-o ref_$out}" || fail "driver link of $out failed: $cmd"
  cmp -s "ref_$out" "$out" || fail "$out differs from the driver's link of the same objects"
done
pass "each program equals the driver's own link (./libfoo.a for app, inst/libfoo.a for app3)"

# The library the build makes changes: app's plan unbundles its new device code.
sed -i 's/return FOO_VALUE;/return FOO_VALUE + 40;/' lib.hip
ninja app >rebuild.out 2>&1 || fail "rebuild failed: $(cat rebuild.out)"
for a in gfx906 gfx90a; do
  grep -q "HIP link $a app\$" rebuild.out || fail "app's $a device link did not rerun: $(cat rebuild.out)"
done
cmd=$(ninja -f build.ninja.cmake -t commands app | tail -n 1)
eval "${cmd/-o app/-o ref_app}" || fail "driver relink of app failed: $cmd"
cmp -s ref_app app || fail "app differs from the driver's link after libfoo.a changed"
! cmp -s ref_app ref_app3 || fail "app and app3 link the same device code: the test cannot tell archives apart"
expect_no_work "$dir" "after the rebuild"
pass "a change to the -l library the build makes relinks app with its new device code, identically"
