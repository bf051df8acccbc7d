// The gather probe's measurement as plain numbers: out[i] = data[idx[i]] over a buffer far
// beyond L2, once with the indices sorted (coalesced runs) and once with the same indices
// shuffled, timed paired. measure_gather runs the GPU; present_gather makes the section.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "memhier/core/hd.hpp"
#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// The shuffled gather's index for position i of a 2^bits-element buffer (1 <= bits <= 32):
/// three rounds of an odd multiply, an add and a right xorshift, each a bijection on
/// [0, 2^bits), so the shuffled indices are a permutation of the sorted ones (0, 1, 2, ...)
/// and neighbouring positions land far apart.
MEMHIER_HD inline std::uint32_t gather_shuffled_index(std::uint32_t i, int bits) {
  const std::uint32_t mask = bits >= 32 ? 0xffffffffu : (1u << bits) - 1u;
  const int shift = bits / 2 + 1;
  std::uint32_t x = i & mask;
  for (std::uint32_t r = 1; r <= 3; ++r) {
    x = (x * 0x9e3779b1u + r * 0x7f4a7c15u) & mask;
    x ^= x >> shift;
  }
  return x;
}

/// One index order of the gather.
struct GatherOrder {
  std::string order;            ///< "sorted" or "shuffled"
  double median_ms = NAN;       ///< one launch, L2 flushed before it
  double useful_gbps = NAN;     ///< 4 gathered bytes per element over the time
  double requested_gbps = NAN;  ///< index, gathered and output bytes (12 per element)
};

/// The "gather" probe.
struct GatherResult {
  std::uint64_t elements = 0;       ///< floats gathered (and in the buffer): a power of two
  std::uint64_t l2_bytes = 0;       ///< the L2 size from the properties
  std::vector<GatherOrder> orders;  ///< sorted, then shuffled
  /// Paired per-round ratio shuffled time / sorted time (the speedup sorting gives), with
  /// its 10th and 90th percentiles.
  double speedup = NAN, speedup_p10 = NAN, speedup_p90 = NAN;
  std::vector<std::string> notes;  ///< caveats of this run (a buffer under 4x L2)

  /// Bytes of the gathered buffer.
  double buffer_bytes() const { return 4.0 * static_cast<double>(elements); }
};

/// Times the sorted and the shuffled gather, paired, with every SM busy.
GatherResult measure_gather(Context& ctx);

/// The "gather" section: both orders, the speedup, the claim judged and a chart.
Result present_gather(const GatherResult& m);

}  // namespace memhier::probe
