// String literals of every kind, where the host compile embeds the device code:
// empty ones (clang 15 shared "" with an empty placeholder), duplicates on host
// and device, one equal to the bundle's magic text, wide and UTF ones, __FILE__
// and __func__, in static arrays, templates and the header.
#include "fidelity.h"
#include <cstdio>
#include <hip/hip_runtime.h>

static const char* const kTable[] = {"", "", "a", "__CLANG_OFFLOAD_BUNDLE__", "\0hidden", "dup"};
static const char kArray[] = "";
static const char kMagic[] = "__CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx906";
template <typename T> const char* type_text() { return "template"; }
template <> const char* type_text<int>() { return ""; }

__global__ void strings_kernel(int* out) {
    printf("dup\n");
    printf("%s|%s\n", "", "__CLANG_OFFLOAD_BUNDLE__");
    out[threadIdx.x] = static_cast<int>(sizeof(__FILE__) + sizeof(__func__));
}

int strings_main() {
    int n = std::printf("[%s]\n", "");
    n += std::printf("[%s][%s][%s]\n", kTable[0], kTable[3], kTable[5]);
    n += std::printf("%s %s %s %s\n", __FILE__, __func__, type_text<int>(), type_text<float>());
    n += std::printf("%ls%s%s\n", L"", reinterpret_cast<const char*>(u8""), kMagic);
    const char16_t* u = u"";
    const char32_t* U = U"";
    n += (u[0] == 0) + (U[0] == 0) + static_cast<int>(sizeof(kArray));
    n += std::printf("%s%s%s\n", header_text(), kHeaderEmpty, header_template<char>());
    int* out = nullptr;
    hipLaunchKernelGGL(strings_kernel, dim3(1), dim3(1), 0, 0, out);
    return n;
}
