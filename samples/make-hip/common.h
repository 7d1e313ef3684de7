// A tiny device helper shared by every kernel: editing it must rebuild them
// all, which is what the depfiles (-MD -MP) tell make and ninja.
#pragma once

#include <hip/hip_runtime.h>

constexpr int kBlock = 256;

__device__ inline int global_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

inline int blocks_for(int n) { return (n + kBlock - 1) / kBlock; }
