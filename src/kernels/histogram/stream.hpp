// The histogram shape (shared by the Case and the streams) and the rungs' global address
// streams for the memory-system model (`memhier simulate`), from the kernels' own index
// math. Host-only.
#pragma once

#include <cstddef>
#include <string>

#include "memhier/model/replay.hpp"

namespace memhier::histogram::detail {

/// A parsed shape: "u8-uniform:268435456" = element type, distribution, element count.
struct HistShape {
  bool u8 = true;
  bool degenerate = false;
  std::size_t n = 0;
  std::string text;
};

/// Parses TYPE-DIST:COUNT (TYPE u8 or i32, DIST uniform or degenerate), or throws
/// std::invalid_argument with a sentence for the user.
HistShape parse_hist_shape(const std::string& shape);

/// Which global instructions a rung issues (the shared-memory work is not streamed).
enum class StreamKind {
  global_atomics,    ///< rung 1: a load and a global atomic per element
  block_privatized,  ///< rungs 2 and 3: the loads, then <= 256 merge atomics per block
  lane_privatized,   ///< rungs 4 and 5: 16-byte loads, one single-lane merge atomic per bin
  lane_pairs,        ///< rung 6 and best: as 4 and 5, half the bins merged per block of a pair
};

/// The stream of a rung of `kind` at `shape`; `smem_bytes`: its static shared memory per block.
void stream_histogram(StreamKind kind, int smem_bytes, const std::string& shape,
                      model::AccessSink& sink);

}  // namespace memhier::histogram::detail
