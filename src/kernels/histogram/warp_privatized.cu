// Rung 3: each warp counts into its own 256-bin shared copy, so warps of a block never
// contend for a word; the block sums its copies per bin and adds them to the global bins
// with at most 256 atomics. Equal bins inside one warp still hit one word.
#include <cuda_runtime.h>

#include "kernels/histogram/common.cuh"
#include "kernels/histogram/variants.hpp"
#include "memhier/core/check.hpp"

namespace memhier::histogram::detail {
namespace {

constexpr unsigned kWarps = kScalarThreads / 32;

template <typename T>
__global__ void __launch_bounds__(kScalarThreads)
    warp_privatized_kernel(const T* __restrict__ in, std::size_t n,
                           std::uint32_t* __restrict__ bins) {
  __shared__ std::uint32_t h[kWarps * kBins];
  for (unsigned i = threadIdx.x; i < kWarps * kBins; i += blockDim.x) h[i] = 0;
  __syncthreads();
  const unsigned warp = threadIdx.x / 32;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const unsigned b = bin_of(in[i]);
    if (b < kBins) atomicAdd(&h[warp_copy_word(warp, b)], 1u);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) {
    std::uint32_t sum = 0;
#pragma unroll
    for (unsigned w = 0; w < kWarps; ++w) sum += h[warp_copy_word(w, b)];
    if (sum) atomicAdd(&bins[b], sum);
  }
}

template <typename T>
void launch(const T* in, std::size_t n, std::uint32_t* bins, cudaStream_t s) {
  const void* k = reinterpret_cast<const void*>(&warp_privatized_kernel<T>);
  // At least 16 elements per thread, so the 8-copy setup and merge stay small.
  const int grid = grid_for(k, kScalarThreads, false, n, std::size_t(kScalarThreads) * 16);
  warp_privatized_kernel<T><<<grid, kScalarThreads, 0, s>>>(in, n, bins);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace

void launch_warp_privatized(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                            cudaStream_t s) {
  launch(in, n, bins, s);
}
void launch_warp_privatized(const std::int32_t* in, std::size_t n, std::uint32_t* bins,
                            cudaStream_t s) {
  launch(in, n, bins, s);
}
const void* warp_privatized_symbol() {
  return reinterpret_cast<const void*>(&warp_privatized_kernel<std::uint8_t>);
}

}  // namespace memhier::histogram::detail
