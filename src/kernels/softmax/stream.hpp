// The softmax kernels' global address streams for the memory-system model (`memhier
// simulate`), from the kernels' own index math (index.cuh). Host-only.
#pragma once

#include "memhier/model/replay.hpp"

namespace memhier::softmax::detail {

/// Rung 7 (warp_per_row.cu) on rows x cols (cols <= 1024): blocks of 4 warps, each warp one
/// row (two when a lane holds at most 4 elements), loads at index::warp_row_col, then the
/// stores; PACK and the elements per lane from index::warp_row_pack / warp_row_elems.
void stream_warp_per_row(int rows, int cols, model::AccessSink& sink);

/// Rung 6 (online.cu, two_pass.cuh without a cluster): a block of 256 per row, 4 packs in
/// flight per thread; pass 1 reads the row, pass 2 reads it again and writes it.
void stream_online(int rows, int cols, model::AccessSink& sink);

}  // namespace memhier::softmax::detail
