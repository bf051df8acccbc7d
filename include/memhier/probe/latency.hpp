// The latency probes' measurements as plain numbers: cycles per dependent load for each
// tier ("latency"), and cycles against ring size with the knees found
// ("latency-working-set"). measure_* runs the GPU; present_* makes the report section.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// One tier's pointer-chase latency.
struct TierLatency {
  std::string tier;    ///< "shared", "L1", "L2", "HBM", "HBM (TLB-missing)", "constant", "local"
  std::string method;  ///< how it was chased, in words
  double cycles =
      NAN;           ///< SM cycles per dependent load (median of the launches); NaN if not measured
  std::string size;  ///< the tier's size for the summary ("228 KiB/SM"); empty when none
  double size_bytes = NAN;  ///< the capacity `size` names, in bytes; NaN where none
};

/// The "latency" probe: one figure per tier.
struct LatencyResult {
  std::vector<TierLatency> tiers;  ///< in report order
  std::vector<std::string> notes;  ///< why a tier has no figure
  int steps = 0;                   ///< timed hops per launch
  int reps = 0;                    ///< timed launches per figure
  double sm_clock_mhz = 0;         ///< the measured SM clock: converts cycles to ns

  /// The cycles of `tier`, NaN when the result has no such tier.
  double cycles_of(const std::string& tier) const;
};

/// One ring size of the working-set sweep.
struct WorkingSetPoint {
  std::uint64_t bytes = 0;
  double ca_cycles = NAN;  ///< ld.ca (through L1), cycles per hop
  double cg_cycles = NAN;  ///< ld.cg (L2 and beyond), cycles per hop
};

/// A step up in latency along the sweep.
struct LatencyKnee {
  std::string label;             ///< "L1 (ld.ca)", "L2 (ld.cg)", "TLB (ld.cg) step 2"
  std::uint64_t bytes = 0;       ///< the first ring size above the step
  std::uint64_t prev_bytes = 0;  ///< the last ring size below it (the cache ends in between)
  double before_cycles = NAN;    ///< the tier's median before the step
  double after_cycles = NAN;     ///< the level after it
};

/// The "latency-working-set" probe.
struct WorkingSetResult {
  std::vector<WorkingSetPoint> points;  ///< ascending ring sizes
  std::vector<LatencyKnee> knees;       ///< ld.ca's knees, then ld.cg's
  std::uint64_t l2_bytes = 0;           ///< the L2 size from the properties
  std::uint64_t sweep_top_bytes = 0;    ///< where the sweep would end with memory to spare
  int steps = 0, reps = 0;
  double sm_clock_mhz = 0;
};

/// Chases a ring in each tier on the current device.
LatencyResult measure_latency(Context& ctx);

/// The "latency" section (tiers table, claims) and the summary's tier figures.
Result present_latency(const LatencyResult& m);

/// Chases rings from 1 KiB to 4 GiB (256 MiB with --quick) with ld.ca and ld.cg.
WorkingSetResult measure_latency_working_set(Context& ctx);

/// The knees of the sweep: a point above 1.4x its tier's median starts a new tier,
/// classed by size (up to 1 MiB L1, up to 4x `l2_bytes` L2, beyond TLB).
std::vector<LatencyKnee> find_latency_knees(const std::vector<WorkingSetPoint>& points,
                                            std::uint64_t l2_bytes);

/// The "latency-working-set" section (curve, knees, chart, claims).
Result present_latency_working_set(const WorkingSetResult& m);

}  // namespace memhier::probe
