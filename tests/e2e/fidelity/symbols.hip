// Symbols the split's host and device halves must agree on: device, constant
// and managed variables used from the host, static and inline variables,
// kernels in an anonymous namespace, extern "C", weak and used symbols,
// device printf.
#include "fidelity.h"
#include <cstdio>
#include <hip/hip_runtime.h>

__constant__ int sym_constant[4] = {1, 2, 3, 4};
__attribute__((managed)) __device__ int sym_managed = 5;
__device__ int sym_device;
static __device__ int sym_static_device;
namespace {
__global__ void anon_kernel(int* p) { p[0] = sym_static_device + sym_device; }
} // namespace
extern "C" __global__ void c_kernel(int* p) {
    p[0] = sym_managed;
    printf("device %d %s\n", p[0], "");
}
__attribute__((weak)) __global__ void weak_kernel(int* p) { p[0] = 7; }
[[gnu::used]] static int used_host_value = 11;
[[gnu::used]] __device__ int used_device_value = 12;
inline int inline_host_counter = 0;
static int static_host_counter = 0;

int symbols_main() {
    int h[4] = {4, 3, 2, 1};
    (void)hipMemcpyToSymbol(HIP_SYMBOL(sym_constant), h, sizeof h);
    int* p = nullptr;
    hipLaunchKernelGGL(anon_kernel, dim3(1), dim3(1), 0, 0, p);
    hipLaunchKernelGGL(c_kernel, dim3(1), dim3(1), 0, 0, p);
    hipLaunchKernelGGL(weak_kernel, dim3(1), dim3(1), 0, 0, p);
    std::printf("%s%d\n", "", sym_managed);
    return ++inline_host_counter + ++static_host_counter + used_host_value + fidelity_shared("");
}
