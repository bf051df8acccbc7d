// The vendor baseline: cub::DeviceReduce::Sum (two launches: even-share block
// partials, then a single-tile kernel), kept in its own file because CUB is the
// slowest thing in the family to compile.
#include <climits>
#include <cstdint>
#include <cub/device/device_reduce.cuh>

#include "memhier/core/check.hpp"
#include "variants.hpp"

namespace memhier::reduction::detail {

std::size_t cub_sum_temp_bytes(std::size_t n) {
  std::size_t bytes = 0;
  if (n <= static_cast<std::size_t>(INT_MAX))
    MEMHIER_CUDA(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const float*>(nullptr),
                                        static_cast<float*>(nullptr), static_cast<int>(n)));
  else
    MEMHIER_CUDA(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const float*>(nullptr),
                                        static_cast<float*>(nullptr),
                                        static_cast<std::int64_t>(n)));
  return bytes;
}

void cub_sum(void* temp, std::size_t temp_bytes, const float* in, std::size_t n, float* out,
             cudaStream_t s) {
  if (n <= static_cast<std::size_t>(INT_MAX))
    MEMHIER_CUDA(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, static_cast<int>(n), s));
  else
    MEMHIER_CUDA(
        cub::DeviceReduce::Sum(temp, temp_bytes, in, out, static_cast<std::int64_t>(n), s));
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::reduction::detail
