// Index math of the bf16 ladder's shared tiles, __host__ __device__ so that the kernels and
// the model's ldmatrix costs (tests/cpu) use the same functions. A tile row holds `cols`
// bf16 (a multiple of 8): 16-byte chunks of 8 elements, the unit of every shared store and
// of each ldmatrix row address.
#pragma once

#include "memhier/core/hd.hpp"

namespace memhier::gemm_bf16::detail {

/// How a tile sits in shared memory: rows back to back, rows padded by one 16-byte chunk,
/// or rows back to back with the chunks XOR-swizzled.
enum class Layout { plain, padded, swizzled };

/// Elements from one tile row to the next.
MEMHIER_HD constexpr int row_stride(Layout l, int cols) {
  return l == Layout::padded ? cols + 8 : cols;
}

/// Elements a tile of `rows` x `cols` occupies.
MEMHIER_HD constexpr int tile_elems(Layout l, int rows, int cols) {
  return rows * row_stride(l, cols);
}

/// Element offset of (row, col) in the tile. Swizzled: the rows that share one 128-byte
/// line form a group; chunk c of row r moves to c ^ (r's group index mod the chunks a line
/// holds), so the 8 rows an ldmatrix matrix reads at one chunk land in 8 different 4-bank
/// groups (and 8 consecutive chunks of a line stay a permutation of the line).
MEMHIER_HD constexpr int tile_offset(Layout l, int row, int col, int cols) {
  if (l != Layout::swizzled) return row * row_stride(l, cols) + col;
  const int chunks = cols / 8;
  const int per_line = chunks >= 8 ? 8 : chunks;  // chunks of one row in one 128-byte line
  const int rows_per_line = 8 / per_line;
  const int chunk = (col >> 3) ^ ((row / rows_per_line) & (per_line - 1));
  return row * cols + chunk * 8 + (col & 7);
}

/// The block tile of the mma rungs (mma_tile.cuh): 128x128x32, 8 warps of 64x32 (2 x 4).
struct MmaTile {
  static constexpr int BM = 128, BN = 128, BK = 32, THREADS = 256;
  static constexpr int WARPS_N = 4, WM = 64, WN = 32;
  static constexpr int FM = WM / 16, FN = WN / 8;  // m16 and n8 fragments per warp
};

/// The block tile of rung 2 (wmma_smem.cu): 64x64x32, 4 warps of 32x32 (2 x 2), tile rows
/// padded by 8 elements (16 bytes), which keeps every WMMA fragment 32-byte aligned.
struct WmmaSmemTile {
  static constexpr int BM = 64, BN = 64, BK = 32, THREADS = 128;
  static constexpr int LDA = BK + 8, LDB = BN + 8;
};

/// The warps of rung 1 (wmma_global.cu): 2 x 2 warps a block, each a 16x16 tile of C.
inline constexpr int kWmmaGlobalWarps = 4;

/// Half a row of a 16x16 tile per lane (the WMMA rungs' staging and epilogue): lane l takes
/// row l / 2, columns (l % 2) * 8 .. + 7.
MEMHIER_HD constexpr void half_row_lane(int lane, int* row, int* col) {
  *row = lane >> 1;
  *col = (lane & 1) * 8;
}

/// The 16-byte chunk `idx` of a tile whose rows hold `cols` elements, as the staging loops
/// hand them out (consecutive threads take consecutive chunks of a row): its row and first
/// column.
MEMHIER_HD constexpr void staging_chunk(int idx, int cols, int* row, int* col) {
  *row = idx / (cols / 8);
  *col = (idx % (cols / 8)) * 8;
}

/// ldmatrix.x4 of a 16x16 A fragment (rows m, columns k): the row and column whose 16 bytes
/// lane `lane` addresses, relative to the fragment. Lanes 0-15: rows 0-15 at k 0; lanes
/// 16-31: rows 0-15 at k 8 (the registers a0..a3 of mma.m16n8k16).
MEMHIER_HD constexpr void a_ldmatrix_lane(int lane, int* row, int* col) {
  *row = lane & 15;
  *col = (lane >> 4) * 8;
}

/// ldmatrix.x4.trans of a 16x16 block of B (rows k, columns n): two n8 fragments. Lanes
/// 0-7 and 8-15: k rows 0-7 and 8-15 at n 0 (b0, b1 of the first); lanes 16-31: the same
/// at n 8 (the second).
MEMHIER_HD constexpr void b_ldmatrix_lane(int lane, int* row, int* col) {
  *row = ((lane >> 3) & 1) * 8 + (lane & 7);
  *col = (lane >> 4) * 8;
}

}  // namespace memhier::gemm_bf16::detail
