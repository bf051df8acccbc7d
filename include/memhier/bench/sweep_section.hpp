// `best` against the vendor over the shapes users run (`memhier bench FAMILY --sweep`, and the
// report's sweep stage): one table per family, one chart of x vendor against shape with a
// series per family, and each family's geometric mean and lowest shape. Host-only: a function
// of the records.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "memhier/claims/sweep_claims.hpp"
#include "memhier/report/document.hpp"
#include "memhier/results/bench_record.hpp"

namespace memhier::bench {

/// One family's part of a sweep: what names it, how many shapes its sweep has, and best's
/// and the vendor's records at them, or the section saying why it failed as a whole.
struct SweepPart {
  std::string family;  ///< registry::Family::name
  std::string title;   ///< registry::Family::title
  std::size_t shapes = 0;
  std::vector<results::BenchRecord> records;
  std::optional<report::Section> failed;
};

/// Each part's figures (claims::summarize_sweep), in order; a failed part's have no row.
std::vector<claims::SweepSummary> sweep_summaries(const std::vector<SweepPart>& parts);

/// The sweep as one section: the method, each family's geometric mean and lowest shape (or
/// why it was not measured), one table per family and one bar chart of x vendor against
/// shape, a series per family over the shapes any of them ran, with a rule at 1 (parity).
/// One part keeps `memhier bench FAMILY --sweep`'s ids ("sweep-<family>"); several are
/// "sweep".
report::Section sweep_section(const std::vector<SweepPart>& parts);

}  // namespace memhier::bench
