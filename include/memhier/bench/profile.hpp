// `memhier profile`: run registered kernels under Nsight Compute and put the model's
// predictions beside the hardware counters. The parent process plans the items and
// predicts; a child (memhier-profile-target, run by ncu: see profile_target.hpp) executes
// them between cudaProfilerStart and cudaProfilerStop, each preceded by a marker kernel.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "memhier/bench/profile_target.hpp"
#include "memhier/model/access.hpp"
#include "memhier/profile/ncu.hpp"
#include "memhier/report/document.hpp"

namespace memhier::bench {

/// One thing profiled: a family variant at a shape, or one access pattern.
struct ProfileItem {
  std::string target;  ///< family or pattern set ("transpose", "shared-stride")
  std::string name;    ///< variant, "baseline", or pattern name
  std::string shape;   ///< family shape; empty for patterns
  bool has_prediction = false;
  model::AccessCounts predicted;
  std::vector<profile::KernelCounters> kernels;  ///< ncu's rows for this item
  /// The marker kernel launched just before the item (an empty launch): what every launch
  /// adds to the counters by itself (L2 lookups, DRAM bytes); empty name when absent.
  profile::KernelCounters marker;
  std::string note;  ///< why it did not run or failed verification (from the child)
  /// For a variant that dispatches (a tuned `best`): the rung whose kernel it ran, as the
  /// child reported after its warm-up; the prediction is that rung's. Empty otherwise.
  std::string runs;

  /// Sum of `key` over the item's kernels (NaN when no kernel reported it).
  double measured(const std::string& key) const;
};

/// What `memhier profile` can take: every family, every pattern set, and "all".
std::vector<std::string> profile_targets();

/// The items of `target` in execution order, with the model's predictions when `predict`
/// (a replay of every access: seconds to minutes at large shapes, so only where compared).
/// `variants` restricts a family's variants (empty: all, plus the vendor baseline); `shape`
/// overrides the family's profile shape. Throws std::invalid_argument for bad names or shapes.
std::vector<ProfileItem> plan_profile(const std::string& target,
                                      const std::vector<std::string>& variants,
                                      const std::string& shape, bool predict);

/// Parent side: gives each of ncu's kernel rows to the item whose marker precedes it;
/// takes each item's note from the child's outcomes, and for an item that ran another
/// rung's kernel (its outcome's `runs`) that rung's prediction.
void assign_counters(std::vector<ProfileItem>& items,
                     const std::vector<profile::KernelCounters>& rows,
                     const std::vector<ItemOutcome>& outcomes);

/// Counters without a usable GPU or ncu: the one-sentence reason (the CLI exits 3).
struct ProfilerUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Plans, runs `target_program` (memhier-profile-target) under ncu, and assigns the
/// counters.
/// Throws ProfilerUnavailable (no ncu, counters not readable), invalid_argument (bad
/// input) or std::runtime_error (ncu failed).
/// One ncu run per family or pattern set; `progress` hears which. Without `with_model` the
/// items carry counters only (no predictions, no simulated traffic): for large shapes.
std::vector<ProfileItem> run_profile(
    const std::string& target_program, const std::string& target,
    const std::vector<std::string>& variants, const std::string& shape,
    const std::function<void(const std::string&)>& progress = [](const std::string&) {},
    bool with_model = true);

/// memhier-profile-target beside the running executable (the build puts the two together):
/// the process ncu profiles. Throws ProfilerUnavailable when it is not there.
std::string profile_target_beside_self();

/// The report's profile sections: run_profile over every target with a model (without
/// `quick`, the pattern sets too, and gemm's naive and tiled rungs once more at 4096^3 for
/// the traffic claims), one section each; where ncu, the counters or the target program are
/// missing, a section that says why, and the report goes on. `progress` hears each ncu run.
/// `target_program` is what ncu runs; "" for profile_target_beside_self().
std::vector<report::Section> measure_profiles(
    bool quick, const std::function<void(const std::string&)>& progress,
    const std::string& target_program = "");

/// The model-vs-counter comparisons made exactly: field name, predicted, measured.
struct Comparison {
  std::string field;  ///< "shared_ld_wavefronts", ...
  long long predicted = 0;
  double measured = 0;
  bool equal() const { return static_cast<double>(predicted) == measured; }
};
std::vector<Comparison> compare(const ProfileItem& item);

/// The report section: predicted against measured per item, and (for families) every
/// kernel's counters; the simulated traffic beside them `with_model`.
report::Section profile_section(const std::string& target, const std::vector<ProfileItem>& items,
                                bool with_model = true);

}  // namespace memhier::bench
