// A kernel's address stream replayed through the memory-system model in an order that
// approximates the hardware's. A kernel's model (Variant::stream) reports, through an
// AccessSink, its launch and every warp's global instructions block by block.
//
// Order: blocks go to SMs in waves of sms x blocks_per_sm (blocks_per_sm from the occupancy
// model at an assumed 32 registers per thread, which none of the modeled kernels exceeds
// enough to lower it), block i of a wave to SM i mod sms (round-robin); within a wave every
// warp issues one global instruction per round (a run of consecutive stores as one: a store
// waits for no data), SM after SM and, on an SM, warp after warp in block order, until all
// warps are done; then the next wave. A grid-stride (persistent)
// kernel's model numbers its tiles as blocks: tile t runs on block t mod grid, and the grid
// is one wave, so a wave is one round of the loop. No sampling: every warp instruction of
// the kernel is replayed (the per-access cost keeps the modeled kernels within seconds).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "memhier/model/access.hpp"
#include "memhier/model/card.hpp"
#include "memhier/model/memsys.hpp"

namespace memhier::model {

/// What a kernel's stream model calls: the launch once (once per kernel for several), then
/// each warp's accesses.
class AccessSink {
 public:
  virtual ~AccessSink() = default;
  /// The kernel's block size and shared memory per block (static + dynamic), before any access.
  /// A variant of several kernels (one after another on a stream) calls it once per kernel,
  /// each kernel's accesses after its own launch.
  virtual void launch(int block_threads, int smem_bytes_per_block) = 0;
  /// The accesses that follow are warp `warp` of block `block` (blocks in launch order).
  virtual void at(std::uint64_t block, int warp) = 0;
  /// One global-memory warp instruction of the current warp; inactive lanes access nothing.
  virtual void global(const WarpAccess& w) = 0;
  /// A prefetch of `bytes` from `address` into L2 by the current warp (prefetch.global.L2,
  /// cp.async.bulk.prefetch.L2): L2 lookups that fill from DRAM, nothing in L1; replayed in
  /// the round of the warp's next global instruction (or its last round), taking none of its
  /// own. A model without prefetches never calls it.
  virtual void l2_prefetch(std::uint64_t address, std::uint64_t bytes) {
    (void)address, (void)bytes;
  }
  /// A GPU-scope fence by the current warp (__threadfence, an acquire or release atomic at
  /// device scope, a cluster barrier's release arrive or acquire wait): MemorySystem::membar.
  virtual void fence() {}
  /// Blocks resident at once (a persistent kernel's grid) once launched; 0 when the sink
  /// replays on no card.
  virtual std::uint64_t resident_blocks() const { return 0; }
  /// The SMs of the card the sink replays on; 0 when it replays on no card.
  virtual int multiprocessors() const { return 0; }
};

/// What a replay predicts for one kernel launch on one card.
struct SimResult {
  Traffic traffic;
  int blocks_per_sm = 0;   ///< resident blocks per SM (occupancy model)
  long long l1_bytes = 0;  ///< L1 per SM left by the shared-memory carveout
  long long blocks = 0;    ///< blocks (or tiles) replayed
  long long waves = 0;
  long long instructions = 0;  ///< global warp instructions with a lane on
  /// Time the traffic needs at least: DRAM bytes at the card's DRAM bandwidth, or L2<->SM
  /// bytes at its L2 bandwidth when that is larger (and known). Seconds.
  double time_bound_s = 0;
  bool l2_bound = false;  ///< the L2 figure set the bound
  long long code_bytes = 0;  ///< the kernel's machine code fetched (0: not known)
};

/// The sink that replays a stream through a MemorySystem of `card`, in the order above. A
/// stream of several kernels is replayed kernel by kernel, each from cold caches as Nsight
/// Compute profiles it (it flushes them before every kernel), and the traffic is their sum.
class LaunchSimulator : public AccessSink {
 public:
  /// `persist`: an access-policy window (inactive by default). `regs_per_thread`: the
  /// occupancy model's register count.
  explicit LaunchSimulator(const Card& card, PersistWindow persist = {}, int regs_per_thread = 32);
  void launch(int block_threads, int smem_bytes_per_block) override;
  void at(std::uint64_t block, int warp) override;
  void global(const WarpAccess& w) override;
  void l2_prefetch(std::uint64_t address, std::uint64_t bytes) override;
  void fence() override;
  /// The kernel's machine code, fetched once per launch (MemorySystem::instruction_fetch).
  void instruction_fetch(long long code_bytes);
  std::uint64_t resident_blocks() const override { return wave_size_; }
  int multiprocessors() const override { return card_.sms; }
  /// Replays what is left and returns the counts and the time bound.
  SimResult finish();

 private:
  void flush();

  const Card& card_;
  PersistWindow persist_;
  int regs_;
  std::unique_ptr<MemorySystem> mem_;
  SimResult r_;
  Traffic earlier_;              ///< the traffic of the stream's kernels before the current one
  std::uint64_t wave_size_ = 0;  ///< blocks per wave
  std::uint64_t wave_ = 0;       ///< the wave being collected
  int warps_per_block_ = 0;
  bool launched_ = false;
  bool any_ = false;                        ///< the wave holds an access
  std::vector<std::uint64_t> blocks_seen_;  ///< distinct blocks, counted per wave
  /// The wave's warps, slot (block mod wave) * warps_per_block + warp: encoded sector
  /// accesses (see replay.cpp).
  std::vector<std::vector<std::uint64_t>> queues_;
  std::vector<std::uint64_t>* current_ = nullptr;
  std::size_t slot_ = 0;  ///< the current warp's block slot in its wave
  /// Per SM, the wave its last fence was counted in (Card::fences_merge_per_sm).
  std::vector<std::uint64_t> fenced_wave_;
};

/// The L1 per SM the driver leaves beside `blocks_per_sm` blocks of `smem_per_block` bytes
/// (reservation included): the smallest carveout that holds them (assumed: the driver's
/// default preference picks it), taken from the unified L1 + shared capacity.
long long l1_bytes_beside(const ArchSpec& arch, int blocks_per_sm, int smem_per_block);

}  // namespace memhier::model
