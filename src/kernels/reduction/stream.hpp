// The reduction kernels' global address streams for the memory-system model (`memhier
// simulate`), from the kernels' own index math (index.cuh). Host-only.
#pragma once

#include <string>

#include "memhier/model/replay.hpp"

namespace memhier::reduction::detail {

/// A classic rung's first pass over n = shape floats: block b loads elements
/// classic_element(b, tid, elems_per_block) (and + 256 when elems_per_block is 512), thread 0
/// stores the block's partial. Later passes (n / elems_per_block floats and fewer) are left
/// out: the memory-system model replays one launch.
void stream_classic(std::size_t elems_per_block, const std::string& shape, model::AccessSink& sink);

/// A grid-stride rung (grid_stride.cuh): float4 loads in tiles of block_threads x unroll
/// vectors, tile t as block t (tile t runs on block t mod grid in the kernel, so a wave of
/// tiles is one round of the loop), the scalar head and tail on tile 0; the block partials
/// (grid floats) are left out. `l1_cached`: false for loads that do not allocate in L1;
/// `l2_promote_bytes`: the loads' L2 fetch hint (256 for ld.global.L2::256B), 0 for none.
void stream_grid(int block_threads, int unroll, bool l1_cached, const std::string& shape,
                 model::AccessSink& sink, int l2_promote_bytes = 0);

}  // namespace memhier::reduction::detail
