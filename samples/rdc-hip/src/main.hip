#include "rdc.h"
#include <cstdio>

int main() {
    const int n = 64;
    float* data = nullptr;
    int* out = nullptr;
    if (hipMalloc(&data, n * sizeof(float)) != hipSuccess ||
        hipMalloc(&out, n * sizeof(int)) != hipSuccess) {
        std::printf("no GPU: nothing to run\n");
        return 0;
    }
    hipLaunchKernelGGL(scale_kernel, dim3(1), dim3(n), 0, 0, data, n);
    launch_lookup(out, n);
    (void)hipDeviceSynchronize();
    (void)hipFree(data);
    (void)hipFree(out);
    return 0;
}
