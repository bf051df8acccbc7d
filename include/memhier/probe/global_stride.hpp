// The global-stride probe's measurement as plain numbers: useful DRAM bandwidth against
// the stride between consecutive thread-accesses and for a random gather, beside the
// coalescing model's sectors per request. measure_global_stride runs the GPU;
// present_global_stride makes the report section.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// One access pattern.
struct StrideBandwidth {
  std::string pattern;       ///< "stride 1" .. "stride 32", "random"
  std::uint32_t stride = 1;  ///< elements between thread-accesses; 0 for the random gather
  double gbps = NAN;         ///< useful bytes (4 per access) over the time, from DRAM
  double relative = NAN;     ///< against stride 1
  double predicted_sectors_per_request = NAN;  ///< the coalescing model
  double predicted_utilization = NAN;  ///< model: bytes asked for / bytes in sectors fetched
  double predicted_relative = NAN;     ///< model utilization against stride 1's
};

/// The "global-stride" probe.
struct GlobalStrideResult {
  std::vector<StrideBandwidth> patterns;  ///< strides 1, 2, 4, 8, 16, 32, then random
  std::size_t buffer_bytes = 0;
  std::size_t l2_bytes = 0;
  double peak_dram_gbps = 0;  ///< the datasheet figure (2 x memory clock x bus width); 0 if unknown
  int model_warps = 0;        ///< warps the model averages over
  int random_share = 0;       ///< the gather makes n / random_share accesses
  double tolerance = 0;       ///< relative, for the stride claims

  /// The pattern with this stride (0: random), or nullptr.
  const StrideBandwidth* find(std::uint32_t stride) const;
};

/// Reads the buffer at each stride and gathers at random, L2 flushed before each launch.
GlobalStrideResult measure_global_stride(Context& ctx);

/// The "global-stride" section: table, chart and claims.
Result present_global_stride(const GlobalStrideResult& m);

}  // namespace memhier::probe
