// The shared-stride probe's measurement as plain numbers: shared-memory bandwidth and
// slowdown against the stride between lanes for 4-, 8- and 16-byte loads, beside the bank
// model's wavefronts. measure_shared_stride runs the GPU; present_shared_stride makes the
// report section.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// One (width, stride) point.
struct StridePoint {
  int width = 4;             ///< bytes per load
  std::uint32_t stride = 1;  ///< elements of the width between lanes
  double gbps = NAN;         ///< bytes the lanes asked for over the time
  double ms_per_pass = NAN;
  double slowdown = NAN;              ///< time per load over stride 1 of the same width
  double predicted_wavefronts = NAN;  ///< the bank model, per instruction
  double predicted_slowdown = NAN;    ///< ... over stride 1's
  int predicted_degree = 0;           ///< worst distinct words one bank serves in a phase
};

/// The "shared-stride" probe.
struct SharedStrideResult {
  std::vector<StridePoint> points;  ///< by width (4, 8, 16), then stride
  double tolerance = 0;             ///< relative: a slowdown within it matches the model
  int block_threads = 0, loads_per_pass = 0;
  std::uint32_t elements = 0;   ///< the shared array, in elements of the width
  std::uint32_t base_step = 0;  ///< elements between the bases of successive loads

  /// The point of (width, stride), or nullptr.
  const StridePoint* find(int width, std::uint32_t stride) const;
};

/// Sweeps the strides (1..33 and 64; fewer with --quick) at each load width.
SharedStrideResult measure_shared_stride(Context& ctx);

/// The "shared-stride" section: table, chart and claims.
Result present_shared_stride(const SharedStrideResult& m);

}  // namespace memhier::probe
