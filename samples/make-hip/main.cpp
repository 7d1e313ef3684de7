// Plain C++ (compiled by the host compiler, no HIP headers): references every
// kernel's host entry so the link proves they are all there. The build machine
// has no GPU; the kernels only run when an argument is given.
#include "kernels.h"

#include <cstdio>

int main(int argc, char**) {
    if (argc > 1) {
        saxpy(2.0f, nullptr, nullptr, 0);
        scale(0.5f, nullptr, 0);
        std::printf("sum = %f\n", static_cast<double>(sum(nullptr, 0)));
    }
    std::printf("make-hip sample: saxpy, scale and sum linked\n");
    return 0;
}
