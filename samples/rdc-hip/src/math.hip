#include "rdc.h"
#include "tuning.h"

__device__ int phc_rdc_counter;

__device__ float scale_value(float x) {
    atomicAdd(&phc_rdc_counter, 1);
    return x * PHC_RDC_SCALE + 1.0f;
}
