// CUDA helpers every probe's measurement uses: grid sizing, free memory, random data,
// rings for pointer chasing, shared-memory loads; the host-only ones are in common.hpp.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/random.hpp"
#include "memhier/core/timing.hpp"
#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// Blocks that fill every SM for `kernel` at `block` threads and `smem` dynamic bytes.
template <typename Kernel>
int full_grid(Kernel kernel, int block, const Context& ctx, std::size_t smem = 0) {
  int per_sm = 0;
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, smem));
  return (per_sm > 0 ? per_sm : 1) * ctx.device.sm_count;
}

/// Free device memory now, in bytes: what a probe may size its buffers from.
std::size_t free_device_bytes();

using core::fill_random;
using core::fill_random_bits;

/// A random cyclic permutation over `slots` slots, each `stride_bytes` apart: element
/// i (at byte i*stride) holds the byte offset of the next slot. Host-built, deterministic.
std::vector<std::uint32_t> make_ring(std::size_t slots, std::size_t stride_bytes,
                                     std::uint32_t seed);

/// Passes that make one launch of `launch(stream, passes)` last about `target_ms`, so
/// launch overhead stays small; `name` labels the calibration runs.
int calibrate_passes(const std::string& name, const std::function<void(cudaStream_t, int)>& launch,
                     double target_ms);

/// The repetitions every probe's timings use (fewer with --quick).
core::TimingOptions probe_timing(const Context& ctx, const std::string& name);

/// `o` cut to at most one warm-up and one timed repetition when `ctx.smallest`, else `o`.
core::TimingOptions fewest_if_smallest(const Context& ctx, core::TimingOptions o);

/// A shared-memory load of W bytes (4, 8, 16) that ptxas may neither merge nor hoist
/// (ld.volatile), folded to one word so the compiler keeps it.
template <int W>
__device__ __forceinline__ std::uint32_t lds_fold(std::uint32_t addr);

template <>
__device__ __forceinline__ std::uint32_t lds_fold<4>(std::uint32_t addr) {
  std::uint32_t a;
  asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(a) : "r"(addr) : "memory");
  return a;
}
template <>
__device__ __forceinline__ std::uint32_t lds_fold<8>(std::uint32_t addr) {
  std::uint32_t a, b;
  asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];"
               : "=r"(a), "=r"(b)
               : "r"(addr)
               : "memory");
  return a ^ b;
}
template <>
__device__ __forceinline__ std::uint32_t lds_fold<16>(std::uint32_t addr) {
  std::uint32_t a, b, c, d;
  asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "r"(addr)
               : "memory");
  return a ^ b ^ c ^ d;
}

}  // namespace memhier::probe
