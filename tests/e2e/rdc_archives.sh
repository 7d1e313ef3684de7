#!/usr/bin/env bash
# The new offload driver's RDC links whose device code comes from static
# archives (clang 22): clang-linker-wrapper picks the archive members it links
# by symbol resolution when the link runs, so regen gives the link a plan step
# that asks the wrapper then, and one device link edge per architecture.
# A program linked against an archive of RDC objects (a long member name, a
# member with an unreferenced kernel, a member without device code) and a -l
# archive: identical to the driver's own link of the same files, no-op clean;
# a host-only change in the archive relinks no architecture; a device change
# relinks both; an archive whose member name two members share leaves the
# device code to the wrapper, saying why, and the program is still the
# driver's. Then the same link through phc-launch under make -j4.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir rdc_archives)
cd "$dir" || exit 1
C22=/usr/lib/llvm-22/bin/clang++
SHIM="-mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64" # ROCm 5.2 headers under clang 22
ARCHS="--offload-arch=gfx906 --offload-arch=gfx90a"
CFLAGS="-x hip $HIP_FLAGS_DEFAULT $SHIM -O2 --offload-new-driver -fgpu-rdc $ARCHS"
LFLAGS="--rocm-path=/usr --offload-new-driver -fgpu-rdc --hip-link $ARCHS"
mkdir -p lib d1 d2
cat >main.hip <<'K'
#include <hip/hip_runtime.h>
extern __device__ int helper(int);
extern __device__ int twice(int);
__global__ void use(int* p) { p[threadIdx.x] = twice(helper(p[threadIdx.x])); }
int host_side(int);
int main() { use<<<1, 1>>>(nullptr); return host_side(1); }
K
cat >helper_with_a_rather_long_name.hip <<'K'
#include <hip/hip_runtime.h>
__device__ int helper(int x) { return 3 * x + 1; }
K
cat >unused.hip <<'K'
#include <hip/hip_runtime.h>
__global__ void never_called(int* p) { p[0] = 42; }
K
printf 'int host_side(int x) { return x - 1; }\n' >host.cpp
cat >two.hip <<'K'
#include <hip/hip_runtime.h>
__device__ int twice(int x) { return 2 * x; }
K
cp helper_with_a_rather_long_name.hip d1/x.hip
cp unused.hip d2/x.hip
cat >build.ninja <<R
rule rdc
  command = $C22 $CFLAGS -MD -MF \$out.d -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
  description = CC \$out
rule cxx
  command = $C22 -O2 -c \$in -o \$out
rule ar
  command = rm -f \$out && ar qc \$out \$in && ar s \$out
rule link
  command = $C22 $LFLAGS \$in \$flags -o \$out
  description = LINK \$out
build main.o: rdc main.hip
build helper_with_a_rather_long_name.o: rdc helper_with_a_rather_long_name.hip
build unused.o: rdc unused.hip
build host.o: cxx host.cpp
build two.o: rdc two.hip
build d1/x.o: rdc d1/x.hip
build d2/x.o: rdc d2/x.hip
build libdev.a: ar helper_with_a_rather_long_name.o unused.o host.o
build lib/libtwo.a: ar two.o
build libdup.a: ar d1/x.o d2/x.o host.o
build app: link main.o libdev.a | lib/libtwo.a
  flags = -Llib -ltwo
build appdup: link main.o libdup.a | lib/libtwo.a
  flags = -Llib -ltwo
R
"$PHC" regen --device-jobs 1 >regen.out || fail "regen failed: $(cat regen.out)"
for l in app appdup; do
  grep -q "HIP link plan $l\$" build.ninja || fail "no link plan edge for $l: $(cat regen.out)"
  for a in gfx906 gfx90a; do
    grep -q "HIP link $a $l\$" build.ninja || fail "no device link edge for $a of $l: $(cat regen.out)"
  done
done
ninja >ninja.out 2>&1 || fail "build failed: $(cat ninja.out)"
# The driver's own links of the same files.
# shellcheck disable=SC2086
$C22 $LFLAGS main.o libdev.a -Llib -ltwo -o ref 2>/dev/null || fail "the driver's link of app failed"
cmp -s ref app || fail "app differs from the driver's own link of the same files"
# shellcheck disable=SC2086
$C22 $LFLAGS main.o libdup.a -Llib -ltwo -o refdup 2>/dev/null || fail "the driver's link of appdup failed"
cmp -s refdup appdup || fail "appdup differs from the driver's own link of the same files"
[ -s app.phc/gfx906.img ] || fail "app's gfx906 device link wrote no image"
# The device inputs of app's gfx906 link: main, the helper member and the -l
# archive's member (the wrapper resolves 'twice' there too).
n=$(python3 -c 'import json,sys; print(sum(w.startswith("app.phc/x/") for w in json.load(open(sys.argv[1]))["commands"][0]))' app.phc/gfx906.plan)
[ "$n" -ge 3 ] || fail "app's gfx906 device link reads $n extracted files: $(cat app.phc/gfx906.plan)"
grep -q "appdup: the wrapper links its device code itself: .*may come from libdup.a(x.o) or libdup.a(x.o)" ninja.out ||
  fail "appdup's device code is not left to the wrapper, saying why: $(cat ninja.out)"
[ ! -s appdup.phc/gfx906.img ] || fail "appdup's device link ran although the wrapper links its device code"
expect_no_work "$dir" "after the build"
pass "links against static archives split (plan step, device link per architecture), identical to the driver's"

# A host-only change in an archive member: the plan step runs, no device link does.
printf 'int host_side(int x) { return x - 2; }\n' >host.cpp
ninja app >host.out 2>&1 || fail "rebuild after a host-only change failed: $(cat host.out)"
grep -q "HIP link plan app" host.out || fail "the plan step did not run: $(cat host.out)"
! grep -q "HIP link gfx90[6a] app" host.out || fail "a host-only change relinked device code: $(cat host.out)"
grep -q "HIP host link app" host.out || fail "the host link did not run: $(cat host.out)"
# shellcheck disable=SC2086
$C22 $LFLAGS main.o libdev.a -Llib -ltwo -o ref 2>/dev/null || fail "the driver's relink failed"
cmp -s ref app || fail "app differs from the driver's link after a host-only change"
pass "a host-only change in an archive relinks no architecture; identical"

# A device change in an archive member: both architectures relink.
sed -i 's/3 \* x + 1/5 * x + 1/' helper_with_a_rather_long_name.hip
ninja >dev.out 2>&1 || fail "rebuild after a device change failed: $(cat dev.out)"
for a in gfx906 gfx90a; do
  grep -q "HIP link $a app" dev.out || fail "a device change did not relink $a: $(cat dev.out)"
done
# shellcheck disable=SC2086
$C22 $LFLAGS main.o libdev.a -Llib -ltwo -o ref 2>/dev/null || fail "the driver's relink failed"
cmp -s ref app || fail "app differs from the driver's link after a device change"
expect_no_work "$dir" "after the rebuilds"
pass "a device change in an archive relinks each architecture; identical"

# phc-launch under make -j4: the same link, its plan run by the launcher.
mk=$dir/make
mkdir -p "$mk/lib"
cp main.o libdev.a "$mk/"
cp lib/libtwo.a "$mk/lib/"
cd "$mk" || exit 1
printf 'app: main.o libdev.a lib/libtwo.a\n\t+$(LAUNCH) %s %s main.o libdev.a -Llib -ltwo -o $@\n' \
  "$C22" "$LFLAGS" >Makefile
PHC_NINJA_TRACE=$mk/trace.log make -j4 LAUNCH="$(dirname "$PHC")/phc-launch" >make.out 2>&1 ||
  fail "make -j4 with phc-launch failed: $(cat make.out)"
for a in gfx906 gfx90a; do
  grep -q "app::link $a" trace.log || fail "no launcher device link step for $a: $(cat trace.log)"
done
cmp -s "$dir/ref" app || fail "the launcher's app differs from the driver's link"
pass "phc-launch splits the archive link under make -j4; identical"

# CMake: an RDC static library and an executable (clang-15, the old driver,
# three architectures). clang 15's driver takes device code from a static
# library only through -l (a positional libdev.a gives it none: its own link
# fails), so the program names it -ldev. The driver picks the archive for a
# -l when it plans the link, and this one the build makes: regen plans the
# link when it runs (the driver's -### then). Identical to the driver's own
# link of the same files, no-op clean, a library source changed relinks with
# its new device code. Through phc-launch on the link (CMake's Makefile
# generator, RULE_LAUNCH_LINK, make -j4) the archive exists: split, identical.
cm=$dir/cmake
mkdir -p "$cm/src"
cat >"$cm/src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.21)
project(rdc_archive LANGUAGES HIP)
add_library(dev STATIC helper.hip kern.hip)
target_compile_options(dev PRIVATE -fgpu-rdc)
add_executable(app main.hip)
target_compile_options(app PRIVATE -fgpu-rdc)
add_dependencies(app dev)
target_link_libraries(app PRIVATE -L${CMAKE_BINARY_DIR} -ldev)
# A -l name is no file to CMake: relink when the archive changes.
set_target_properties(app PROPERTIES LINK_DEPENDS ${CMAKE_BINARY_DIR}/libdev.a)
target_link_options(app PRIVATE -fgpu-rdc --hip-link -B/usr/lib/llvm-15/bin)
if(PHC_LAUNCH)
  set_property(GLOBAL PROPERTY RULE_LAUNCH_LINK "${PHC_LAUNCH}")
endif()
CM
printf '#include <hip/hip_runtime.h>\n__device__ int helper(int x) { return x + 7; }\n' >"$cm/src/helper.hip"
cat >"$cm/src/kern.hip" <<'K'
#include <hip/hip_runtime.h>
extern __device__ int helper(int);
__global__ void kern(int* p) { p[threadIdx.x] = helper(p[threadIdx.x]); }
K
cat >"$cm/src/main.hip" <<'K'
#include <hip/hip_runtime.h>
extern __device__ int helper(int);
__global__ void kern(int* p);
__global__ void own(int* p) { p[0] = helper(1); }
int main() { kern<<<1, 1>>>(nullptr); own<<<1, 1>>>(nullptr); return 0; }
K
cb=$cm/build
cmake -S "$cm/src" -B "$cb" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_HIP_COMPILER=clang++-15 \
  -DCMAKE_HIP_FLAGS="$HIP_FLAGS_DEFAULT" -DCMAKE_HIP_ARCHITECTURES="gfx906;gfx90a;gfx1030" >/dev/null ||
  fail "cmake configure failed"
"$PHC" regen -C "$cb" >"$cm/regen.out" || fail "regen failed: $(cat "$cm/regen.out")"
grep -q "split 1 RDC link into 3 device links" "$cm/regen.out" || fail "the link is not split: $(cat "$cm/regen.out")"
grep -q "HIP link plan app\$" "$cb/build.ninja" || fail "the link is not planned when it runs"
ninja -C "$cb" >"$cm/ninja.out" 2>&1 || fail "CMake build failed: $(cat "$cm/ninja.out")"
cmd=$(ninja -C "$cb" -f build.ninja.cmake -t commands app | tail -n 1)
(cd "$cb" && eval "${cmd/-o app/-o $cm/ref_app}") >/dev/null 2>&1 || fail "the driver's link failed: $cmd"
cmp -s "$cm/ref_app" "$cb/app" || fail "CMake's app differs from the driver's link of the same files"
expect_no_work "$cb" "after the CMake build"
sed -i 's/x + 7/x + 9/' "$cm/src/helper.hip"
ninja -C "$cb" >"$cm/rebuild.out" 2>&1 || fail "CMake rebuild failed: $(cat "$cm/rebuild.out")"
for a in gfx906 gfx90a gfx1030; do
  grep -q "HIP link $a app" "$cm/rebuild.out" || fail "$a did not relink: $(cat "$cm/rebuild.out")"
done
! grep -q "kern.hip\|main.hip" "$cm/rebuild.out" || fail "changing helper.hip recompiled other sources"
cp "$cm/ref_app" "$cm/ref_before"
(cd "$cb" && eval "${cmd/-o app/-o $cm/ref_app}") >/dev/null 2>&1 || fail "the driver's relink failed"
cmp -s "$cm/ref_app" "$cb/app" || fail "CMake's app differs from the driver's link after the rebuild"
! cmp -s "$cm/ref_app" "$cm/ref_before" || fail "the rebuilt app links the old device code"
expect_no_work "$cb" "after the CMake rebuild"
pass "CMake: a -l RDC static library the build makes, planned when the link runs; identical, exact relink"

# The same through hipcc (CMake cannot take it as the HIP compiler: the
# manifest's compiler replaced, as rdc_cmake.sh does).
hb=$cm/hipcc
cmake -S "$cm/src" -B "$hb" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_HIP_COMPILER=clang++-15 \
  -DCMAKE_HIP_FLAGS="$HIP_FLAGS_DEFAULT" -DCMAKE_HIP_ARCHITECTURES="gfx906;gfx90a;gfx1030" >/dev/null ||
  fail "cmake configure (hipcc) failed"
sed -i 's#/usr/bin/clang++-15 #/usr/bin/hipcc #' "$hb/build.ninja" "$hb/CMakeFiles/rules.ninja"
"$PHC" regen -C "$hb" >"$cm/regen-hipcc.out" || fail "hipcc: regen failed: $(cat "$cm/regen-hipcc.out")"
grep -q "split 1 RDC link into 3 device links" "$cm/regen-hipcc.out" ||
  fail "hipcc: the link is not split: $(cat "$cm/regen-hipcc.out")"
ninja -C "$hb" >"$cm/ninja-hipcc.out" 2>&1 || fail "hipcc: build failed: $(cat "$cm/ninja-hipcc.out")"
cmd=$(ninja -C "$hb" -f build.ninja.cmake -t commands app | tail -n 1)
(cd "$hb" && eval "${cmd/-o app/-o $cm/ref_hipcc}") >/dev/null 2>&1 || fail "hipcc: the driver's link failed: $cmd"
cmp -s "$cm/ref_hipcc" "$hb/app" || fail "hipcc: app differs from hipcc's own link of the same files"
expect_no_work "$hb" "hipcc, after the build"
pass "hipcc: the -l RDC static library's program split when the link runs, identical"

mb=$cm/make
cmake -S "$cm/src" -B "$mb" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release -DCMAKE_HIP_COMPILER=clang++-15 \
  -DCMAKE_HIP_FLAGS="$HIP_FLAGS_DEFAULT" -DCMAKE_HIP_ARCHITECTURES="gfx906;gfx90a;gfx1030" \
  -DPHC_LAUNCH="$(dirname "$PHC")/phc-launch" >/dev/null || fail "cmake configure (make) failed"
PHC_NINJA_TRACE=$mb/trace.log make -C "$mb" -j4 >"$mb/make.out" 2>&1 || fail "make -j4 failed: $(cat "$mb/make.out")"
for a in gfx906 gfx90a gfx1030; do
  grep -q "app::link $a" "$mb/trace.log" || fail "no launcher device link for $a: $(cat "$mb/trace.log")"
done
link=$(sed "s|^$(dirname "$PHC")/phc-launch ||" "$mb/CMakeFiles/app.dir/link.txt")
(cd "$mb" && eval "${link/-o app/-o $cm/ref_make}") >/dev/null 2>&1 || fail "the driver's link (make) failed: $link"
cmp -s "$cm/ref_make" "$mb/app" || fail "the launcher's app differs from the driver's link of the same files"
pass "CMake's Makefile generator with phc-launch on the link, make -j4: split, identical"
