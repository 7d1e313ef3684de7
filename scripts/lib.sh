# Shared helpers for the scripts: where things are, how to configure the sample.
# shellcheck shell=bash
PHC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PHC_BIN=${PHC:-$PHC_ROOT/build/src/phc-ninja}
HIP_FLAGS_DEFAULT="--rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
# The scripts' builds keep their step history with them, not in the user's cache.
export PHC_HISTORY=${PHC_HISTORY:-$PHC_ROOT/build-bench/history}

# configure_sample BUILD_DIR ARCHS [extra cmake args...]: a CMake Ninja build of samples/cmake-hip.
configure_sample() {
  local dir=$1 archs=$2
  shift 2
  cmake -S "$PHC_ROOT/samples/cmake-hip" -B "$dir" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_HIP_COMPILER=clang++-15 \
    -DCMAKE_HIP_FLAGS="$HIP_FLAGS_DEFAULT" \
    -DCMAKE_HIP_ARCHITECTURES="$archs" "$@" >/dev/null
}

# now_ms: wall clock in milliseconds.
now_ms() { date +%s%3N; }

# need_phc: fails unless the phc-ninja binary is built.
need_phc() {
  [ -x "$PHC_BIN" ] || { echo "error: $PHC_BIN not built (run scripts/setup)" >&2; exit 1; }
}

# write_heavy_hip FILE INDEX UNROLL: a HIP source whose device code is slow to
# generate (four unrolled device functions and kernel_INDEX calling them).
write_heavy_hip() {
  local file=$1 f=$2 unroll=$3 k
  {
    echo '#include <hip/hip_runtime.h>'
    for k in 0 1 2 3; do
      cat <<K
__device__ float heavy_${f}_${k}(const float* a, int i) {
    float acc = 0.0f;
#pragma unroll
    for (int j = 0; j < $unroll; ++j) acc += __sinf(a[(i + j * $((k + 3))) & 1023] * j) * __cosf(acc + j);
    return acc;
}
K
    done
    echo "__global__ void kernel_$f(const float* a, float* out) {"
    echo "    int i = threadIdx.x;"
    echo "    out[i] = heavy_${f}_0(a, i) + heavy_${f}_1(a, i) + heavy_${f}_2(a, i) + heavy_${f}_3(a, i);"
    echo "}"
  } >"$file"
}
