// The bandwidth probe's measurement as plain numbers: GB/s of every tier with every SM
// busy. measure_bandwidth runs the GPU; present_bandwidth makes the report section.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "memhier/core/device.hpp"
#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// One row of the bandwidth table.
struct TierBandwidth {
  std::string tier;      ///< "shared", "L1", "L2", "HBM read", ..., "cudaMemcpy D2D", "constant"
  std::string access;    ///< the access pattern, in words
  double gbps = NAN;     ///< 10^9 bytes per second (median of the launches)
  bool on_chip = false;  ///< paced by the SM clock: bytes per clock per SM make sense
};

/// The "bandwidth" probe.
struct BandwidthResult {
  core::DeviceInfo device;
  double sm_clock_mhz = 0;
  std::vector<TierBandwidth> tiers;  ///< in report order
  std::vector<std::string> notes;    ///< caveats of this run (small arrays, a large L2 set)
  double array_bytes = 0;            ///< bytes per HBM array
  double best_shared_gbps = NAN;     ///< the best of the three load widths
  double l1_gbps = NAN, l2_gbps = NAN;
  double read_gbps = NAN, write_gbps = NAN, copy_gbps = NAN, triad_gbps = NAN;  ///< HBM kernels
  double memcpy_gbps = NAN;    ///< cudaMemcpy device-to-device on the same arrays
  double constant_gbps = NAN;  ///< bytes delivered to lanes
};

/// Times every tier with every SM busy on the current device.
BandwidthResult measure_bandwidth(Context& ctx);

/// The "bandwidth" section (tiers, copy ratios, claims, chart) and the summary's figures.
Result present_bandwidth(const BandwidthResult& m);

}  // namespace memhier::probe
