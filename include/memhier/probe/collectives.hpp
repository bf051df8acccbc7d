// Collectives through NCCL as plain numbers: all-reduce, all-gather, reduce-scatter and
// broadcast over every visible GPU in one process (ncclCommInitAll), by size, with
// nccl-tests' algorithm and bus bandwidth, every result checked exactly. NVLink multicast
// (NVLS) stays off: NCCL_NVLS_ENABLE=0 is set before the communicators are made.
// measure_collectives runs the GPUs; present_collectives makes the section (no CUDA).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

enum class Collective { all_reduce, all_gather, reduce_scatter, broadcast };
inline constexpr Collective kAllCollectives[] = {Collective::all_reduce, Collective::all_gather,
                                                 Collective::reduce_scatter, Collective::broadcast};
const char* to_string(Collective c);

/// nccl-tests' bus bandwidth over algorithm bandwidth for `c` on `ranks` ranks:
/// 2(n-1)/n for all-reduce, (n-1)/n for all-gather and reduce-scatter, 1 for broadcast.
double bus_factor(Collective c, int ranks);

/// Elements of one rank's send buffer for a collective of `bytes` in nccl-tests' sense (the
/// whole vector: all-reduce's and broadcast's buffer, all-gather's output, reduce-scatter's
/// input) of `elem_bytes` elements over `ranks`; 0 when the size cannot be split that way.
std::uint64_t send_count(Collective c, std::uint64_t bytes, int ranks, std::uint64_t elem_bytes);

/// The sizes swept: 8 B by factors of 4 (16 with `quick`) up to `max_bytes`, and max_bytes.
std::vector<std::uint64_t> collective_sizes(std::uint64_t max_bytes, bool quick);

/// Why collectives cannot run here, or "": memhier built without NCCL, or fewer than two GPUs.
std::string collectives_unavailable(int visible_gpus, bool nccl_built);

/// One collective at one size.
struct CollectiveRun {
  Collective op = Collective::all_reduce;
  std::uint64_t bytes = 0;  ///< nccl-tests' size (float elements x 4)
  int iterations = 0;       ///< back to back per sample
  double us = NAN;          ///< median time per collective
  double algbw_gbps = NAN;  ///< bytes / time
  double busbw_gbps = NAN;  ///< algbw x bus_factor
  std::uint64_t wrong = 0;  ///< output elements that differ from the exact sum (all ranks)
};

/// The "collectives" probe.
struct CollectivesResult {
  int ranks = 0;
  int nccl_version = 0;  ///< ncclGetVersion: major*10000 + minor*100 + patch
  std::string nvls_was;  ///< NCCL_NVLS_ENABLE as the user had it ("" unset); memhier sets 0
  std::vector<std::string> names;
  std::vector<CollectiveRun> runs;
};

/// Whether this build links NCCL.
bool nccl_built();

/// Every collective at every size over all visible GPUs; throws Unavailable without NCCL or
/// with fewer than two GPUs.
CollectivesResult measure_collectives(Context& ctx);

/// The same over the first `ranks` GPUs, one rank allowed (the GPU tests check the results'
/// verification on a one-GPU machine); throws Unavailable without NCCL.
CollectivesResult measure_collectives_on(Context& ctx, int ranks);

/// The "collectives" section (by size per collective, the bus-bandwidth chart).
Result present_collectives(const CollectivesResult& m);

}  // namespace memhier::probe
