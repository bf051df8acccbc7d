#include <cuda_runtime.h>

#include "memhier/core/check.hpp"
#include "memhier/core/hash.cuh"
#include "memhier/core/random.hpp"

namespace memhier::core {
namespace {


__global__ void fill_float_kernel(float* d, std::size_t n, std::uint32_t seed, float lo, float span) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const std::uint32_t h = hash32(static_cast<std::uint32_t>(i) ^ hash32(seed + static_cast<std::uint32_t>(i >> 32)));
    d[i] = lo + span * ((h >> 8) * (1.0f / 16777216.0f));
  }
}

__global__ void fill_bits_kernel(std::uint32_t* d, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    d[i] = hash32(static_cast<std::uint32_t>(i) ^ hash32(seed + static_cast<std::uint32_t>(i >> 32)));
}

}  // namespace

void fill_random(float* data, std::size_t n, std::uint32_t seed, float lo, float hi, cudaStream_t s) {
  if (!n) return;
  fill_float_kernel<<<1024, 256, 0, s>>>(data, n, seed, lo, hi - lo);
  MEMHIER_CHECK_LAUNCH();
}

void fill_random_bits(std::uint32_t* data, std::size_t n, std::uint32_t seed, cudaStream_t s) {
  if (!n) return;
  fill_bits_kernel<<<1024, 256, 0, s>>>(data, n, seed);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::core
