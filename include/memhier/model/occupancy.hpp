// Occupancy: how many blocks of a kernel fit on one SM, and what stops more.
#pragma once

#include <string>

#include "memhier/model/arch.hpp"

namespace memhier::model {

/// What a kernel asks of an SM.
struct LaunchResources {
  int block_threads = 256;
  int regs_per_thread = 32;
  int static_smem_bytes = 0;
  int dynamic_smem_bytes = 0;
  /// cudaFuncAttributePreferredSharedMemoryCarveout: -1 = default (driver picks the
  /// largest carveout the launch needs), otherwise 0..100 percent of the maximum.
  int carveout_percent = -1;
  /// The kernel uses block-wide barriers (__syncthreads). Kept for the limiter report;
  /// on every architecture in the table barriers never limit below the block limit.
  bool uses_barriers = true;
};

/// What stops more warps from being resident; none at 100 % occupancy, where nothing does.
enum class Limiter { none, warps, blocks, registers, shared_memory, barriers };

/// "none", "warps", "blocks", "registers", "shared_memory", "barriers".
const char* to_string(Limiter l);

struct OccupancyResult {
  int blocks_per_sm = 0;
  int active_warps = 0;        ///< blocks_per_sm * warps per block
  int max_warps = 0;           ///< the SM's warp limit
  double occupancy = 0.0;      ///< active_warps / max_warps, 0..1
  /// The resource whose bound equals blocks_per_sm, or none when every warp slot is
  /// filled (nothing limits). cuda_occupancy.h reports every tied resource as a bit set; we
  /// name one, preferring what the kernel itself controls: registers, then shared_memory,
  /// then warps, then blocks, then barriers.
  Limiter limiter = Limiter::none;

  /// The bound each resource sets on its own; INT_MAX when the kernel uses none of it
  /// (0 registers, or no shared memory at all on 7.x), as in cuda_occupancy.h.
  int blocks_by_warps = 0;
  int blocks_by_blocks = 0;
  int blocks_by_registers = 0;
  int blocks_by_smem = 0;

  int regs_per_block = 0;      ///< after allocation granularity
  int smem_per_block = 0;      ///< static + dynamic + reserved, after granularity
  int smem_carveout_bytes = 0; ///< the shared-memory size per SM the occupancy assumes
};

/// Error in the request (impossible block size, registers above the limit, shared
/// memory above the opt-in maximum). The message is one sentence for the user.
struct OccupancyError {
  std::string message;
};

/// Computes occupancy, or throws OccupancyError.
OccupancyResult occupancy(const ArchSpec& arch, const LaunchResources& r);

/// The smallest single change that raises occupancy, as one sentence; empty when
/// occupancy is 100%. It addresses the limiter first: the most registers per thread
/// or the most shared memory per block that fits one more block (or, for a carveout
/// set below 100%, the smallest carveout that does), and for warps or blocks the
/// nearest block size (a multiple of 32) with more resident warps. When tied limits
/// make every single change useless it names the joint change instead.
std::string occupancy_advice(const ArchSpec& arch, const LaunchResources& r,
                             const OccupancyResult& current);

}  // namespace memhier::model
