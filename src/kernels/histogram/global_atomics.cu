// Rung 1: every element is one atomicAdd on the 256 global bins. All SMs contend for 256
// words in L2; degenerate input (one bin) serializes every atomic on a single address.
#include <cuda_runtime.h>

#include "kernels/histogram/common.cuh"
#include "kernels/histogram/variants.hpp"
#include "memhier/core/check.hpp"

namespace memhier::histogram::detail {
namespace {

template <typename T>
__global__ void __launch_bounds__(kScalarThreads)
    global_atomics_kernel(const T* __restrict__ in, std::size_t n,
                          std::uint32_t* __restrict__ bins) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const unsigned b = bin_of(in[i]);
    if (b < kBins) atomicAdd(&bins[b], 1u);
  }
}

template <typename T>
void launch(const T* in, std::size_t n, std::uint32_t* bins, cudaStream_t s) {
  const void* k = reinterpret_cast<const void*>(&global_atomics_kernel<T>);
  const int grid = grid_for(k, kScalarThreads, false, n, kScalarThreads);
  global_atomics_kernel<T><<<grid, kScalarThreads, 0, s>>>(in, n, bins);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace

void launch_global_atomics(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                           cudaStream_t s) {
  launch(in, n, bins, s);
}
void launch_global_atomics(const std::int32_t* in, std::size_t n, std::uint32_t* bins,
                           cudaStream_t s) {
  launch(in, n, bins, s);
}
const void* global_atomics_symbol() {
  return reinterpret_cast<const void*>(&global_atomics_kernel<std::uint8_t>);
}

}  // namespace memhier::histogram::detail
