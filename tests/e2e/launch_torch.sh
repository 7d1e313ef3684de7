#!/usr/bin/env bash
# PyTorch's shape (issue 39): a build.ninja as torch.utils.cpp_extension's
# _write_ninja_file writes it on ROCm for `setup.py build_ext` (no library
# target: setuptools links): `nvcc` is hipcc (or PYTORCH_NVCC), the rule
# `cuda_compile` runs `$nvcc  $cuda_cflags -c $in -o $out $cuda_post_cflags`
# with every --offload-arch in cuda_post_cflags and no depfile (ROCm), paths
# absolute.
#   - the launcher route, `nvcc = phc-launch hipcc` (what PYTORCH_NVCC sets),
#     `ninja -j2` with a pool of 2: split, identical (PHC_CHECK=1), never more
#     than 2 compilers at once (+1 tolerance: see launch_pool.sh);
#   - the regen route, `nvcc = hipcc`: `phc-ninja regen` splits it, the objects
#     are identical (phc-ninja check), and a header that only device code
#     reads rebuilds the device edges when touched (the original has no
#     depfile: touching it rebuilds nothing).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
command -v hipcc >/dev/null || fail "hipcc is not installed"
L=$(dirname "$PHC")/phc-launch
W=$(suite_dir launch_torch)
export TMPDIR=$W/tmp PHC_PROBE_CACHE=$W/probes.json PHC_JOBS=2
unset MAKEFLAGS CARGO_MAKEFLAGS
mkdir -p "$TMPDIR" "$W/csrc"
cd "$W" || exit 1
TAG=launch-torch-$$-$RANDOM
trap sample_cleanup EXIT

cat >csrc/device_tuning.h <<'H'
#pragma once
#define EXT_SCALE 2.0f
H
for i in 1 2 3 4; do
  cat >"csrc/k$i.hip" <<HIP
#include <hip/hip_runtime.h>
#ifdef __HIP_DEVICE_COMPILE__
#include "device_tuning.h"
#else
#define EXT_SCALE 1.0f
#endif
__global__ void k$i(float* x) { x[threadIdx.x] *= EXT_SCALE + $i; }
HIP
done
echo 'int ext_binding() { return 1; }' >csrc/ext.cpp

# manifest DIR NVCC: the build.ninja of cpp_extension on ROCm, in DIR.
manifest() {
  local dir=$1 nvcc=$2 i
  mkdir -p "$dir$W/csrc" # build_temp + the source's absolute path, as setuptools names objects
  {
    echo "ninja_required_version = 1.3"
    echo "cxx = c++"
    echo "nvcc = $nvcc"
    echo
    echo "cflags = -I$W/csrc -fPIC -std=c++17"
    echo "post_cflags = -D__HIP_PLATFORM_AMD__=1 -DUSE_ROCM=1 -DHIPBLAS_V2 -fPIC -O3 -std=c++17 -DTORCH_API_INCLUDE_EXTENSION_H '-DPYBIND11_COMPILER_TYPE=\"_gcc\"' -DTORCH_EXTENSION_NAME=_ext"
    echo "cuda_cflags = -I$W/csrc -fPIC -D__HIP_PLATFORM_AMD__=1 -DUSE_ROCM=1 -DHIPBLAS_V2 --rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
    echo "cuda_post_cflags = -fPIC -D__HIP_PLATFORM_AMD__=1 -DUSE_ROCM=1 -DHIPBLAS_V2 -DCUDA_HAS_FP16=1 -D__HIP_NO_HALF_OPERATORS__=1 -D__HIP_NO_HALF_CONVERSIONS__=1 -DHIP_ENABLE_WARP_SYNC_BUILTINS=1 -O3 -DTORCH_API_INCLUDE_EXTENSION_H '-DPYBIND11_COMPILER_TYPE=\"_gcc\"' -DTORCH_EXTENSION_NAME=_ext --offload-arch=gfx906 --offload-arch=gfx90a -fno-gpu-rdc -std=c++17"
    echo "cuda_dlink_post_cflags = "
    echo "ldflags = "
    echo
    echo "rule compile"
    echo "  command = \$cxx -MMD -MF \$out.d \$cflags -c \$in -o \$out \$post_cflags"
    echo "  depfile = \$out.d"
    echo "  deps = gcc"
    echo
    echo "rule cuda_compile"
    echo "  command = \$nvcc  \$cuda_cflags -c \$in -o \$out \$cuda_post_cflags"
    echo
    echo "build $W/$dir$W/csrc/ext.o: compile $W/csrc/ext.cpp"
    for i in 1 2 3 4; do
      echo "build $W/$dir$W/csrc/k$i.o: cuda_compile $W/csrc/k$i.hip"
    done
  } >"$dir/build.ninja"
}

echo "-- nvcc = phc-launch hipcc, ninja -j2, pool of 2: split, identical, bounded"
manifest launch "$L hipcc"
sample_start "$TAG" launch.most
PHC_E2E_RUN=$TAG PHC_CHECK=1 PHC_NINJA_TRACE=$W/trace.log ninja -C launch -j2 >launch.log 2>&1 ||
  { cat launch.log; fail "the launcher build failed"; }
sample_stop launch.most
for i in 1 2 3 4; do
  grep -q "k$i.o::gfx90a" trace.log || fail "k$i.o was not split"
done
[ "$MOST" -le 3 ] || fail "$MOST compilers at once under ninja -j2 with a pool of 2 (limit 3)"
pass "cpp_extension's manifest through phc-launch hipcc: split, identical, at most $MOST compilers at once"

echo "-- nvcc = hipcc, phc-ninja regen: split, identical, device edges with depfiles"
manifest regen "$(command -v hipcc)"
"$PHC" regen -C regen >regen.out 2>&1 || { cat regen.out; fail "regen of cpp_extension's manifest failed"; }
grep -q "split 4 objects into 8 device edges" regen.out || { cat regen.out; fail "regen did not split the 4 objects"; }
grep -q -- '--offload-device-only' regen/build.ninja || { cat regen.out; fail "regen split nothing"; }
ninja -C regen -j2 >regen.log 2>&1 || { cat regen.log; fail "the regen build failed"; }
# One object against the driver (the launcher route above checked all four,
# hipcc's split objects are the driver's in fidelity.sh too).
"$PHC" check -C regen "$W/regen$W/csrc/k1.o" >check.out 2>&1 || { cat check.out; fail "phc-ninja check found a difference"; }
grep -q "1 of 4 split outputs checked: 1 identical" check.out || { cat check.out; fail "check did not find k1.o identical"; }
expect_no_work regen "after the regen build"
touch csrc/device_tuning.h
work=$(ninja -C regen -n)
grep -q "gfx906" <<<"$work" || fail "touching a device-only header rebuilds no device edge: $work"
ninja -C regen -j2 >regen2.log 2>&1 || { cat regen2.log; fail "the rebuild after the header failed"; }
# The original manifest has no depfile: there the header rebuilds nothing.
expect_no_work launch "the launcher's manifest after touching the header (no depfile on ROCm)"
pass "regen splits cpp_extension's manifest; a device-only header rebuilds its device edges"
