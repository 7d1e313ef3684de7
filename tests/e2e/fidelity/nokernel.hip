// No kernel and no device variable: the driver's object has no .hip_fatbin.
#include "fidelity.h"
#include <hip/hip_runtime.h>
int nokernel_value() { return fidelity_shared("") + 1; }
const char* nokernel_text() { return ""; }
