// Host-side API of the phc_sample kernels library.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace phc_sample {

// y = a * x + y on the device. Returns false if a HIP call failed.
bool saxpy(float a, const std::vector<float>& x, std::vector<float>& y);

// Sum of squares of x, computed on the device.
bool sum_of_squares(const std::vector<float>& x, double& out);

#if defined(PHC_SAMPLE_HEAVY)
// Sorts keys on the device with rocPRIM and returns the block-reduced sum.
bool sort_keys(std::vector<unsigned int>& keys, unsigned long long& sum);
// Sorts (key, value) pairs by key on the device with rocPRIM.
bool sort_by_key(std::vector<float>& keys, std::vector<unsigned int>& values);
#endif

// Host utilities (plain C++ plus the HIP runtime API).
int device_count();
std::string describe_status(bool ok, const char* what);

}  // namespace phc_sample
