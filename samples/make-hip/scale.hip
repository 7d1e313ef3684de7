#include "common.h"
#include "kernels.h"

__global__ void scale_kernel(float s, float* x, int n) {
    int i = global_index();
    if (i < n) x[i] *= s;
}

void scale(float s, float* x, int n) {
    hipLaunchKernelGGL(scale_kernel, dim3(blocks_for(n)), dim3(kBlock), 0, 0, s, x, n);
}
