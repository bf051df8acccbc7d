// The local-memory probe's measurement as plain numbers: every resident thread writes and
// reads back a per-thread array that the compiler must place in local memory, far beyond
// L1 and L2 in all, beside the same stream through a global buffer laid out as local memory
// is. measure_local runs the GPU; present_local makes the report section.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// The "local-memory" probe.
struct LocalResult {
  int array_bytes = 0;                     ///< the per-thread array
  int local_bytes = -1;                    ///< the kernel's cudaFuncAttributes::localSizeBytes
  std::uint64_t threads = 0;               ///< resident threads of the launch (every SM full)
  int sm_count = 0;                        ///< SMs of the device (per-SM footprint)
  std::uint64_t l2_bytes = 0;              ///< the L2 size from the properties
  double bytes_per_launch = NAN;           ///< written + read, each launch
  double local_ms = NAN, global_ms = NAN;  ///< median launch times
  double local_gbps = NAN;                 ///< bytes written + read over the local kernel's time
  double global_gbps = NAN;                ///< the same stream through a global buffer
  /// Paired per-round ratio global time / local time (above 1: local is faster), with its
  /// 10th and 90th percentiles.
  double local_over_global = NAN, p10 = NAN, p90 = NAN;
  std::string unmeasured;  ///< why nothing was timed; empty when it was

  /// Bytes all threads' arrays span: what must exceed L1 and L2 for the stream to reach HBM.
  double footprint_bytes() const {
    return static_cast<double>(threads) * static_cast<double>(array_bytes);
  }
};

/// Times the local-memory stream and its global twin, paired, with every SM full.
LocalResult measure_local(Context& ctx);

/// The "local-memory" section, its claim and the summary's local bandwidth.
Result present_local(const LocalResult& m);

}  // namespace memhier::probe
