// A device variable and no kernel: the object registers it, so it has device code.
#include <hip/hip_runtime.h>
__device__ int devvar_only = 3;
const char* devvar_text() { return ""; }
