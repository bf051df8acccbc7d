// Helpers every probe uses: grid sizing, random data, rings for pointer chasing,
// claim rows. One copy here so the probes stay short.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

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

/// Bytes over milliseconds, in GB/s (10^9 bytes per second).
inline double gbps(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e6) : 0.0; }

using core::fill_random;
using core::fill_random_bits;

/// A random cyclic permutation over `slots` slots, each `stride_bytes` apart: element
/// i (at byte i*stride) holds the byte offset of the next slot. Host-built, deterministic.
std::vector<std::uint32_t> make_ring(std::size_t slots, std::size_t stride_bytes, std::uint32_t seed);

/// One row of a probe's "claim against this card" table.
struct ClaimRow {
  std::string source;    ///< "001 §Memory spaces"
  std::string claim;     ///< what the seed says
  std::string measured;  ///< what this card did, with units
  std::string verdict;   ///< "reproduced", "refuted", "differs", "not measurable here: why"
};

/// The standard table of claims against measurements (id "<probe>-claims").
report::Table claims_table(const std::string& probe_name, const std::vector<ClaimRow>& rows);

}  // namespace memhier::probe
