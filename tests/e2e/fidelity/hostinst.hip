// Kernel templates that only host code instantiates, a lambda among them.
// With -fgpu-rdc, clang 15 and 19 list such kernels in their device code in
// an order that depends on memory addresses: two runs of the driver itself
// can write different bytes (phc-ninja check says so: UNSTABLE).
#include "fidelity.h"
#include <hip/hip_runtime.h>

__constant__ int inst_constant = 2;
template <typename T> __global__ void tmpl_kernel(T* p, T v) { p[threadIdx.x] = v + T(inst_constant); }
template <typename F> __global__ void lambda_kernel(F f, int* p) { p[0] = f(); }

int hostinst_main() {
    int* p = nullptr;
    hipLaunchKernelGGL(tmpl_kernel<float>, dim3(1), dim3(1), 0, 0, static_cast<float*>(nullptr), 1.0f);
    hipLaunchKernelGGL(tmpl_kernel<int>, dim3(1), dim3(1), 0, 0, p, 2);
    auto f = [] __device__() { return 3; };
    hipLaunchKernelGGL(lambda_kernel<decltype(f)>, dim3(1), dim3(1), 0, 0, f, p);
    return fidelity_shared(header_template<int>());
}
