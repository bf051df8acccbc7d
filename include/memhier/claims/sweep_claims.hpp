// A ladder's `best` against the vendor over a sweep of shapes, reduced to the figures the
// report's text and the sweep goal read: one function of the records, so the paragraph and
// the verdict cannot disagree.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "memhier/results/bench_record.hpp"
#include "memhier/results/check.hpp"

namespace memhier::claims {

/// One family's sweep as numbers: best's paired ratios over the vendor (x vendor) at the
/// shapes where best ran and verified.
struct SweepSummary {
  std::string family;
  std::string vendor;          ///< the vendor line the records name; "" when none ran
  std::size_t shapes = 0;      ///< the shapes of the family's whole sweep
  std::size_t rows = 0;        ///< best's rows in this run
  std::size_t counted = 0;     ///< rows with a verified, finite x vendor
  std::size_t unverified = 0;  ///< rows where best ran but its output did not verify
  double geomean = 0;          ///< geometric mean of the counted ratios; NaN when none
  double lowest = 0;           ///< the lowest counted ratio; NaN when none
  std::string lowest_shape;
};

/// Whether best's row at a shape counts in the sweep's figures: verified, with a finite,
/// positive x vendor.
bool counts_in_sweep(const results::BenchRecord& r);

/// `records` (best's rows and the vendor's, as the bench writes them) over a sweep of
/// `shapes` shapes.
SweepSummary summarize_sweep(const std::string& family, std::size_t shapes,
                             const std::vector<results::BenchRecord>& records);

/// The sweep goal (gemm-best-vs-vendor-sweep), one figure per family: its geometric mean at
/// least 0.95, and every row best ran verified. Not measurable where a family's run covers
/// part of its sweep (--quick, or a family that failed as a whole) or no shape.
std::vector<results::Check> sweep_checks(const std::vector<SweepSummary>& families);

}  // namespace memhier::claims
