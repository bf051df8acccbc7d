// The all-reduce ladder as plain numbers: NCCL (the vendor line) against two kernels of our
// own that move the data over NVLink P2P themselves: one-shot (every rank reads every peer's
// whole vector and sums it) and two-shot (each rank sums its slice from every peer, then
// writes the sum into every peer's output: a reduce-scatter and an all-gather in one
// kernel). fp32 and bf16 sums over every visible GPU in one process, by size, paired against
// NCCL round by round, every output checked exactly. measure_allreduce runs the GPUs;
// present_allreduce makes the section (no CUDA).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// The rungs, in ladder order.
enum class AllReduceRung { nccl, one_shot, two_shot };
inline constexpr AllReduceRung kAllReduceRungs[] = {AllReduceRung::nccl, AllReduceRung::one_shot,
                                                    AllReduceRung::two_shot};
const char* to_string(AllReduceRung r);
/// One line: what the rung does and what it costs.
const char* technique(AllReduceRung r);

/// The element type summed.
enum class ReduceType { fp32, bf16 };
inline constexpr ReduceType kReduceTypes[] = {ReduceType::fp32, ReduceType::bf16};
const char* to_string(ReduceType t);
inline std::uint64_t elem_bytes(ReduceType t) {
  return t == ReduceType::fp32 ? 4 : 2;
}

/// One rung at one size and type.
struct AllReduceRun {
  ReduceType type = ReduceType::fp32;
  AllReduceRung rung = AllReduceRung::nccl;
  std::uint64_t bytes = 0;  ///< one rank's vector (nccl-tests' size)
  int iterations = 0;       ///< back to back per sample
  double us = NAN;          ///< median time per all-reduce
  double busbw_gbps = NAN;  ///< bytes / time x 2(n-1)/n (nccl-tests' bus bandwidth)
  /// Median over paired rounds of NCCL's time over this rung's (> 1: faster than NCCL);
  /// 1 for NCCL itself.
  double speedup = NAN;
  std::uint64_t wrong = 0;   ///< output elements, over every rank, that differ from the sum
  std::string not_measured;  ///< why there is no figure ("" when measured)
};

/// The "allreduce" probe.
struct AllReduceResult {
  int ranks = 0;
  int nccl_version = 0;
  int blocks = 0;  ///< the P2P kernels' largest grid per GPU
  std::vector<std::string> names;
  std::vector<AllReduceRun> runs;
};

/// The P2P kernels' grid for `vectors` 16-byte vectors per rank on a GPU of `sms` SMs: one
/// vector per thread of 512-thread blocks up to one block per SM, so every block of every
/// rank is resident at once (the kernels wait on each other's blocks).
int allreduce_blocks(std::uint64_t vectors, int sms);

/// Why the ladder cannot run here, or "": memhier built without NCCL, fewer than two GPUs,
/// or a pair of GPUs without peer access.
std::string allreduce_unavailable(int visible_gpus, bool nccl_built, bool every_pair_p2p);

/// The smallest size of `type` from which on `to` is faster than `from` at every size
/// measured (0 when `to` is not faster at the largest size): where one rung takes over.
std::uint64_t takes_over(const AllReduceResult& m, ReduceType type, AllReduceRung from,
                         AllReduceRung to);

/// Every rung at every size over all visible GPUs; throws Unavailable as
/// allreduce_unavailable says.
AllReduceResult measure_allreduce(Context& ctx);

/// The same over the first `ranks` GPUs, one rank allowed (the GPU tests check the kernels'
/// exactness on a one-GPU machine); throws Unavailable without NCCL.
AllReduceResult measure_allreduce_on(Context& ctx, int ranks);

/// The "allreduce" section: time, bus bandwidth and speed over NCCL by size, the crossovers,
/// the chart and the claims.
Result present_allreduce(const AllReduceResult& m);

}  // namespace memhier::probe
