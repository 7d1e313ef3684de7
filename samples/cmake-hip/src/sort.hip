// The compile-heavy translation unit: rocPRIM's device radix sort plus a
// block-level reduction, instantiated for one key type.
#include <hip/hip_runtime.h>

#include <rocprim/rocprim.hpp>

#include <type_traits>

#include "phc_sample.hpp"

namespace phc_sample {
namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kItems = 4;

__global__ void block_sum_kernel(const unsigned int* keys, size_t n,
                                 unsigned long long* out) {
  using reduce_t = rocprim::block_reduce<unsigned long long, kBlock>;
  __shared__ typename reduce_t::storage_type storage;
  unsigned long long vals[kItems];
  const size_t base = blockIdx.x * static_cast<size_t>(kBlock * kItems);
  for (unsigned k = 0; k < kItems; ++k) {
    const size_t i = base + k * kBlock + threadIdx.x;
    vals[k] = i < n ? keys[i] : 0ull;
  }
  unsigned long long result = 0;
  reduce_t().reduce(vals, result, storage, rocprim::plus<unsigned long long>());
  if (threadIdx.x == 0) atomicAdd(out, result);
}

// Sorts keys (and values, if given) on the device. Each instantiation pulls in
// rocPRIM's whole radix-sort machinery for that type; that is the point here.
template <class Key, class Value = rocprim::empty_type>
bool device_radix_sort(Key* keys, Value* values, size_t n) {
  Key* kout = nullptr;
  Value* vout = nullptr;
  void* tmp = nullptr;
  size_t tmp_bytes = 0;
  constexpr bool pairs = !std::is_same<Value, rocprim::empty_type>::value;
  bool ok = hipMalloc(&kout, n * sizeof(Key)) == hipSuccess;
  if constexpr (pairs) {
    ok = ok && hipMalloc(&vout, n * sizeof(Value)) == hipSuccess &&
         rocprim::radix_sort_pairs(nullptr, tmp_bytes, keys, kout, values, vout, n) == hipSuccess &&
         hipMalloc(&tmp, tmp_bytes) == hipSuccess &&
         rocprim::radix_sort_pairs(tmp, tmp_bytes, keys, kout, values, vout, n) == hipSuccess &&
         hipMemcpy(values, vout, n * sizeof(Value), hipMemcpyDeviceToDevice) == hipSuccess;
  } else {
    ok = ok && rocprim::radix_sort_keys(nullptr, tmp_bytes, keys, kout, n) == hipSuccess &&
         hipMalloc(&tmp, tmp_bytes) == hipSuccess &&
         rocprim::radix_sort_keys(tmp, tmp_bytes, keys, kout, n) == hipSuccess;
  }
  ok = ok && hipMemcpy(keys, kout, n * sizeof(Key), hipMemcpyDeviceToDevice) == hipSuccess;
  (void)hipFree(tmp);
  (void)hipFree(kout);
  (void)hipFree(vout);
  return ok;
}

}  // namespace

bool sort_by_key(std::vector<float>& keys, std::vector<unsigned int>& values) {
  const size_t n = keys.size();
  if (values.size() != n) return false;
  if (n == 0) return true;
  float* dk = nullptr;
  unsigned int* dv = nullptr;
  bool ok = hipMalloc(&dk, n * sizeof(float)) == hipSuccess &&
            hipMalloc(&dv, n * sizeof(unsigned int)) == hipSuccess &&
            hipMemcpy(dk, keys.data(), n * sizeof(float), hipMemcpyHostToDevice) == hipSuccess &&
            hipMemcpy(dv, values.data(), n * sizeof(unsigned int), hipMemcpyHostToDevice) ==
                hipSuccess &&
            device_radix_sort(dk, dv, n) &&
            hipMemcpy(keys.data(), dk, n * sizeof(float), hipMemcpyDeviceToHost) == hipSuccess &&
            hipMemcpy(values.data(), dv, n * sizeof(unsigned int), hipMemcpyDeviceToHost) ==
                hipSuccess;
  (void)hipFree(dk);
  (void)hipFree(dv);
  return ok;
}

bool sort_keys(std::vector<unsigned int>& keys, unsigned long long& sum) {
  sum = 0;
  const size_t n = keys.size();
  if (n == 0) return true;
  unsigned int* din = nullptr;
  unsigned int* dout = nullptr;
  unsigned long long* dsum = nullptr;
  void* tmp = nullptr;
  size_t tmp_bytes = 0;
  const size_t bytes = n * sizeof(unsigned int);
  bool ok = hipMalloc(&din, bytes) == hipSuccess && hipMalloc(&dout, bytes) == hipSuccess &&
            hipMalloc(&dsum, sizeof(*dsum)) == hipSuccess &&
            hipMemset(dsum, 0, sizeof(*dsum)) == hipSuccess &&
            hipMemcpy(din, keys.data(), bytes, hipMemcpyHostToDevice) == hipSuccess;
  // First call sizes the temporary storage, second call sorts.
  ok = ok && rocprim::radix_sort_keys(nullptr, tmp_bytes, din, dout, n) == hipSuccess &&
       hipMalloc(&tmp, tmp_bytes) == hipSuccess &&
       rocprim::radix_sort_keys(tmp, tmp_bytes, din, dout, n) == hipSuccess;
  if (ok) {
    const unsigned grid = static_cast<unsigned>((n + kBlock * kItems - 1) / (kBlock * kItems));
    hipLaunchKernelGGL(block_sum_kernel, dim3(grid), dim3(kBlock), 0, 0, dout, n, dsum);
    ok = hipGetLastError() == hipSuccess &&
         hipMemcpy(keys.data(), dout, bytes, hipMemcpyDeviceToHost) == hipSuccess &&
         hipMemcpy(&sum, dsum, sizeof(sum), hipMemcpyDeviceToHost) == hipSuccess;
  }
  (void)hipFree(tmp);
  (void)hipFree(din);
  (void)hipFree(dout);
  (void)hipFree(dsum);
  return ok;
}

}  // namespace phc_sample
