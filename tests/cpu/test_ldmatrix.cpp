// The model's ldmatrix cost (model::ldmatrix_cost) on hand-computed row patterns, then on the
// bf16 ladder's own tiles through the index math its kernels use (layout.cuh): unpadded
// tiles conflict (A's 64-byte rows 4-way, B's 256-byte rows 8-way), padded and swizzled
// tiles do not. Host code only.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

#include "../../src/kernels/gemm_bf16/layout.cuh"
#include "memhier/model/access.hpp"

namespace {

using memhier::model::AccessCounts;
using memhier::model::ldmatrix_cost;
using memhier::model::SharedCost;
using memhier::model::WarpAccess;
namespace bf16 = memhier::gemm_bf16::detail;

/// Lane l gives row (l % 8) of matrix l / 8 at base + matrix * 128 + row * stride bytes.
WarpAccess rows_at(std::uint64_t stride) {
  WarpAccess w;
  w.width_bytes = 16;
  for (int l = 0; l < 32; ++l) w.address[l] = (l / 8) * 128 + (l % 8) * stride;
  return w;
}

TEST(Ldmatrix, HandComputedRowPatterns) {
  // 8 rows of 16 bytes back to back: 128 bytes over all 32 banks, 1 wavefront a matrix.
  SharedCost c = ldmatrix_cost(rows_at(16), 4);
  EXPECT_EQ(c.wavefronts, 4);
  EXPECT_EQ(c.ideal_wavefronts, 4);
  EXPECT_EQ(c.conflicts, 0);
  // 128-byte rows: every row on banks 0-3, 8 words a bank: 8 wavefronts a matrix.
  c = ldmatrix_cost(rows_at(128), 4);
  EXPECT_EQ(c.wavefronts, 32);
  EXPECT_EQ(c.degree, 8);
  // 64-byte rows: rows 0, 2, 4, 6 on banks 0-3 and 1, 3, 5, 7 on banks 16-19: 4-way.
  c = ldmatrix_cost(rows_at(64), 4);
  EXPECT_EQ(c.wavefronts, 16);
  EXPECT_EQ(c.degree, 4);
  // 80-byte rows (64 + 16 of padding): rows start 20 words apart, 8 distinct 4-bank groups.
  EXPECT_EQ(ldmatrix_cost(rows_at(80), 4).wavefronts, 4);
  // .x1 and .x2 read the addresses of lanes 0-7 and 0-15 only.
  EXPECT_EQ(ldmatrix_cost(rows_at(128), 1).wavefronts, 8);
  EXPECT_EQ(ldmatrix_cost(rows_at(128), 2).wavefronts, 16);
  EXPECT_EQ(ldmatrix_cost(rows_at(16), 2).ideal_wavefronts, 2);
  // Eight lanes naming one row read it once.
  EXPECT_EQ(ldmatrix_cost(rows_at(0), 4).wavefronts, 4);
  // Rows are 16 bytes; a matrix count other than 1, 2, 4 is no ldmatrix.
  WarpAccess narrow = rows_at(16);
  narrow.width_bytes = 8;
  EXPECT_THROW(ldmatrix_cost(narrow, 4), std::invalid_argument);
  EXPECT_THROW(ldmatrix_cost(rows_at(16), 3), std::invalid_argument);
  // Counted as shared loads.
  AccessCounts counts;
  counts.add_ldmatrix(rows_at(128), 4);
  EXPECT_EQ(counts.shared_ld_instructions, 1);
  EXPECT_EQ(counts.shared_ld_wavefronts, 32);
  EXPECT_EQ(counts.shared_ld_ideal, 4);
}

using bf16::Layout;
using T = bf16::MmaTile;

/// Wavefronts of every ldmatrix.x4 one k-tile costs a block (8 warps), A's and B's.
struct TileCost {
  long long a = 0, b = 0, a_ideal = 0, b_ideal = 0;
};

TileCost ldmatrix_per_tile(Layout l) {
  TileCost t;
  for (int warp = 0; warp < T::THREADS / 32; ++warp) {
    const int wm = (warp / T::WARPS_N) * T::WM, wn = (warp % T::WARPS_N) * T::WN;
    for (int kk = 0; kk < T::BK; kk += 16) {
      for (int i = 0; i < T::FM; ++i) {
        WarpAccess w;
        w.width_bytes = 16;
        for (int lane = 0; lane < 32; ++lane) {
          int r = 0, c = 0;
          bf16::a_ldmatrix_lane(lane, &r, &c);
          w.address[lane] = 2u * bf16::tile_offset(l, wm + 16 * i + r, kk + c, T::BK);
        }
        const SharedCost s = ldmatrix_cost(w, 4);
        t.a += s.wavefronts;
        t.a_ideal += s.ideal_wavefronts;
      }
      for (int j = 0; j < T::FN / 2; ++j) {
        WarpAccess w;
        w.width_bytes = 16;
        for (int lane = 0; lane < 32; ++lane) {
          int r = 0, c = 0;
          bf16::b_ldmatrix_lane(lane, &r, &c);
          w.address[lane] = 2u * bf16::tile_offset(l, kk + r, wn + 16 * j + c, T::BN);
        }
        const SharedCost s = ldmatrix_cost(w, 4);
        t.b += s.wavefronts;
        t.b_ideal += s.ideal_wavefronts;
      }
    }
  }
  return t;
}

// Per k-tile a block issues 8 warps x 2 k16 steps x (4 A + 2 B) ldmatrix.x4: 64 A and 32 B,
// 4 wavefronts each when conflict-free.
TEST(Ldmatrix, MmaTilesPaddedAndSwizzledAreConflictFree) {
  for (Layout l : {Layout::padded, Layout::swizzled}) {
    const TileCost t = ldmatrix_per_tile(l);
    EXPECT_EQ(t.a, 64 * 4);
    EXPECT_EQ(t.b, 32 * 4);
    EXPECT_EQ(t.a_ideal, t.a);
    EXPECT_EQ(t.b_ideal, t.b);
  }
  // Unpadded: A rows are 64 bytes (4-way), B rows 256 bytes (8-way).
  const TileCost plain = ldmatrix_per_tile(Layout::plain);
  EXPECT_EQ(plain.a, 64 * 4 * 4);
  EXPECT_EQ(plain.b, 32 * 4 * 8);
  EXPECT_EQ(plain.a_ideal, 64 * 4);
}

/// Wavefronts of the 16-byte shared stores that stage one k-tile of A (or B) in layout l:
/// thread t stores chunks t and t + 256 (staging_chunk).
long long store_wavefronts(Layout l, bool a_tile) {
  const int cols = a_tile ? T::BK : T::BN;
  long long total = 0;
  for (int i = 0; i < 2; ++i)
    for (int warp = 0; warp < T::THREADS / 32; ++warp) {
      WarpAccess w;
      w.width_bytes = 16;
      w.is_store = true;
      for (int lane = 0; lane < 32; ++lane) {
        int r = 0, c = 0;
        bf16::staging_chunk(warp * 32 + lane + i * T::THREADS, cols, &r, &c);
        w.address[lane] = 2u * bf16::tile_offset(l, r, c, cols);
      }
      total += memhier::model::shared_cost(w).wavefronts;
    }
  return total;
}

// 16 store instructions per tile, 4 quarter-warp wavefronts each when conflict-free. Padded
// A rows are 80 bytes: a quarter-warp stores rows r and r + 1 (4 chunks each), and the last
// chunk of row r + 1 (bytes 128-143 past row r) shares banks 0-3 with row r's first: 2-way.
// The swizzle keeps a quarter-warp in one 128-byte line.
TEST(Ldmatrix, StagingStoresOfTheMmaTiles) {
  EXPECT_EQ(store_wavefronts(Layout::swizzled, true), 16 * 4);
  EXPECT_EQ(store_wavefronts(Layout::plain, true), 16 * 4);
  EXPECT_EQ(store_wavefronts(Layout::padded, true), 16 * 4 * 2);
  for (Layout l : {Layout::plain, Layout::padded, Layout::swizzled})
    EXPECT_EQ(store_wavefronts(l, false), 16 * 4);
}

// The swizzle is a permutation of each row's chunks (no two elements share a slot).
TEST(Ldmatrix, SwizzleIsAPermutationOfEachRow) {
  for (int cols : {T::BK, T::BN}) {
    const int rows = cols == T::BK ? T::BM : T::BK;
    for (int r = 0; r < rows; ++r) {
      std::uint64_t seen = 0;
      for (int c = 0; c < cols; c += 8) {
        const int o = bf16::tile_offset(Layout::swizzled, r, c, cols) - r * cols;
        ASSERT_EQ(o % 8, 0);
        ASSERT_LT(o, cols);
        seen |= std::uint64_t{1} << (o / 8);
      }
      EXPECT_EQ(seen, (std::uint64_t{1} << (cols / 8)) - 1) << "row " << r;
    }
  }
}

}  // namespace
