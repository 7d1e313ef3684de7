// Small math helpers used by the kernels. Included by .hip files, so both the
// host and the device compile see it; the functions are device-callable.
#pragma once

#include <hip/hip_runtime.h>

namespace phc_sample::dm {

__host__ __device__ inline float fma_axpy(float a, float x, float y) {
  return a * x + y;
}

__host__ __device__ inline float square(float v) { return v * v; }

// Warp-level tree reduction through shared memory; blockDim.x must be a power of two.
template <unsigned BlockSize>
__device__ inline float block_sum(float v, float* scratch) {
  const unsigned tid = threadIdx.x;
  scratch[tid] = v;
  __syncthreads();
  for (unsigned s = BlockSize / 2; s > 0; s >>= 1) {
    if (tid < s) scratch[tid] += scratch[tid + s];
    __syncthreads();
  }
  return scratch[0];
}

}  // namespace phc_sample::dm
