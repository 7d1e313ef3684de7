// Plain C++ (compiled by the CXX compiler) that uses the HIP runtime API.
#include <hip/hip_runtime_api.h>

#include <string>

#include "phc_sample.hpp"

namespace phc_sample {

int device_count() {
  int n = 0;
  if (hipGetDeviceCount(&n) != hipSuccess) return 0;
  return n;
}

std::string describe_status(bool ok, const char* what) {
  std::string s(what);
  s += ok ? ": ok" : ": failed (no usable GPU?)";
  return s;
}

}  // namespace phc_sample
