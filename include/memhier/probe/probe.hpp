// Probes: measurements of the card's memory hierarchy. Each family lives in one
// file of src/probe, returns tables and charts (never prints), and carries the seed
// claim it tests.
#pragma once

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "memhier/core/device.hpp"
#include "memhier/registry/registry.hpp"
#include "memhier/report/document.hpp"

namespace memhier::probe {

/// What every probe gets: the device, its measured SM clock, the run's mode.
struct Context {
  core::DeviceInfo device;
  double sm_clock_mhz = 0;  ///< measured while busy; converts cycles to ns
  bool quick = false;       ///< --quick: fewer sizes and repetitions
  /// --quick's sizes with each timing cut to one repetition: every kernel still runs, the
  /// figures mean nothing. For compute-sanitizer, which slows kernels 10-100x.
  bool smallest = false;
  /// Reports progress ("latency: L2 ..."); the CLI shows it as one updating line.
  std::function<void(const std::string&)> progress = [](const std::string&) {};

  double cycles_to_ns(double cycles) const { return cycles * 1e3 / sm_clock_mhz; }
};

/// One tier's figures for the summary "memory spaces" table; NaN where not measured.
struct TierFigure {
  std::string tier;  ///< "shared", "L1", "L2", "HBM", "constant", "local", "registers"
  double latency_cycles = NAN;
  double bandwidth_gbps = NAN;
  std::string size;  ///< "228 KiB/SM", "50 MiB", ...
  /// What measured bandwidth_gbps: the probe and its method ("bandwidth: HBM copy, ...").
  std::string bandwidth_method;
};

struct Result {
  report::Section section;        ///< the probe's tables (claim beside measurement) and charts
  std::vector<TierFigure> tiers;  ///< contributions to the summary
};

/// Registers every built-in probe into the registry (once; later calls do nothing).
void register_probes();

/// Every probe's tier figures merged per tier, in the hierarchy's order (registers, shared,
/// L1, L2, HBM, constant, local, then any other): the first latency and size given, and
/// the largest bandwidth any method measured with that method's name, so a tier's row is
/// the best this project reaches on it rather than one kernel's figure.
std::vector<TierFigure> merge_tiers(const std::vector<TierFigure>& figures);

/// The "memory spaces" table measured on this card, from the merged tier figures.
report::Section summary_section(const std::vector<TierFigure>& merged, const Context& ctx);

}  // namespace memhier::probe
