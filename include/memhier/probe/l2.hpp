// The L2 probes' measurements as plain numbers: read bandwidth against working set with
// its plateaus and capacity knee ("l2-working-set"), the same for random 32-byte reads
// ("l2-random"), and hot-buffer read times with and without a persisting access-policy
// window ("l2-persisting"). measure_* runs the GPU;
// present_* makes the report section.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// One working set of the sweep.
struct L2Point {
  std::uint64_t bytes = 0;
  double gbps = NAN;  ///< all-SM ld.cg read bandwidth, 10^9 bytes per second
};

/// What the curve says: its two plateaus and where it falls between them.
struct L2Plateaus {
  double in_l2_gbps = NAN;         ///< median of the sets up to half the L2
  double hbm_gbps = NAN;           ///< median of the sets of 4x the L2 or more
  double capacity_bytes = NAN;     ///< where the curve first falls below their midpoint
  std::vector<std::string> notes;  ///< why a figure is missing
};

/// The "l2-working-set" probe.
struct L2WorkingSetResult {
  std::vector<L2Point> points;  ///< ascending working sets
  L2Plateaus plateaus;
  std::uint64_t l2_bytes = 0;         ///< the L2 size from the properties
  std::uint64_t launch_bytes = 0;     ///< the least one launch reads
  std::uint64_t sweep_top_bytes = 0;  ///< where the sweep would end with memory to spare
};

/// The "l2-random" probe: random 32-byte reads (GB/s of the 32 bytes read) against working
/// set, and the sequential read of 5x the L2 the seed's ratio is taken against.
struct L2RandomResult {
  std::vector<L2Point> points;         ///< ascending working sets, powers of two
  L2Plateaus plateaus;                 ///< the random curve's L2-hit and HBM-bound plateaus
  std::uint64_t l2_bytes = 0;          ///< the L2 size from the properties
  std::uint64_t launch_bytes = 0;      ///< about what one launch reads
  std::uint64_t sweep_top_bytes = 0;   ///< where the sweep would end with memory to spare
  std::uint64_t sequential_bytes = 0;  ///< the sequential baseline's set; 0 when it did not fit
  double sequential_gbps = NAN;        ///< ld.cg sequential re-reads of that set
};

/// The "l2-persisting" probe: times of one read of the hot buffer, NaN where not measured.
struct L2PersistingResult {
  std::uint64_t hot_bytes = 0;  ///< half the persisting set-aside (or the window maximum)
  double bytes_per_read = NAN;  ///< bytes one timed launch reads
  double reference_ms = NAN;    ///< in L2, no eviction
  double evicted_ms = NAN;      ///< after streaming eviction, no window
  double window_ms = NAN;       ///< after streaming eviction, with the persisting window
  std::string unmeasured;       ///< why the window was not measured; empty when it was
};

/// Reads working sets from 1 MiB to 4 GiB (512 MiB with --quick) with every SM.
L2WorkingSetResult measure_l2_working_set(Context& ctx);

/// The plateaus and the capacity knee of a bandwidth curve, for an L2 of `l2_bytes`.
L2Plateaus find_l2_plateaus(const std::vector<L2Point>& points, std::uint64_t l2_bytes);

/// The "l2-working-set" section and the summary's L2 and HBM figures.
Result present_l2_working_set(const L2WorkingSetResult& m);

/// Reads working sets from 1 MiB to 4 GiB (five up to 2 GiB with --quick) at random, 32
/// bytes at a time, with every SM; then the sequential baseline.
L2RandomResult measure_l2_random(Context& ctx);

/// The "l2-random" section: the curve, its plateaus and the claim judged.
Result present_l2_random(const L2RandomResult& m);

/// Times the hot buffer in L2, evicted, and evicted with a persisting window.
L2PersistingResult measure_l2_persisting(Context& ctx);

/// The "l2-persisting" section.
Result present_l2_persisting(const L2PersistingResult& m);

}  // namespace memhier::probe
