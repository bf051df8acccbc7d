// Shared by the families' predictions (src/kernels/<family>/predict.*): a recorder that
// sums the model's cost of every warp-level memory instruction a kernel executes into the
// counters Nsight Compute reports. Host-only C++; the cost rules themselves live in
// src/model/access.cpp (shared_cost, global_cost), never here.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "memhier/model/access.hpp"
#include "memhier/model/replay.hpp"

namespace memhier::kernels::predict {

/// Where the prediction puts the i-th device buffer of a case: cudaMalloc returns
/// 256-byte aligned memory, and buffers far apart never share a sector or a line.
inline constexpr std::uint64_t buffer_base(int i) {
  return (static_cast<std::uint64_t>(i) + 1) << 40;
}

// A warp instruction issued with every lane predicated off counts nothing in the compared
// counters: no request, sector or wavefront (ncu on an H100: a predicated-PTX probe, and the
// edges of the transpose and elementwise kernels, whose SASS predicates its bounds checks).
// So a check compiled as a predicate and one compiled as a branch predict alike, and
// AccessCounts::add_shared / add_global skip an instruction with no lane on. Only
// smsp__inst_executed_op_* counts such instructions (the transpose tile at 1000x772 issues
// 25,600 STS of which 25,000 have a lane on): the model's *_instructions are the latter, as
// smsp__sass_inst_executed_op_* counts them.

/// One warp instruction from a per-lane rule: lane -> (predicate on, byte address).
/// Lanes not in `live` (exited or outside the block) are inactive whatever the rule says.
template <class Rule>
model::WarpAccess warp_access(std::uint32_t live, int width_bytes, bool is_store, Rule&& rule) {
  model::WarpAccess w;
  w.width_bytes = width_bytes;
  w.is_store = is_store;
  w.active_mask = 0;
  for (int lane = 0; lane < model::kWarpSize; ++lane) {
    if (!((live >> lane) & 1u)) continue;
    std::uint64_t address = 0;
    if (rule(lane, &address)) {
      w.active_mask |= 1u << lane;
      w.address[lane] = address;
    }
  }
  return w;
}

/// The active mask of a whole warp.
inline constexpr std::uint32_t kAllLanes = 0xffffffffu;

/// One warp instruction over lanes 0..31 of warp `warp` of a block of `threads` threads
/// (lanes past the block's last thread are off): rule(tid, &address) says whether thread
/// tid takes part and where.
template <class Rule>
model::WarpAccess block_warp_access(int warp, int threads, int width_bytes, bool is_store,
                                    Rule&& rule) {
  const int first = warp * model::kWarpSize;
  const std::uint32_t live =
      threads - first >= model::kWarpSize ? kAllLanes : ((1u << (threads - first)) - 1u);
  return warp_access(live, width_bytes, is_store,
                     [&](int lane, std::uint64_t* a) { return rule(first + lane, a); });
}

/// Sums instruction costs into model::AccessCounts. The cost of an instruction depends
/// only on its addresses relative to a 128-byte boundary (sectors, lines and banks repeat
/// every 128 bytes), so identical relative patterns are costed once and reused: a
/// prediction of a million warp instructions stays well under a second.
/// Built on a sink, it passes the launch, the warp identities and every global instruction
/// to the memory-system model instead (the same replay yields the address stream).
class Recorder {
 public:
  Recorder() = default;
  /// A recorder that streams global instructions to `sink` and counts nothing.
  explicit Recorder(model::AccessSink* sink) : sink_(sink) {}

  /// The kernel's launch: block size and shared memory per block (streaming only).
  void launch(int block_threads, int smem_bytes) {
    if (sink_) sink_->launch(block_threads, smem_bytes);
  }
  /// The instructions that follow are warp `warp` of block `block`, blocks numbered in
  /// launch order (streaming only).
  void at(std::uint64_t block, int warp) {
    if (sink_) sink_->at(block, warp);
  }
  /// One global load or store of the warp (lanes off in w.active_mask do not access memory).
  void global(const model::WarpAccess& w) {
    if (sink_)
      sink_->global(w);
    else
      add(w, /*shared=*/false, 0);
  }
  /// A bulk L2 prefetch by the warp (cp.async.bulk.prefetch.L2): streamed, not counted (it
  /// is no LSU access).
  void l2_prefetch(std::uint64_t address, std::uint64_t bytes) {
    if (sink_) sink_->l2_prefetch(address, bytes);
  }
  /// A GPU-scope fence by the warp (model::AccessSink::fence): streamed, not counted.
  void fence() {
    if (sink_) sink_->fence();
  }
  /// Blocks the sink's card holds at once (0 without a card): a persistent kernel's grid.
  std::uint64_t resident_blocks() const { return sink_ ? sink_->resident_blocks() : 0; }
  /// The SMs of the sink's card (0 without a card).
  int multiprocessors() const { return sink_ ? sink_->multiprocessors() : 0; }
  /// One shared-memory load or store of the warp, likewise (not part of the stream).
  void shared(const model::WarpAccess& w) {
    if (!sink_) add(w, /*shared=*/true, 0);
  }
  /// One ldmatrix.x`matrices` of the warp (model::ldmatrix_cost: lanes give row addresses).
  void ldmatrix(const model::WarpAccess& w, int matrices) {
    if (!sink_) add(w, /*shared=*/true, matrices);
  }

  const model::AccessCounts& counts() const { return counts_; }

 private:
  struct Key {
    std::array<std::uint64_t, model::kWarpSize> offset{};
    std::uint32_t mask = 0;
    int width = 0, matrices = 0;  // matrices: an ldmatrix's, 0 for any other instruction
    bool store = false, shared = false;
    bool operator==(const Key& o) const {
      return mask == o.mask && width == o.width && matrices == o.matrices && store == o.store &&
             shared == o.shared && offset == o.offset;
    }
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::uint64_t h =
          1469598103934665603ull ^ (std::uint64_t{k.mask} << 8) ^
          static_cast<std::uint64_t>(k.matrices * 256 + k.width * 4 + k.store * 2 + k.shared);
      for (std::uint64_t v : k.offset) h = (h ^ v) * 1099511628211ull;
      return static_cast<std::size_t>(h ^ (h >> 29));
    }
  };

  void add(const model::WarpAccess& w, bool shared, int matrices) {
    if (w.active_mask == 0) return;  // not counted (see above)
    Key key;
    key.mask = w.active_mask;
    key.width = w.width_bytes;
    key.matrices = matrices;
    key.store = w.is_store;
    key.shared = shared;
    std::uint64_t base = ~std::uint64_t{0};
    for (int lane = 0; lane < model::kWarpSize; ++lane)
      if (w.active(lane) && w.address[lane] < base) base = w.address[lane];
    base &= ~std::uint64_t{127};
    for (int lane = 0; lane < model::kWarpSize; ++lane)
      key.offset[lane] = w.active(lane) ? w.address[lane] - base : 0;
    auto it = memo_.find(key);
    if (it == memo_.end()) {
      model::AccessCounts one;
      if (matrices > 0)
        one.add_ldmatrix(w, matrices);
      else if (shared)
        one.add_shared(w);
      else
        one.add_global(w);
      it = memo_.emplace(key, one).first;
    }
    counts_ += it->second;
  }

  model::AccessSink* sink_ = nullptr;
  model::AccessCounts counts_;
  std::unordered_map<Key, model::AccessCounts, KeyHash> memo_;
};

}  // namespace memhier::kernels::predict
