// phc_sample: runs the kernels if a GPU is present; otherwise reports that.
#include <cstdio>
#include <numeric>
#include <vector>

#include "phc_sample.hpp"

int main() {
  using namespace phc_sample;
  const int devices = device_count();
  std::printf("HIP devices: %d\n", devices);
  if (devices == 0) {
    std::printf("no GPU; nothing to run\n");
    return 0;
  }
  std::vector<float> x(1000), y(1000, 1.0f);
  std::iota(x.begin(), x.end(), 0.0f);
  std::printf("%s\n", describe_status(saxpy(2.0f, x, y), "saxpy").c_str());
  double ss = 0;
  std::printf("%s (%.0f)\n", describe_status(sum_of_squares(x, ss), "sum_of_squares").c_str(), ss);
#if defined(PHC_SAMPLE_HEAVY)
  std::vector<unsigned int> keys(4096);
  for (unsigned i = 0; i < keys.size(); ++i) keys[i] = (i * 2654435761u) >> 8;
  unsigned long long sum = 0;
  std::printf("%s (%llu)\n", describe_status(sort_keys(keys, sum), "sort_keys").c_str(), sum);
  std::vector<float> fkeys(x.rbegin(), x.rend());
  std::vector<unsigned int> vals(fkeys.size());
  std::iota(vals.begin(), vals.end(), 0u);
  std::printf("%s\n", describe_status(sort_by_key(fkeys, vals), "sort_by_key").c_str());
#endif
  return 0;
}
