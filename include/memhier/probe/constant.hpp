// The constant probe's measurement as plain numbers: a table read with warp-uniform and
// divergent indices from constant memory, through __ldg from global memory and with no
// load at all, and the latency of a dependent chain through constant memory.
// measure_constant runs the GPU; present_constant makes the report section.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// One (memory, index pattern) timing.
struct ConstantRead {
  std::string memory;          ///< "constant", "global (__ldg)", "registers (no load)"
  std::string pattern;         ///< "uniform", "divergent"
  int distinct_per_warp = -1;  ///< model: distinct words a warp instruction reads; -1: no load
  double ms = NAN;             ///< median time
  double gloads_per_s = NAN;   ///< 10^9 thread-loads per second
  double gbps = NAN;           ///< 4 bytes per thread-load
  double relative = NAN;       ///< constant/uniform's time over this row's
};

/// The "constant" probe.
struct ConstantResult {
  /// constant uniform, constant divergent, __ldg uniform, __ldg divergent, registers.
  std::vector<ConstantRead> reads;
  unsigned grid = 0;
  int block_threads = 0;
  int table_bytes = 0;
  int iters = 0;             ///< table reads per thread
  int divergent_stride = 0;  ///< words between lanes in the divergent pattern
  int ring_slots = 0;        ///< the latency chain's ring (4 bytes a slot)
  int chase_steps = 0;
  double latency_cycles = NAN;  ///< per dependent load; NaN without an SM clock
  double sm_clock_mhz = 0;
  int constant_bytes = 0;  ///< __constant__ space on this device
};

/// Times the table reads and the latency chain on the current device.
ConstantResult measure_constant(Context& ctx);

/// The "constant" section (reads, latency, claims, chart) and the summary's figure.
Result present_constant(const ConstantResult& m);

}  // namespace memhier::probe
