// What a report measures, as one value that can cross a process boundary: after a kernel
// fault leaves the GPU lost to the process (bench/guard.hpp), a child process measures the
// rest from a resume point and hands its part back as JSON, and the parent merges it into its
// own. Host-only: sections travel as the report's JSON (report::to_json) with their checks,
// ladders as their bench records, probes as their tier figures.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "memhier/registry/probe_run.hpp"
#include "memhier/report/document.hpp"
#include "memhier/results/bench_record.hpp"

namespace memhier::bench {

/// Where a report's measurements go on: the probes from `probe`, the ladders from `family`
/// (at its `shape`, from `variant`), the sweep (best at each family's sweep shapes) from
/// `family` and `shape`, or the profiles; "" names the stage's first item. The stages in
/// run order, as the report measures them.
struct ResumePoint {
  enum class Stage { probes, ladders, sweep, profiles };
  Stage stage = Stage::probes;
  std::string probe;
  std::string family, shape, variant;

  friend bool operator==(const ResumePoint& a, const ResumePoint& b) {
    return a.stage == b.stage && a.probe == b.probe && a.family == b.family && a.shape == b.shape &&
           a.variant == b.variant;
  }
};

/// One ladder's part of a report (or of its sweep): its records, or the section saying why
/// the whole family failed.
struct FamilyOutcome {
  std::string family;
  bool sweep = false;  ///< best at the family's sweep shapes (the sweep stage), not its ladder
  std::vector<results::BenchRecord> records;
  std::optional<report::Section> failed;
};

/// Where the item that lost the GPU left its sentence: a probe's section, or a ladder's row
/// (indices into Measured's vectors); the report adds there what became of the rest.
struct FaultAt {
  std::optional<std::size_t> probe_section;
  std::optional<std::size_t> family, record;
};

/// Everything measured on the GPU for a report, in run order, before it is laid out.
struct Measured {
  bool probes_ran = false;  ///< the probe stage ran (in part: see `probes_failed`)
  double sm_clock_mhz = 0;  ///< the SM clock the probes measured first
  std::vector<report::Section> probe_sections;  ///< one per probe
  std::vector<probe::TierFigure> tiers;         ///< every probe's figures, not yet merged
  std::vector<std::string> probe_names;         ///< the probes that ran
  /// The probe stage failed as a whole (the SM clock could not be measured): why.
  std::optional<report::Section> probes_failed;
  std::vector<FamilyOutcome> families;  ///< the ladders, then the sweep's families
  bool profiles_ran = false;
  std::vector<report::Section> profiles;
  /// Where the rest begins when the GPU was lost to the process that measured this.
  std::optional<ResumePoint> stopped;
  FaultAt fault;  ///< the item that lost it, when `stopped`
};

/// The resume point as JSON, and back; std::invalid_argument (one sentence) for JSON that is
/// not one.
nlohmann::json to_json(const ResumePoint& at);
ResumePoint resume_point_from_json(const nlohmann::json& j);

/// The measurements as JSON (sections with their checks, records and tier figures at full
/// precision), and back; std::invalid_argument (one sentence) for JSON that is not one.
nlohmann::json to_json(const Measured& m);
Measured measured_from_json(const nlohmann::json& j);

/// Appends what a child process measured from `parent.stopped` on: probes after the
/// parent's, the records of a family resumed midway after the parent's, later families and
/// profiles after them; the child's own stop (and fault) become the parent's.
void merge(Measured& parent, const Measured& child);

/// Adds `sentence` to the item that lost the GPU (its row's note and reason, or its
/// section's paragraph): what became of the work after it.
void amend_fault(Measured& m, const std::string& sentence);

}  // namespace memhier::bench
