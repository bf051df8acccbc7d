// How a ladder's claims are judged from the records of one run: the hooks a family's table
// names (registry::Family::claims). Only results and report types, so the registry above can
// hold them and a new claim (claim_ids.inc) recompiles no kernel.
#pragma once

#include <string>
#include <vector>

#include "memhier/report/document.hpp"
#include "memhier/results/bench_record.hpp"
#include "memhier/results/check.hpp"

namespace memhier::claims {

/// Plain function pointers: the claims library defines them, the family's table names them.
struct LadderClaims {
  /// One check per claim the ladder tests; null when no claim is about this ladder.
  std::vector<results::Check> (*checks)(const std::vector<results::BenchRecord>& records) =
      nullptr;
  /// Tables shown before the claims table (GEMM: the source texts' table beside this card's).
  std::vector<report::Table> (*tables)(const std::vector<results::BenchRecord>& records) =
      nullptr;
  /// The checks `memhier profile`'s counters of this ladder at `shape` decide; null when
  /// none of the profile claims is about this ladder.
  std::vector<results::Check> (*profile)(const std::string& shape,
                                         const results::ProfiledCounters& counters) = nullptr;
};

}  // namespace memhier::claims
