// Index math of the softmax kernels, host and device: the kernels use these functions,
// and a cost model can feed the same functions a warp's lanes to predict its accesses.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "memhier/core/hd.hpp"
#include "memhier/core/math.hpp"

namespace memhier::softmax::index {

using core::ceil_div;

/// First element of row `row` in a row-major rows x cols matrix (64-bit: rows*cols may
/// pass 2^31).
MEMHIER_HD inline std::size_t row_start(std::size_t row, int cols) {
  return row * static_cast<std::size_t>(cols);
}

/// warp_per_row: the column of the j-th of the CPL elements that lane `lane` holds when
/// it loads PACK consecutive floats per access (access a = j / PACK covers 32*PACK
/// columns, lane-major).
MEMHIER_HD inline int warp_row_col(int lane, int j, int pack) {
  return (j / pack) * 32 * pack + lane * pack + j % pack;
}

/// warp_per_row: elements a lane holds (CPL) for a row of `cols` columns, the power of two
/// at or above cols / 32 (1 .. 32); with float4 packs at least 4.
MEMHIER_HD inline int warp_row_elems(int cols, int pack) {
  int per_lane = 1;
  while (per_lane < 32 && per_lane * 32 < cols) per_lane *= 2;
  return pack == 4 && per_lane < 4 ? 4 : per_lane;
}

/// warp_per_row: floats per access (PACK), float4 where rows are 16-byte aligned (`vec4`)
/// and longer than 64 columns, else 1.
MEMHIER_HD inline int warp_row_pack(int cols, bool vec4) {
  return vec4 && cols > 64 ? 4 : 1;
}

/// A row split over a cluster of blocks: the first unit of chunk `rank` (64-bit: rank *
/// chunk may pass the row's end by up to a chunk).
MEMHIER_HD inline long long chunk_begin(int rank, int chunk_units) {
  return static_cast<long long>(rank) * chunk_units;
}

/// The units in chunk `rank` (0 for a chunk past the row's end).
MEMHIER_HD inline int chunk_count(int rank, int chunk_units, int row_units) {
  const long long left = row_units - chunk_begin(rank, chunk_units);
  return left <= 0 ? 0 : (left < chunk_units ? static_cast<int>(left) : chunk_units);
}

}  // namespace memhier::softmax::index
