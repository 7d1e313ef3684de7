#include <hip/hip_runtime.h>

#include "device_math.hpp"
#include "phc_sample.hpp"

// device_tuning.hpp is read only by the device compiles (one per architecture):
// a change to it rebuilds the device code, the bundle and the host object that
// embeds it, and nothing else.
#if defined(__HIP_DEVICE_COMPILE__)
#include "device_tuning.hpp"
#else
#define PHC_DEVICE_SCALE 1.0f
#endif

namespace phc_sample {
namespace {

__global__ void saxpy_kernel(float a, const float* x, float* y, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = dm::fma_axpy(a * PHC_DEVICE_SCALE, x[i], y[i]);
}

}  // namespace

bool saxpy(float a, const std::vector<float>& x, std::vector<float>& y) {
  const size_t n = x.size();
  if (y.size() != n) return false;
  if (n == 0) return true;
  float* dx = nullptr;
  float* dy = nullptr;
  const size_t bytes = n * sizeof(float);
  bool ok = hipMalloc(&dx, bytes) == hipSuccess && hipMalloc(&dy, bytes) == hipSuccess &&
            hipMemcpy(dx, x.data(), bytes, hipMemcpyHostToDevice) == hipSuccess &&
            hipMemcpy(dy, y.data(), bytes, hipMemcpyHostToDevice) == hipSuccess;
  if (ok) {
    constexpr unsigned block = 256;
    const unsigned grid = static_cast<unsigned>((n + block - 1) / block);
    hipLaunchKernelGGL(saxpy_kernel, dim3(grid), dim3(block), 0, 0, a, dx, dy, n);
    ok = hipGetLastError() == hipSuccess &&
         hipMemcpy(y.data(), dy, bytes, hipMemcpyDeviceToHost) == hipSuccess;
  }
  (void)hipFree(dx);
  (void)hipFree(dy);
  return ok;
}

}  // namespace phc_sample
