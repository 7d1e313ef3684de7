#!/usr/bin/env bash
# phc-ninja regen on hand-written (non-CMake) manifests: edges in included
# files, --dry-run, -o, --device-jobs, --explain, and bad input that must leave
# build.ninja untouched.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
dir=$(suite_dir regen_manifest)
cd "$dir" || exit 1
cat >k.hip <<'K'
#include <hip/hip_runtime.h>
__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }
K
cat >rules.ninja <<'R'
rule hipcc
  command = clang++-15 $flags -x hip -c $in -o $out -MD -MF $out.d
  depfile = $out.d
  deps = gcc
  description = CC $out
R
cat >objs.ninja <<R
build out/k.o: hipcc k.hip
  flags = $HIP_FLAGS_DEFAULT --offload-arch=gfx90a --offload-arch=gfx906 --offload-arch=gfx90a
build out/one.o: hipcc k.hip
  flags = $HIP_FLAGS_DEFAULT --offload-arch=gfx906
R
cat >build.ninja <<'R'
include rules.ninja
include objs.ninja
build all: phony out/k.o out/one.o
default all
R
cp build.ninja orig.ninja
cp objs.ninja orig-objs.ninja

# --dry-run writes nothing.
"$PHC" regen --dry-run >dry.out
grep -q "would split out/k.o into 2 device edges \[gfx906 gfx90a\]" dry.out || fail "dry run: $(cat dry.out)"
cmp -s build.ninja orig.ninja || fail "--dry-run changed build.ninja"
[ ! -e objs.ninja.phc ] && [ ! -e build.ninja.cmake ] || fail "--dry-run wrote files"
pass "--dry-run reports and writes nothing"

# -o writes elsewhere and leaves the manifest alone.
"$PHC" regen -o other.ninja --quiet
cmp -s build.ninja orig.ninja || fail "-o changed build.ninja"
[ -s other.ninja ] && [ -s objs.ninja.phc ] || fail "-o did not write other.ninja and objs.ninja.phc"
grep -q "^include objs.ninja.phc" other.ninja || fail "other.ninja does not include the rewritten objs.ninja"
pass "-o writes elsewhere"

# --only / --skip: objects they leave out stay as they are (not-selected).
"$PHC" regen --dry-run --explain --skip 'k\.o$' >skip.out || fail "regen --skip failed"
grep -qxF "left alone  out/k.o  not-selected: --skip 'k\.o\$' matches out/k.o" skip.out ||
  fail "--skip: $(cat skip.out)"
"$PHC" regen --dry-run --explain --only '^out/k' >only.out || fail "regen --only failed"
grep -q "^split       out/k.o  \[gfx906 gfx90a\]" only.out || fail "--only: $(cat only.out)"
status=0
"$PHC" regen --skip 'a[' 2>err.out || status=$?
expect_eq "bad --skip status" 2 "$status"
grep -qx "phc-ninja regen: error: --skip: 'a\[' is not a regular expression (.*) (see --help)" err.out ||
  fail "bad --skip message: $(cat err.out)"
cmp -s build.ninja orig.ninja || fail "a bad --skip changed build.ninja"
pass "--only and --skip choose the objects; a bad pattern is a one-line usage error"

# In place, with an edge in an included file, a device pool and --explain.
"$PHC" regen --device-jobs 1 --explain >explain.out
grep -q "^split       out/k.o  \[gfx906 gfx90a\]" explain.out || fail "explain: $(cat explain.out)"
grep -q "^left alone  out/one.o  single-arch: " explain.out || fail "explain: $(cat explain.out)"
cmp -s build.ninja.cmake orig.ninja || fail "CMake's original not kept verbatim"
grep -q "^pool phc_hip_device" build.ninja || fail "no device pool"
grep -q "^  pool = phc_hip_device" objs.ninja.phc || fail "device edges not in the pool"
cmp -s objs.ninja orig-objs.ninja || fail "the included original was modified"
ninja >build.out || fail "build failed: $(cat build.out)"
grep -q "no work to do" <<<"$(ninja -n)" || fail "second ninja has work"
cuids=$(grep -o -- "-cuid=[0-9a-f]*" objs.ninja.phc)
cuid=${cuids%%$'\n'*}
clang++-15 $HIP_FLAGS_DEFAULT --offload-arch=gfx90a --offload-arch=gfx906 --offload-arch=gfx90a \
  -x hip -c k.hip -o ref.o "$cuid"
cmp -s ref.o out/k.o || fail "out/k.o differs from the driver's compile with $cuid"
pass "an edge in an included file is split, pooled, built, byte-identical"

# Bad input leaves every file as it was: a manifest ninja rejects...
cp build.ninja split.ninja
printf 'build x: nosuchrule y\n' >>objs.ninja
cp build.ninja.cmake build.ninja  # as if CMake had just written it
if "$PHC" regen 2>err.out; then fail "regen accepted an unknown rule"; fi
expect_eq "error text" "objs.ninja:5:10: error: unknown build rule 'nosuchrule'" "$(head -n 1 err.out)"
cmp -s build.ninja orig.ninja || fail "a rejected manifest changed build.ninja"
pass "a manifest ninja rejects: file:line:col error, nothing written"

# ... and, with --strict, a compiler that cannot be probed: regen says so and
# writes nothing (without --strict such edges are left alone: probe-failed).
sed -i '$d' objs.ninja
sed -i 's/clang++-15/\/nonexistent\/clang++-15/' rules.ninja
if "$PHC" regen --strict 2>err.out; then fail "regen --strict accepted a missing compiler"; fi
expect_eq "error text" "objs.ninja:1: error: compiler '/nonexistent/clang++-15' not found" "$(cat err.out)"
cmp -s build.ninja orig.ninja || fail "an unprobeable compiler changed build.ninja"
cmp -s build.ninja.cmake orig.ninja || fail "an unprobeable compiler changed build.ninja.cmake"
sed -i 's/\/nonexistent\/clang++-15/clang++-15/' rules.ninja
pass "a compiler that cannot be probed: one-line error naming file and line, nothing written"

# -o naming the manifest itself is an in-place rewrite that keeps CMake's original.
cp orig.ninja build.ninja
rm -f build.ninja.cmake
"$PHC" regen -o build.ninja --quiet 2>/dev/null
cmp -s build.ninja.cmake orig.ninja || fail "-o build.ninja did not keep the original"
"$PHC" regen --quiet 2>/dev/null || fail "regen after -o build.ninja failed"
pass "-o build.ninja is in place"

# Unknown flags.
if "$PHC" regen --bogus 2>err.out; then fail "--bogus accepted"; fi
expect_eq "usage error" "phc-ninja regen: error: unknown option '--bogus' (see --help)" "$(cat err.out)"
pass "unknown flags are usage errors"

# A build without a multi-architecture HIP compile says so, not "split 0 objects".
mkdir -p single && cd single || exit 1
cat >build.ninja <<R
rule hipcc
  command = clang++-15 \$flags -x hip -c \$in -o \$out
rule cc
  command = cc -c \$in -o \$out
build one.o: hipcc ../k.hip
  flags = $HIP_FLAGS_DEFAULT --offload-arch=gfx906
build x.o: cc x.c
R
"$PHC" regen >out || fail "regen of a single-architecture build failed"
expect_eq "summary" "phc-ninja regen: no multi-architecture HIP compiles among 2 edges (single-arch: 1); 0 compiler probes; wrote build.ninja.cmake, build.ninja" "$(cat out)"
cd .. || exit 1
pass "no multi-architecture HIP compile: the summary says so, with the edges looked at"

# A CMake build directory of the Makefile generator: a one-line error with the
# ways on, nothing written.
mkdir -p mk/src && printf 'int main() { return 0; }\n' >mk/src/main.cpp
printf 'cmake_minimum_required(VERSION 3.20)\nproject(mk LANGUAGES CXX)\nadd_executable(mk main.cpp)\n' >mk/src/CMakeLists.txt
cmake -S mk/src -B mk/build -G "Unix Makefiles" >/dev/null || fail "cmake -G 'Unix Makefiles' failed"
if "$PHC" regen -C mk/build 2>err.out; then fail "regen accepted a Makefile build directory"; fi
expect_eq "error" "mk/build/build.ninja: error: not found: CMake configured this directory with the \"Unix Makefiles\" generator; re-configure it with -G Ninja, or use phc-launch (-DCMAKE_HIP_COMPILER_LAUNCHER=phc-launch) or phc-ninja gen (-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)" "$(cat err.out)"
[ ! -e mk/build/.phc-ninja ] && [ ! -e mk/build/build.ninja ] || fail "regen wrote into a Makefile build directory"
pass "a CMake Makefile build directory: one-line error naming -G Ninja, phc-launch and gen"

# PHC_DEVICE_WARNINGS=first: a warning in a kernel shows for the first
# architecture's device edge and the host only; the object is the same bytes.
mkdir -p dw && cd dw || exit 1
cat >w.hip <<'K'
#include <hip/hip_runtime.h>
__global__ void k(float* x) { int unused = 3; x[threadIdx.x] *= 2.0f; }
K
cat >build.ninja <<R
rule hipcc
  command = clang++-15 $HIP_FLAGS_DEFAULT -Wall --offload-arch=gfx906 --offload-arch=gfx90a -x hip -c \$in -o \$out
build w.o: hipcc w.hip
R
cp build.ninja orig.ninja
"$PHC" regen --quiet || fail "regen failed"
ninja >all.out 2>&1 || fail "build failed: $(cat all.out)"
expect_eq "warnings without the switch" 3 "$(grep -c "warning: unused variable" all.out)"
cp w.o all.o
cp orig.ninja build.ninja
rm -rf .ninja_log .ninja_deps .phc-ninja build.ninja.cmake w.o w.o.phc
PHC_DEVICE_WARNINGS=first "$PHC" regen --quiet || fail "regen with PHC_DEVICE_WARNINGS=first failed"
ninja >first.out 2>&1 || fail "build failed: $(cat first.out)"
expect_eq "warnings with PHC_DEVICE_WARNINGS=first" 2 "$(grep -c "warning: unused variable" first.out)"
grep -q "compiling for gfx906\.$" first.out || fail "no warning of the first architecture: $(cat first.out)"
grep -q "compiling for gfx90a" first.out && fail "gfx90a still warns: $(cat first.out)"
cmp -s w.o all.o || fail "-w on the later device edges changed the object"
cd .. || exit 1
pass "PHC_DEVICE_WARNINGS=first: the first architecture and the host warn, the object is unchanged"
