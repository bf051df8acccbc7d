// Runs the registered probes on the current device and gathers their sections.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "memhier/probe/probe.hpp"
#include "memhier/report/document.hpp"

namespace memhier::bench {

struct ProbeRunOptions {
  bool quick = false;
  std::vector<std::string> only;  ///< probe names or families; empty = all
  std::function<void(const std::string&)> progress = [](const std::string&) {};
  /// The first probe to run (a child process measuring what a GPU lost to its parent left);
  /// "" from the first.
  std::string from;
  /// With it set, the run stops after the probe that lost the GPU to this process (its
  /// section says why) and names the probe the rest starts at ("" after the last), instead
  /// of giving every later probe the lost GPU's sentence.
  std::string* stopped_before = nullptr;
};

struct ProbeRun {
  probe::Context context;
  std::vector<probe::TierFigure> tiers;  ///< every probe's tier figures, merged per tier
  report::Section summary;               ///< the measured memory-spaces table
  std::vector<report::Section> sections;  ///< one per probe, in registry order
  std::vector<std::string> names;         ///< the probes that ran
  /// The sentence of each probe that declined for lack of what it needs (a second GPU,
  /// NCCL: probe::Unavailable), in run order; its section says the same.
  std::vector<std::string> unavailable;
  double seconds = 0;                     ///< wall time of the whole run
  bool stopped = false;                   ///< ended early at a lost GPU (ProbeRunOptions)
};

/// The names and families a user may pass to --only.
std::vector<std::string> probe_names();

/// Throws std::invalid_argument (one sentence listing the known names) for an unknown name.
void check_probe_names(const std::vector<std::string>& only);

/// Measures the SM clock, runs the selected probes, builds the summary. A probe that
/// throws gets a section saying "not measured: why" and the next one runs (bench/guard.hpp).
/// Throws std::invalid_argument for an unknown name in `only`, core::CudaError when the SM
/// clock cannot be measured.
ProbeRun run_probes(const core::DeviceInfo& device, const ProbeRunOptions& opt);

}  // namespace memhier::bench
