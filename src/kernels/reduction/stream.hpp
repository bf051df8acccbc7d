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
/// tiles is one round of the loop), the scalar head and tail on tile 0. A single pass
/// (single_pass_finish) ends each block's last tile with thread 0's partial, its fence and
/// ticket, and the last block reads the partials; a two-pass rung's partials are left out.
enum class Finish {
  two_pass,  ///< partials for a second launch (not streamed)
  fences,    ///< __threadfence, atomicInc, and a fence in the last block
  acq_rel    ///< one acquire-release fetch_add at device scope
};
enum class GridLoad {
  cached,           ///< ld.global (allocates in L1)
  l2_256b,          ///< ld.global.nc.L1::no_allocate.L2::256B (SASS LDG.E.NA.LTC256B)
  async_copy_l1_bypass  ///< cp.async.cg (SASS LDGSTS.E.BYPASS)
};
void stream_grid(int block_threads, int unroll, GridLoad load, Finish finish,
                 const std::string& shape, model::AccessSink& sink);

}  // namespace memhier::reduction::detail
