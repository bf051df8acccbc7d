// `memhier explain`: a user's kernels, as Nsight Compute counted them, set against this card's
// ceilings, with the findings the counters show, the models' ideal for each, the technique
// that closes the gap and the memhier rung that demonstrates it. The diagnosis is a pure
// function of the counters (explain_diagnose.cpp, host-only: the CPU tests feed it made-up
// counter sets); running the program under ncu is explain_run.cpp.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "memhier/model/card.hpp"
#include "memhier/model/occupancy.hpp"
#include "memhier/profile/ncu.hpp"
#include "memhier/report/document.hpp"

namespace memhier::bench {

/// What a finding says of a kernel (the `kind` key of explain's JSON).
enum class FindingKind {
  uncoalesced_global,     ///< global sectors per request above the access width's ideal
  shared_bank_conflicts,  ///< shared wavefronts per instruction above the width's ideal
  register_spills,        ///< local-memory traffic
  low_occupancy,          ///< few resident warps, with the limiter and the change that helps
  dram_excess,            ///< DRAM bytes well above what the kernel's instructions needed
  latency_bound,          ///< too few bytes in flight for this card's latency x bandwidth
  near_ceiling,           ///< within 15 % of a measured memory ceiling: memory offers no more
  compute_bound,          ///< the FLOP rate or a compute pipe is what limits
};

/// "uncoalesced-global", "shared-bank-conflicts", ...
const char* to_string(FindingKind kind);

/// Every kind, in declaration order.
const std::vector<FindingKind>& all_finding_kinds();

/// The source text that teaches the fix of `kind`, as claims cite it ("GPU Memory Hierarchy,
/// §Memory Coalescing: ..."): title and section.
std::string finding_source(FindingKind kind);

/// The technique that fixes `kind`, in one line.
std::string finding_technique(FindingKind kind);

/// One ceiling a kernel is set against, with where its figure comes from.
struct Ceiling {
  double value = 0;  ///< GB/s or GFLOP/s; NaN where there is none
  model::Provenance from = model::Provenance::datasheet;
  std::string source;  ///< the figure's source in words
};

/// This card's ceilings, as the diagnosis reads them.
struct Ceilings {
  std::string card;            ///< the card's name
  Ceiling dram, l2, shared;    ///< GB/s; shared is also the L1's data path
  /// GB/s: a copy's (bytes read + written) where the card's record measured one, NaN else; a
  /// kernel that both reads and writes DRAM is held to a ceiling between it and `dram`.
  Ceiling dram_copy;
  Ceiling fp32, tensor;        ///< GFLOP/s; tensor: dense bf16 with fp32 accumulation
  double dram_latency_ns = 0;  ///< a DRAM load's latency; 0 when not measured
  std::string latency_source;
  int sms = 0;
};

/// The ceilings of `card` (model::card_of_device's, measured bandwidths where its record has
/// them), the shared and FLOP peaks from its architecture at `sm_clock_mhz`, each marked
/// with its provenance; the DRAM latency from `record` when it has one.
Ceilings ceilings_of(const model::Card& card, const model::CardRecord* record, double sm_clock_mhz);

/// What one rung of a memhier ladder gained over the rung before it on this card, from the
/// card's current record (docs/results/<card>/results.json): `to` against `from`.
struct RungGain {
  std::string family, from, to;
  double gain = 0;    ///< time(from) / time(to); NaN where the record lacks either
  std::string shape;  ///< the shape both were timed at
};

/// The rung that demonstrates the fix of each finding kind (none for near-ceiling), with
/// its gain read from `record` (a report's JSON document, as results.json holds it); gains
/// stay NaN where `record` is null or lacks the rows.
std::map<FindingKind, RungGain> rung_gains(const nlohmann::json* record);

/// One figure a finding rests on: a counter (its key and ncu name) or a figure derived from
/// counters, with its value.
struct Evidence {
  std::string name;    ///< "global ld sectors/request"
  std::string metric;  ///< the ncu metric, or how the figure derives from them
  double value = 0;
};

/// One thing the counters show about a kernel.
struct Finding {
  FindingKind kind{};
  std::string summary;  ///< one sentence, with the numbers
  std::vector<Evidence> evidence;
  double measured = 0;     ///< the figure judged (sectors/request, occupancy, ...)
  double ideal = 0;        ///< the model's ideal for it
  std::string ideal_from;  ///< which model gave the ideal, and how
  double gain = 1;         ///< the kernel's estimated speed-up if this were fixed
  std::string technique;   ///< what to do
  std::string source;      ///< the source text that teaches it (title and section)
  RungGain rung;           ///< the memhier rung demonstrating it (empty family: none)
};

/// How a kernel stands against one ceiling.
struct Standing {
  std::string what;  ///< "DRAM", "L2", "L1/shared", "fp32", "tensor"
  std::string unit;  ///< "GB/s" or "GFLOP/s"
  double achieved = 0;
  Ceiling ceiling;
  double fraction() const;  ///< achieved / ceiling; NaN without a ceiling
};

/// One kernel's diagnosis.
struct KernelDiagnosis {
  profile::KernelCounters counters;
  double duration_ns = 0;
  std::vector<Standing> standings;
  double flops = 0;  ///< fp32 + fp16 + tensor operations
  double dram_bytes = 0;
  double intensity = 0;    ///< FLOP per DRAM byte; NaN without DRAM bytes
  double roof_gflops = 0;  ///< min(DRAM ceiling x intensity, the FLOP peak)
  model::LaunchResources launch;
  std::optional<model::OccupancyResult> occupancy;  ///< the model's, from the launch
  double achieved_occupancy = 0;                    ///< ncu's, 0..1
  std::vector<Finding> findings;                    ///< highest estimated gain first
  std::vector<std::string> notes;  ///< counters missing, and what was not judged for it
};

/// What the diagnosis needs beside the counters.
struct DiagnosisContext {
  Ceilings ceilings;
  const model::ArchSpec* arch = nullptr;  ///< the card's compute capability
  std::map<FindingKind, RungGain> rungs;  ///< rung_gains()
  double footprint_bytes = 0;             ///< the user's unique footprint per launch; 0: not given
};

/// The diagnosis of one kernel launch: a pure function of its counters and `context`.
KernelDiagnosis diagnose(const profile::KernelCounters& counters, const DiagnosisContext& context);

/// What `memhier explain` profiled, and what it passed over.
struct ExplainRun {
  std::vector<std::string> program;  ///< the program and its arguments
  profile::Selection selection;
  std::string selection_said;  ///< the selection in words, and what it skipped
  std::vector<KernelDiagnosis> kernels;
  /// memhier's own ladders on this card's roofline (name, (FLOP/byte, GFLOP/s)), from the
  /// record's roofline table: the HTML draws the user's kernels beside them.
  std::vector<std::pair<std::string, std::pair<double, double>>> ladder_points;
};

/// The roofline points of a report's JSON document (its "roofline-points" table).
std::vector<std::pair<std::string, std::pair<double, double>>> ladder_points(
    const nlohmann::json& record);

/// The explain document's section: the kernels against the ceilings, the findings, a
/// roofline chart; the same records every writer renders.
report::Section explain_section(const ExplainRun& run, const Ceilings& ceilings);

/// explain's JSON record of the run (schema "memhier.explain"): the ceilings, and per kernel
/// its standings, roofline point and findings (`kind` in kebab case).
nlohmann::json explain_json(const ExplainRun& run, const Ceilings& ceilings);

/// How a user's program is chosen and run under ncu.
struct ExplainOptions {
  std::vector<std::string> program;  ///< PROGRAM ARGS...
  std::string kernel_regex;          ///< "" every kernel
  long launch_skip = 0;
  long launch_count = 0;      ///< 0: the default (kDefaultKernels, one launch each)
  bool every_launch = false;  ///< every launch of the selected kernels, not the first of each
  int timeout_s = 0;          ///< 0: profile::ncu_timeout_s()
  double footprint_bytes = 0;
};

/// Without --launch-count: the first launch of each of at most this many distinct kernels.
inline constexpr long kDefaultKernels = 20;

/// The ncu selection `options` ask for, and the sentence that tells the user what it skips.
std::pair<profile::Selection, std::string> explain_selection(const ExplainOptions& options);

/// Runs `options.program` under ncu with explain_metrics() and returns the kernels' counters
/// in launch order, with the selection in words. Throws ProfilerUnavailable (no ncu, counters
/// unreadable), std::invalid_argument (no program, a bad regex) or std::runtime_error (ncu
/// failed, timed out, or profiled no kernel).
ExplainRun profile_program(const ExplainOptions& options,
                           const std::function<void(const std::string&)>& progress);

}  // namespace memhier::bench
