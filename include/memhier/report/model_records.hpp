// The models' answers as JSON records: one spelling of each record, shared by the CLI's
// --json output and the Python bindings, so the two cannot drift apart.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "memhier/model/analyze.hpp"
#include "memhier/model/arch.hpp"
#include "memhier/model/occupancy.hpp"

namespace memhier::report {

/// Wavefronts, ideal wavefronts, conflicts and degree of a shared-memory analysis.
nlohmann::json shared_totals(const model::SharedAnalysis& a);

/// Requests, sectors, lines and utilizations of a global-memory analysis.
nlohmann::json global_totals(const model::GlobalAnalysis& a);

/// `memhier analyze shared --json` without its header: totals, per-instruction banks, fixes.
nlohmann::json shared_record(const std::string& declaration, const std::string& access,
                             const model::SharedAnalysis& a,
                             const std::vector<model::SharedFix>& fixes);

/// `memhier analyze global --json` without its header and its verdict sentence.
nlohmann::json global_record(const std::string& declaration, const std::string& access,
                             std::int64_t offset_bytes, const model::GlobalAnalysis& a);

/// `memhier occupancy --json` without its header.
nlohmann::json occupancy_record(const model::ArchSpec& arch, const model::LaunchResources& r,
                                const model::OccupancyResult& res, const std::string& advice);

}  // namespace memhier::report
