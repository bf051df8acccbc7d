// The report's opening summary, built from plain data: the card's hierarchy (one band per
// tier with its measured latency, bandwidth and size), every ladder's best against its
// vendor and copy ceilings, and the claims tally. No CUDA here.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "memhier/report/document.hpp"
#include "memhier/results/bench_record.hpp"

namespace memhier::report {

/// One tier as measured on this card; NaN where not measured.
struct SummaryTier {
  std::string tier;  ///< "registers", "shared", "L1", "L2", "HBM", "constant", "local"
  double latency_cycles = NAN;
  double latency_ns = NAN;
  double bandwidth_gbps = NAN;
  std::string size;         ///< "228 KiB/SM", "50 MiB", ...
  double size_bytes = NAN;  ///< the capacity `size` names, in bytes; NaN where none
};

/// How many checks of the Claims section came out each way.
struct ClaimsTally {
  int reproduced = 0;
  int refuted = 0;
  int not_measurable = 0;
  int about_other_card = 0;  ///< absolute figures of another card than this one
  int from_properties = 0;   ///< reproduced or refuted from the device's properties, not measured
  /// The catalogue's claims by the card they speak of, on the card that ran (all 0 without
  /// one): its own name, its architecture or any card; another card.
  int claims = 0;
  int of_this_card = 0;
  int of_other_card = 0;
};

/// Shapes of a memory-bound ladder that move at most this many bytes are launch-bound: the
/// fixed costs of a launch, not the bytes, set their times (the copy of the same bytes runs
/// far below its rate at a large shape), so the lowest x memcpy is taken over the others.
inline constexpr double kLaunchBoundBytes = 8.0 * (1 << 20);

/// A launch-bound shape of a ladder's best, with the measurement that says so.
struct LaunchBoundShape {
  std::string shape;
  double bytes = NAN;     ///< the problem's compulsory traffic
  double x_memcpy = NAN;  ///< paired: cudaMemcpy time / best's time
  results::Spread x_memcpy_spread;
  double copy_ms = NAN;  ///< the copy of the same bytes (best's time x the paired ratio)
  /// The copy's rate here over its rate at the ladder's largest shape (its headline).
  double copy_share = NAN;
};

/// One ladder's best rung against its ceilings: the lowest paired ratio over the shapes
/// measured (with its spread there), NaN where the ceiling was not measured or means
/// nothing for the problem. x memcpy's lowest leaves out the launch-bound shapes, listed
/// apart.
struct LadderBest {
  std::string family;
  std::string variant;    ///< "best", or the highest verified rung when there is no "best"
  std::string vendor;     ///< the vendor baseline's name; "" when the family has none
  double x_vendor = NAN;  ///< vendor time / best's time, lowest over the shapes
  results::Spread x_vendor_spread;
  std::string vendor_shape;  ///< the shape where that lowest ratio was measured
  double x_memcpy = NAN;     ///< cudaMemcpy time / best's time; NaN where the copy is no ceiling
  results::Spread x_memcpy_spread;
  std::string memcpy_shape;
  double x_read_only = NAN;  ///< read-only ceiling's time / best's time (read-dominated ladders)
  results::Spread x_read_only_spread;
  std::string read_only_shape;
  /// The largest shape measured (the most bytes moved, or flops without bytes): the ladder's
  /// headline, with its ratios there.
  std::string headline_shape;
  double headline_x_vendor = NAN;
  results::Spread headline_x_vendor_spread;
  double headline_x_memcpy = NAN;  ///< NaN where the copy is no ceiling
  results::Spread headline_x_memcpy_spread;
  int shapes = 0;  ///< shapes where the best rung verified and was timed
  /// Shapes of at most kLaunchBoundBytes, in record order (memory-bound ladders only).
  std::vector<LaunchBoundShape> launch_bound;
};

/// What the summary is made from. Empty tiers or records: not measured in this run.
struct SummaryInput {
  std::vector<SummaryTier> tiers;
  std::vector<results::BenchRecord> records;  ///< every ladder's records, as run_family made them
  ClaimsTally claims;
  std::string not_measured;  ///< why the measurements are missing ("no GPU: ..."), if they are
  /// Optional stages that did not run, one sentence each ("PyTorch's line did not run: ...").
  std::vector<std::string> not_run;
};

/// A shape as a reader scans it: "1024x1024x1024" -> "1024³", "8192x8192" -> "8192²";
/// others as they are.
std::string short_shape(const std::string& shape);

/// Whether cudaMemcpy is a ceiling for this family's records: the family is bound by memory
/// (its fact, results::Bound), whatever one shape's ratio reads. For a problem bound by
/// arithmetic (GEMM) the copy ceiling says nothing and its ratio is not shown.
bool copy_ceiling_applies(const std::vector<results::BenchRecord>& family_records);

/// Each ladder's best against its vendor, against cudaMemcpy (where the copy ceiling
/// applies) and against the read-only ceiling (where measured), in the records' order;
/// declined and unverified rows never count.
std::vector<LadderBest> ladder_bests(const std::vector<results::BenchRecord>& records);

/// The summary section (id "summary"): the hierarchy picture and the ladders chart, the tally
/// in a line, each optional stage that did not run in a line, then the ladders' figures as a
/// table for the text formats (the tiers' table is the memory-spaces section's).
Section summary_section(const SummaryInput& in);

}  // namespace memhier::report
