#include "common.h"
#include "kernels.h"

__global__ void saxpy_kernel(float a, const float* x, float* y, int n) {
    int i = global_index();
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(float a, const float* x, float* y, int n) {
    hipLaunchKernelGGL(saxpy_kernel, dim3(blocks_for(n)), dim3(kBlock), 0, 0, a, x, y, n);
}
