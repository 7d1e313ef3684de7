#include <hip/hip_runtime.h>

#include "device_math.hpp"
#include "phc_sample.hpp"

namespace phc_sample {
namespace {

constexpr unsigned kBlock = 256;

__global__ void sum_squares_kernel(const float* x, size_t n, float* partial) {
  __shared__ float scratch[kBlock];
  float acc = 0.0f;
  for (size_t i = blockIdx.x * static_cast<size_t>(kBlock) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * kBlock)
    acc += dm::square(x[i]);
  const float s = dm::block_sum<kBlock>(acc, scratch);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

}  // namespace

bool sum_of_squares(const std::vector<float>& x, double& out) {
  out = 0.0;
  const size_t n = x.size();
  if (n == 0) return true;
  const unsigned grid = static_cast<unsigned>(std::min<size_t>((n + kBlock - 1) / kBlock, 64));
  float* dx = nullptr;
  float* dpartial = nullptr;
  bool ok = hipMalloc(&dx, n * sizeof(float)) == hipSuccess &&
            hipMalloc(&dpartial, grid * sizeof(float)) == hipSuccess &&
            hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice) == hipSuccess;
  std::vector<float> partial(grid);
  if (ok) {
    hipLaunchKernelGGL(sum_squares_kernel, dim3(grid), dim3(kBlock), 0, 0, dx, n, dpartial);
    ok = hipGetLastError() == hipSuccess &&
         hipMemcpy(partial.data(), dpartial, grid * sizeof(float), hipMemcpyDeviceToHost) ==
             hipSuccess;
  }
  for (float p : partial) out += p;
  (void)hipFree(dx);
  (void)hipFree(dpartial);
  return ok;
}

}  // namespace phc_sample
