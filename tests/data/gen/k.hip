#include <hip/hip_runtime.h>
__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }
