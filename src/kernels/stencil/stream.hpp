// The stencil kernels' global address streams for the memory-system model (`memhier
// simulate`), from the kernels' own index math (index.cuh). Host-only.
#pragma once

#include "memhier/model/replay.hpp"

namespace memhier::stencil::detail {

/// Rungs 1 and 2 (per_output.cuh) on a rows x cols image with a k x k filter: tile t (32 x 8
/// outputs) as block t, each warp one output row; every tap an input load, preceded by the
/// filter tap's load when `global_filter` (rung 1; rung 2 reads __constant__ memory, outside
/// the model), then the output store.
void stream_per_output(int rows, int cols, int k, bool global_filter, model::AccessSink& sink);

}  // namespace memhier::stencil::detail
