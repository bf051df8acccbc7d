// What a probe gets and what it returns: the registry's probe entries are functions from one
// to the other, so these sit on the registry's floor (a device, report sections), under the
// probes that fill them. Host-only.
#pragma once

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "memhier/core/device.hpp"
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
  std::string size;  ///< "228 KiB/SM", "50 MiB", ... (for reading)
  double size_bytes = NAN;  ///< the capacity `size` names, in bytes (the picture's band width)
  /// What measured bandwidth_gbps: the probe and its method ("bandwidth: HBM copy, ...").
  std::string bandwidth_method;
  /// HBM only: the fastest copy timed (bytes read + written), NaN where none was. A stream
  /// that reads and writes turns the bus around and stays below the one-way figures.
  double copy_gbps = NAN;
};

struct Result {
  report::Section section;        ///< the probe's tables (claim beside measurement) and charts
  std::vector<TierFigure> tiers;  ///< contributions to the summary
};

}  // namespace memhier::probe
