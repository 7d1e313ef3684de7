// Host entry points of the sample's kernels (one per .hip file).
#pragma once

void saxpy(float a, const float* x, float* y, int n);
void scale(float s, float* x, int n);
float sum(const float* x, int n);
