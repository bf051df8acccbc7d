// The attention rungs' global address streams for the memory-system model (`memhier simulate`
// and the profile's traffic comparison), from the kernels' own index math (index.cuh) and
// launch geometry (each rung's x_geometry). Global accesses only: the shared-memory side is
// not replayed, so the rungs have a stream and no per-instruction prediction. Host-only.
#pragma once

#include "memhier/kernels/attention.hpp"
#include "memhier/model/replay.hpp"

namespace memhier::attention::detail {

/// Whether `v` has a stream (every rung now; `best` is compared as the rung it runs).
bool has_stream(Variant v);

/// The global accesses `forward(v, ...)` makes at `s`, kernel by kernel, block by block in
/// launch order, Q, K, V, O (and the unfused rung's S, P) in separate buffers. The unfused
/// rung streams its three kernels (scores, the softmax ladder's warp_per_row, P V) as three
/// launches; where the softmax's best is another rung (seq_k above its warp_per_row limit)
/// it streams a launch with no access (no prediction). Throws std::invalid_argument for
/// `best` or a head_dim the rungs do not take.
void stream(Variant v, const Shape& s, model::AccessSink& sink);

}  // namespace memhier::attention::detail
