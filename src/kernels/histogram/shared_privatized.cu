// Rung 2: each block counts into its own 256-bin shared histogram (shared atomics, on
// chip), then adds it to the global bins with at most 256 atomics. Global contention
// drops from one atomic per element to 256 per block; equal bins in a warp still
// serialize on one shared word.
#include <cuda_runtime.h>

#include "kernels/histogram/common.cuh"
#include "kernels/histogram/variants.hpp"
#include "memhier/core/check.hpp"

namespace memhier::histogram::detail {
namespace {

template <typename T>
__global__ void __launch_bounds__(kScalarThreads)
    shared_privatized_kernel(const T* __restrict__ in, std::size_t n,
                             std::uint32_t* __restrict__ bins) {
  __shared__ std::uint32_t h[kBins];
  for (unsigned i = threadIdx.x; i < kBins; i += blockDim.x) h[i] = 0;
  __syncthreads();
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const unsigned b = bin_of(in[i]);
    if (b < kBins) atomicAdd(&h[b], 1u);
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < kBins; i += blockDim.x)
    if (h[i]) atomicAdd(&bins[i], h[i]);
}

template <typename T>
void launch(const T* in, std::size_t n, std::uint32_t* bins, cudaStream_t s) {
  const void* k = reinterpret_cast<const void*>(&shared_privatized_kernel<T>);
  // At least 16 elements per thread, so the 256-bin setup and merge stay small.
  const int grid = grid_for(k, kScalarThreads, false, n, std::size_t(kScalarThreads) * 16);
  shared_privatized_kernel<T><<<grid, kScalarThreads, 0, s>>>(in, n, bins);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace

void launch_shared_privatized(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                              cudaStream_t s) {
  launch(in, n, bins, s);
}
void launch_shared_privatized(const std::int32_t* in, std::size_t n, std::uint32_t* bins,
                              cudaStream_t s) {
  launch(in, n, bins, s);
}
const void* shared_privatized_symbol() {
  return reinterpret_cast<const void*>(&shared_privatized_kernel<std::uint8_t>);
}

}  // namespace memhier::histogram::detail
