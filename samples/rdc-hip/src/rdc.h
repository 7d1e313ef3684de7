// Device functions shared across translation units (needs -fgpu-rdc).
#pragma once
#include <hip/hip_runtime.h>

__device__ float scale_value(float x);
__device__ int table_lookup(int i);
extern __device__ int phc_rdc_counter;

__global__ void scale_kernel(float* data, int n);
void launch_lookup(int* out, int n);

// main.hip launches one kernel defined elsewhere and kernels.hip the other:
// clang 15 and 19 order the kernels a file launches without defining them by
// pointer value, so a file launching two would compile differently from run to
// run (the driver's own compile too), and the sample's objects could not be
// compared byte for byte with the driver's.
