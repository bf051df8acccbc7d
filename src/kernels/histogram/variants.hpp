// Private to the histogram ladder: one launch function per variant (declared here,
// defined in the variant's .cu), the kernel symbols for the registry, and the split of
// an input into an unaligned head, 16-byte vectors and a tail.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace memhier::histogram::detail {

/// Block sizes (the registry reports occupancy with them).
constexpr int kScalarThreads = 256;  ///< rungs 1-3
constexpr int kLaneThreads = 1024;   ///< the lane-privatized rungs
constexpr int kLaneBlocksPerSm = 1;  ///< their launches' cap (two would fit)
constexpr int kLaneUnroll = 2;       ///< 16-byte vectors per thread per tile

/// An input split for 16-byte loads: `head` elements before the first 16-byte boundary,
/// `nvec` aligned 16-byte vectors, then `ntail` elements.
struct Split {
  std::size_t head = 0, nvec = 0, ntail = 0;
};

/// The split of `n` elements of `elem_bytes` bytes starting at `p` (p aligned to elem_bytes).
inline Split split_for_vectors(const void* p, std::size_t n, std::size_t elem_bytes) {
  Split s;
  const std::size_t mis = (16 - (reinterpret_cast<std::uintptr_t>(p) & 15u)) & 15u;
  s.head = mis / elem_bytes;
  if (s.head > n) s.head = n;
  const std::size_t per_vec = 16 / elem_bytes;
  s.nvec = (n - s.head) / per_vec;
  s.ntail = n - s.head - s.nvec * per_vec;
  return s;
}

/// Grid for a grid-stride kernel: enough blocks to cover `items` at `items_per_block`,
/// at most the resident grid (core::resident_grid: `prefer_shared` sets the largest
/// shared-memory carveout first; at most `max_per_sm` blocks per SM when positive), at
/// least one.
int grid_for(const void* kernel, int block_threads, bool prefer_shared, std::size_t items,
             std::size_t items_per_block, int max_per_sm = 0);

// The rungs (histogram_rungs.inc), each in its own .cu: a launch per input type, counting
// into `bins`, which the caller has zeroed on `stream` (n >= 1), and the uint8 kernel for
// cudaFuncGetAttributes (registers, spills, shared memory).
#define MEMHIER_RUNG(name, launch, symbol, ...)                                            \
  void launch(const std::uint8_t* in, std::size_t n, std::uint32_t* bins, cudaStream_t s); \
  void launch(const std::int32_t* in, std::size_t n, std::uint32_t* bins, cudaStream_t s); \
  const void* symbol();
#define MEMHIER_BEST(...)
#include "memhier/kernels/histogram_rungs.inc"

/// cub::DeviceHistogram::HistogramEven (256 bins, levels [0, 256]): temp bytes, then the run.
std::size_t cub_temp_bytes(const std::uint8_t* in, std::size_t n);
std::size_t cub_temp_bytes(const std::int32_t* in, std::size_t n);
void cub_histogram(void* temp, std::size_t temp_bytes, const std::uint8_t* in, std::size_t n,
                   std::uint32_t* bins, cudaStream_t s);
void cub_histogram(void* temp, std::size_t temp_bytes, const std::int32_t* in, std::size_t n,
                   std::uint32_t* bins, cudaStream_t s);

}  // namespace memhier::histogram::detail
