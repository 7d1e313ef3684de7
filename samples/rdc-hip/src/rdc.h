// Device functions shared across translation units (needs -fgpu-rdc).
#pragma once
#include <hip/hip_runtime.h>

__device__ float scale_value(float x);
__device__ int table_lookup(int i);
extern __device__ int phc_rdc_counter;

__global__ void scale_kernel(float* data, int n);
__global__ void lookup_kernel(int* out, int n);
