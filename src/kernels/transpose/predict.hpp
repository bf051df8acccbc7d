// The model's prediction of what Nsight Compute counts for each transpose variant: every
// block, warp and memory instruction the kernel executes, from the same index math
// (index.cuh) and launch geometry (tile_grid) as the kernels. Host-only.
#pragma once

#include <string>

#include "memhier/kernels/transpose.hpp"
#include "memhier/model/access.hpp"
#include "memhier/model/replay.hpp"

namespace memhier::transpose::detail {

/// True when predict() models `v`: its table line names a replay.
bool has_prediction(Variant v);

/// Counts of the kernel `v` launches for a rows x cols transpose of 256-byte aligned
/// buffers (as cudaMalloc returns). Throws std::invalid_argument for a bad shape or a
/// variant without a prediction.
model::AccessCounts predict(Variant v, int rows, int cols);

/// The same from a shape "ROWSxCOLS" (as the family parses it).
model::AccessCounts predict(Variant v, const std::string& shape);

/// The global address stream of the kernel `v` launches at `shape`, tile t as block t, into
/// the memory-system model's sink. Throws std::invalid_argument like predict().
void stream(Variant v, const std::string& shape, model::AccessSink& sink);

}  // namespace memhier::transpose::detail
