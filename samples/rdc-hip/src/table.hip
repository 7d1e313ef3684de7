#include "rdc.h"

__constant__ int phc_rdc_table[8] = {1, 1, 2, 3, 5, 8, 13, 21};

__device__ int table_lookup(int i) { return phc_rdc_table[i & 7]; }
