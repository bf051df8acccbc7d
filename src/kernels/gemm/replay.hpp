// The replay of the GEMM kernels for their predictions (predict.hpp): the problem as the
// kernels see it, the per-warp and per-tile helpers that record one instruction each
// (store1, load4, load_tile4, store4: common.cuh's epilogue and staging), and one replay per
// kernel shape. A rung's table line (gemm_rungs.inc) names the replay predict() runs for it.
// Host-only.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/gemm/index.cuh"
#include "kernels/gemm/variants.hpp"
#include "kernels/predict.hpp"

namespace memhier::gemm::detail::replay {

using kernels::predict::buffer_base;
using kernels::predict::kAllLanes;
using kernels::predict::Recorder;
using kernels::predict::warp_access;
using model::kWarpSize;

/// The problem as the kernels see it (Params with byte addresses instead of pointers).
struct Problem {
  int m = 0, n = 0, k = 0;
  int lda = 0, ldb = 0, ldc = 0;
  bool beta = false;  ///< beta != 0: the epilogue reads C
  bool vec_a = false, vec_b = false, vec_c = false;
  std::uint64_t A = buffer_base(0), B = buffer_base(1), C = buffer_base(2);
};

/// Byte address of element (row, col) of the matrix at `base` with leading dimension ld.
inline std::uint64_t at(std::uint64_t base, int row, int col, int ld) {
  return base + 4 * rm_offset(row, col, ld);
}

/// The block size the rung's launcher reports, checked against the one replayed here.
inline void check_block(Variant v, int threads) {
  if (launcher_for(v).block_threads != threads)
    throw std::logic_error(std::string("gemm predict: ") + to_string(v) +
                           " no longer runs the block size its prediction replays.");
}

/// One warp instruction over lanes 0..31 of warp `warp` of a block of `threads` threads:
/// rule(tid, &address) says whether thread tid takes part and where.
template <class Rule>
void warp_op(Recorder& rec, int warp, int threads, int width, bool store, Rule rule) {
  rec.global(kernels::predict::block_warp_access(warp, threads, width, store, rule));
}
/// One shared-memory instruction of warp `warp` (every lane live), likewise.
template <class Rule>
void warp_shared(Recorder& rec, int warp, int width, bool store, Rule rule) {
  rec.shared(warp_access(kAllLanes, width, store, [&](int lane, std::uint64_t* a) {
    return rule(warp * kWarpSize + lane, a);
  }));
}

/// store1 (common.cuh) at C(row, col) for the lanes `on`: LDG.E of C when beta != 0 (a
/// branch on beta in the SASS), then STG.E.
template <class On>
void store1(Recorder& rec, const Problem& p, int warp, int threads, On on) {
  for (int pass = p.beta ? 0 : 1; pass < 2; ++pass)
    warp_op(rec, warp, threads, 4, pass == 1, [&](int tid, std::uint64_t* a) {
      int row = 0, col = 0;
      if (!on(tid, &row, &col)) return false;
      *a = at(p.C, row, col, p.ldc);
      return true;
    });
}

/// load4 (common.cuh) of the four floats at `first` with `avail` valid, for lanes `on`:
/// one LDG.E.128 for the lanes where vec && avail >= 4, else LDG.E of each element j <
/// avail (the SASS's scalar path, one instruction per element).
template <class Rule>
void load4(Recorder& rec, int w, int threads, bool vec, Rule rule) {
  warp_op(rec, w, threads, 16, false, [&](int tid, std::uint64_t* a) {
    int avail = 0;
    *a = rule(tid, &avail);
    return vec && avail >= 4;
  });
  for (int j = 0; j < 4; ++j)
    warp_op(rec, w, threads, 4, false, [&](int tid, std::uint64_t* a) {
      int avail = 0;
      *a = rule(tid, &avail) + 4u * static_cast<unsigned>(j);
      return !(vec && avail >= 4) && j < avail;
    });
}

/// Where the i-th float4 that thread tid stages sits in a tile whose rows hold
/// `row_floats` floats (block_tile.cuh's a_slot and b_slot; the staging loops of
/// vectorized and warp_tiled): row r, first column c.
struct Slot {
  int r = 0, c = 0;
};
inline Slot tile_slot(int tid, int i, int threads, int row_floats) {
  const int idx = tid + i * threads;
  return {idx / (row_floats / 4), (idx % (row_floats / 4)) * 4};
}

/// A row-major operand as a staging loop reads it: A is m x k, B is k x n.
struct Operand {
  std::uint64_t base;
  int rows, cols, ld;
};
inline Operand operand_a(const Problem& p) {
  return {p.A, p.m, p.k, p.lda};
}
inline Operand operand_b(const Problem& p) {
  return {p.B, p.k, p.n, p.ldb};
}

/// load4 of the float4 of `x` at row r0 + s.r, columns c0 + s.c.. (s = slot(tid)): the
/// staging of A (r0 = m0, c0 = k0) and of B (r0 = k0, c0 = n0); a row past the operand's
/// last loads nothing.
template <class SlotOf>
void load_tile4(Recorder& rec, const Operand& x, int w, int threads, bool vec, int r0, int c0,
                SlotOf slot) {
  load4(rec, w, threads, vec, [&](int tid, int* avail) {
    const Slot s = slot(tid);
    const bool ok = r0 + s.r < x.rows;
    *avail = ok ? x.cols - (c0 + s.c) : 0;
    return at(x.base, ok ? r0 + s.r : 0, c0 + s.c, x.ld);
  });
}

/// store4 (common.cuh) of C(row, col..col+3) for the lanes inside C, where
/// place(tid, &row, &col) gives thread tid's first output: one STG.E.128 (after an
/// LDG.E.128 of C if beta) where vec_c and 4 columns remain, else store1 of each remaining
/// column.
template <class Place>
void store4(Recorder& rec, const Problem& p, int w, int threads, Place place) {
  const auto inside = [&](int tid, int* row, int* col) {
    place(tid, row, col);
    return *row < p.m && *col < p.n;
  };
  const auto vector = [&](int tid) {
    int row = 0, col = 0;
    return inside(tid, &row, &col) && p.vec_c && p.n - col >= 4;
  };
  for (int pass = p.beta ? 0 : 1; pass < 2; ++pass)
    warp_op(rec, w, threads, 16, pass == 1, [&](int tid, std::uint64_t* a) {
      int row = 0, col = 0;
      place(tid, &row, &col);
      *a = at(p.C, row, col, p.ldc);
      return vector(tid);
    });
  for (int e = 0; e < 4; ++e)
    store1(rec, p, w, threads, [&](int tid, int* row, int* col) {
      if (!inside(tid, row, col) || vector(tid) || p.n - *col <= e) return false;
      *col += e;
      return true;
    });
}

/// A rung's replay: records every global and shared instruction its kernel executes for
/// `p` (v: the rung, for a replay several rungs share).
using Replay = void (*)(Recorder& rec, const Problem& p, Variant v);

/// What a table line names for a rung the model does not cover: it has no prediction.
inline constexpr Replay none = nullptr;

// One replay per kernel shape (replay.cpp); the table names them.
void naive(Recorder& rec, const Problem& p, Variant v);        ///< naive.cu
void coalesced(Recorder& rec, const Problem& p, Variant v);    ///< coalesced.cu
void smem_tile16(Recorder& rec, const Problem& p, Variant v);  ///< smem_tile<16, 0, 1>
void smem_tile32(Recorder& rec, const Problem& p, Variant v);  ///< smem_tile<32, 0, 1>
void smem_tile64(Recorder& rec, const Problem& p, Variant v);  ///< smem_tile<64, 0, 4>
void padded(Recorder& rec, const Problem& p, Variant v);       ///< smem_tile<32, 1, 1>
void reg_tile_1d(Recorder& rec, const Problem& p, Variant v);  ///< reg_tile_1d.cu
void reg_tile_2d(Recorder& rec, const Problem& p, Variant v);  ///< reg_tile_2d.cu
void vectorized(Recorder& rec, const Problem& p, Variant v);   ///< vectorized.cu
void warp_tiled(Recorder& rec, const Problem& p, Variant v);   ///< warp_tiled.cu
/// block_tile.cuh at the rung's launcher's TileShape: double_buffered, cp_async_*, swizzled
/// and best's candidates.
void block_tile(Recorder& rec, const Problem& p, Variant v);
/// scale.cu, the alpha == 0 path of every rung (throws std::invalid_argument for n > 16,384).
void scale_c(Recorder& rec, const Problem& p);

}  // namespace memhier::gemm::detail::replay
