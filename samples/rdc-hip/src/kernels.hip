#include "rdc.h"

__global__ void scale_kernel(float* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = scale_value(data[i]);
}

__global__ void lookup_kernel(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = table_lookup(i) + phc_rdc_counter;
}

void launch_lookup(int* out, int n) {
    hipLaunchKernelGGL(lookup_kernel, dim3(1), dim3(n), 0, 0, out, n);
}
