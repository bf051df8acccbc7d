// What one warp-wide memory instruction costs, from each lane's byte address.
// All the rules live in src/model/access.cpp so that they can be corrected in one
// place when the profiler disagrees.
#pragma once

#include <array>
#include <cstdint>

namespace memhier::model {

inline constexpr int kWarpSize = 32;

/// One warp instruction: a byte address per lane, the access width, active lanes.
struct WarpAccess {
  std::array<std::uint64_t, kWarpSize> address{};
  std::uint32_t active_mask = 0xffffffffu;
  int width_bytes = 4;  ///< 1, 2, 4, 8 or 16
  bool is_store = false;
  /// A load that allocates in L1 (ld.global.ca, the default from 7.0); false for
  /// ld.global.cg. Only the memory-system model reads it.
  bool l1_cached = true;
  /// The L2 fetch granularity a load asks for (ld.global.L2::128B / L2::256B, SASS LTC128B /
  /// LTC256B): a miss fills that aligned block, not only the sectors asked for; 0: none.
  /// Only the memory-system model reads it.
  int l2_promote_bytes = 0;
  /// A global atomic or reduction (ATOM/RED): performed at L2, never cached in L1. Only the
  /// memory-system model reads it; is_store is ignored for it.
  bool is_atomic = false;
  /// A cp.async.cg copy (SASS LDGSTS.E.BYPASS; set l1_cached false too): Nsight Compute on an
  /// H100 counts each of its L2 sectors looked up twice, the second time a hit. Only the
  /// memory-system model reads it.
  bool async_copy = false;

  bool active(int lane) const { return (active_mask >> lane) & 1u; }
};

/// True when width is one of the native access sizes 1, 2, 4, 8, 16.
bool valid_width(int width_bytes);

/// Shared-memory cost of one instruction (32 banks of 4 bytes).
struct SharedCost {
  int wavefronts = 0;        ///< shared-memory passes the instruction needs
  int ideal_wavefronts = 0;  ///< phases that carry data (1, 2 or 4 for a full warp)
  int conflicts = 0;         ///< wavefronts - ideal_wavefronts
  int degree = 0;            ///< worst number of distinct words one bank serves in one phase
  int phases = 1;            ///< 1 (<= 4 bytes), 2 (8 bytes), 4 (16 bytes)
  std::array<int, kWarpSize> lane_bank{};   ///< bank of each lane's first word, -1 if inactive
  std::array<int, kWarpSize> bank_words{};  ///< worst distinct-word count per bank over phases
};

/// Applies the bank rules: lanes that touch the same 32-bit word count it once
/// (broadcast on loads, one writer on stores); 8-byte accesses are served in
/// half-warp phases, 16-byte accesses in quarter-warp phases.
SharedCost shared_cost(const WarpAccess& w);

/// Shared-memory cost of one ldmatrix.x`matrices` (1, 2 or 4; .trans costs the same): lanes
/// 8j..8j+7 give the 16-byte row addresses of 8x8 b16 matrix j (w.width_bytes 16). A matrix
/// is 128 bytes, the banks' whole width, so it is one phase that never merges with another:
/// 1 wavefront when its rows cover the 32 banks, more when rows share banks. Lanes past the
/// last matrix give no address; w.active_mask is ignored.
SharedCost ldmatrix_cost(const WarpAccess& w, int matrices);

/// Global-memory cost of one instruction.
struct GlobalCost {
  int requests = 0;       ///< 1 when any lane is active
  int sectors = 0;        ///< distinct 32-byte sectors touched
  int lines = 0;          ///< distinct 128-byte lines touched
  int ideal_sectors = 0;  ///< ceil(bytes_needed / 32): the fewest sectors that could carry them
  int bytes_needed = 0;   ///< distinct bytes the active lanes touch
  double sectors_per_request = 0.0;
  double caching_utilization = 0.0;     ///< bytes_needed / (lines * 128)
  double noncaching_utilization = 0.0;  ///< bytes_needed / (sectors * 32)
};

GlobalCost global_cost(const WarpAccess& w);

/// What the profiler counts for a whole kernel, summed over its warp instructions:
/// the model's side of `memhier profile` (names follow Nsight Compute's metrics).
struct AccessCounts {
  long long shared_ld_instructions = 0, shared_st_instructions = 0;
  long long shared_ld_wavefronts = 0, shared_st_wavefronts = 0;
  long long shared_ld_ideal = 0, shared_st_ideal = 0;  ///< conflicts = wavefronts - ideal
  long long global_ld_requests = 0, global_ld_sectors = 0;
  long long global_st_requests = 0, global_st_sectors = 0;

  /// Adds one shared-memory instruction (load or store from w.is_store).
  void add_shared(const WarpAccess& w);
  /// Adds one ldmatrix.x`matrices` (a load; see ldmatrix_cost).
  void add_ldmatrix(const WarpAccess& w, int matrices);
  /// Adds one global-memory instruction (load or store from w.is_store).
  void add_global(const WarpAccess& w);
  AccessCounts& operator+=(const AccessCounts& o);
};

}  // namespace memhier::model
