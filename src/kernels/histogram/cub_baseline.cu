// The vendor baseline: cub::DeviceHistogram::HistogramEven with 257 levels evenly over
// [0, 256], i.e. 256 unit-wide bins; samples outside [0, 256) are skipped.
#include <cub/device/device_histogram.cuh>

#include "kernels/histogram/variants.hpp"
#include "memhier/core/check.hpp"

namespace memhier::histogram::detail {
namespace {

template <typename T>
std::size_t temp_bytes(const T* in, std::size_t n) {
  std::size_t bytes = 0;
  MEMHIER_CUDA(cub::DeviceHistogram::HistogramEven(nullptr, bytes, in,
                                                   static_cast<unsigned int*>(nullptr), 257, 0, 256,
                                                   static_cast<std::int64_t>(n)));
  return bytes;
}

template <typename T>
void run(void* temp, std::size_t bytes, const T* in, std::size_t n, std::uint32_t* bins,
         cudaStream_t s) {
  std::size_t b = bytes;
  MEMHIER_CUDA(cub::DeviceHistogram::HistogramEven(temp, b, in, static_cast<unsigned int*>(bins),
                                                   257, 0, 256, static_cast<std::int64_t>(n), s));
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace

std::size_t cub_temp_bytes(const std::uint8_t* in, std::size_t n) {
  return temp_bytes(in, n);
}
std::size_t cub_temp_bytes(const std::int32_t* in, std::size_t n) {
  return temp_bytes(in, n);
}
void cub_histogram(void* temp, std::size_t temp_bytes, const std::uint8_t* in, std::size_t n,
                   std::uint32_t* bins, cudaStream_t s) {
  run(temp, temp_bytes, in, n, bins, s);
}
void cub_histogram(void* temp, std::size_t temp_bytes, const std::int32_t* in, std::size_t n,
                   std::uint32_t* bins, cudaStream_t s) {
  run(temp, temp_bytes, in, n, bins, s);
}

}  // namespace memhier::histogram::detail
