// Predictions for the transpose ladder (see predict.hpp). Each kernel is replayed tile by
// tile and warp by warp with the kernel's own index functions; every global and shared
// instruction the SASS executes is recorded with the lanes that are on for it.
//
// Blocks loop over tiles (t = blockIdx.x; t += gridDim.x), so every tile is done exactly
// once by some block with the same instructions whatever the grid: the counts do not
// depend on the grid size, which for the persistent rung comes from the device
// (resident_grid) and is unknown here.
#include "kernels/transpose/predict.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/predict.hpp"
#include "kernels/transpose/index.cuh"
#include "kernels/transpose/variants.hpp"
#include "memhier/registry/family.hpp"

namespace memhier::transpose::detail {
namespace {

using kernels::predict::buffer_base;
using kernels::predict::Recorder;
using kernels::predict::warp_access;
using model::WarpAccess;

const std::uint64_t kIn = buffer_base(0);   // the input (rows x cols)
const std::uint64_t kOut = buffer_base(1);  // the output (cols x rows)
constexpr std::uint64_t kFloat = 4, kFloat4 = 16;
constexpr std::uint32_t kAllLanes = 0xffffffffu;

// tiled_transpose<Layout> (tiled.cuh): tile, padded and swizzled differ only in `word`.
// SASS per tile and warp: read phase 4 x (LDG.E, STS), write phase 4 x (LDS, STG.E),
// each under its bounds check.
// `words`: the shared tile's size in floats (the stream's shared memory per block).
template <class Word>
void tiled(Recorder& rec, int rows, int cols, Word word, int words) {
  rec.launch(kBlockThreads, words * static_cast<int>(kFloat));
  const TileGrid g = tile_grid(rows, cols, index::kTile, index::kTile);
  for (unsigned t = 0; t < g.count; ++t) {
    long long row0 = 0, col0 = 0;
    index::tile_origin(t, g.tiles_x, index::kTile, index::kTile, &row0, &col0);
    for (int ty = 0; ty < index::kBlockRows; ++ty) {
      rec.at(t, ty);
      // Read: lanes along an input row.
      for (int k = 0; k < index::kTile; k += index::kBlockRows) {
        const long long r = row0 + ty + k;
        auto on = [&](int tx) { return r < rows && col0 + tx < cols; };
        rec.global(warp_access(kAllLanes, 4, false, [&](int tx, std::uint64_t* a) {
          *a = kIn + kFloat * index::in_offset(r, col0 + tx, cols);
          return on(tx);
        }));
        rec.shared(warp_access(kAllLanes, 4, true, [&](int tx, std::uint64_t* a) {
          *a = kFloat * static_cast<std::uint64_t>(word(ty + k, tx));
          return on(tx);
        }));
      }
    }
    for (int ty = 0; ty < index::kBlockRows; ++ty) {
      rec.at(t, ty);
      // Write: lanes along an output row (input rows row0 + tx of input column cc).
      for (int k = 0; k < index::kTile; k += index::kBlockRows) {
        const long long cc = col0 + ty + k;
        auto on = [&](int tx) { return row0 + tx < rows && cc < cols; };
        rec.shared(warp_access(kAllLanes, 4, false, [&](int tx, std::uint64_t* a) {
          *a = kFloat * static_cast<std::uint64_t>(word(tx, ty + k));
          return on(tx);
        }));
        rec.global(warp_access(kAllLanes, 4, true, [&](int tx, std::uint64_t* a) {
          *a = kOut + kFloat * index::out_offset(row0 + tx, cc, rows);
          return on(tx);
        }));
      }
    }
  }
}

// vectorized_kernel<TH, TW> (vectorized.cu), 256 threads in 8 warps, one 4x4 block each.
// SASS per tile and warp (sm_90, nvcc 13.0): load phase behind a branch on full || in
// bounds, 4 LDG.E.128.CONSTANT then 4 STS.128; store phase 4 LDS.128 for every thread, then
// the kPasses = 4 streaming stores (st.global.cs.v4.f32), unchecked on full tiles, each
// under its own check on edge tiles: one 16-byte store per lane each. `prefetch`: the
// prefetch rung, whose first TH threads each bulk-prefetch one TW-float input row of tile
// t + ahead into L2 before the loads (prefetch_tile: full tiles only), `ahead` a twelfth of
// the blocks the sink's card holds at once, the launcher's rule. The sink's occupancy assumes
// 32 registers a thread, so where the kernel's own registers bind it counts more blocks than
// the launcher does (a named card's data, not a rule: on the H100 SXM, sm_90 code of nvcc
// 13.0 at 40 registers, the device holds 6 blocks an SM and the sink 8).
template <int TH, int TW>
void vectorized(Recorder& rec, int rows, int cols, bool prefetch = false) {
  constexpr int kChunks = TH / 4;
  constexpr int kRowsPerPass = index::vec_rows_per_pass(TH);
  constexpr int kPasses = TW / kRowsPerPass;
  constexpr int kWarps = index::kVecThreads / model::kWarpSize;
  rec.launch(index::kVecThreads, TH * TW * static_cast<int>(kFloat));
  const unsigned ahead =
      prefetch ? std::max(1u, static_cast<unsigned>(rec.resident_blocks() / 12)) : 0;
  const TileGrid g = tile_grid(rows, cols, TH, TW);
  for (unsigned t = 0; t < g.count; ++t) {
    long long row0 = 0, col0 = 0;
    index::tile_origin(t, g.tiles_x, TH, TW, &row0, &col0);
    const bool full = row0 + TH <= rows && col0 + TW <= cols;
    for (int w = 0; w < kWarps; ++w) {
      rec.at(t, w);
      const unsigned u = t + ahead;
      if (ahead > 0 && u < g.count && w * model::kWarpSize < TH) {
        long long pr = 0, pc = 0;
        index::tile_origin(u, g.tiles_x, TH, TW, &pr, &pc);
        if (pr + TH <= rows && pc + TW <= cols)
          for (int lane = 0; lane < model::kWarpSize && w * model::kWarpSize + lane < TH; ++lane)
            rec.l2_prefetch(
                kIn + kFloat * index::in_offset(pr + w * model::kWarpSize + lane, pc, cols),
                TW * kFloat);
      }
      auto load_on = [&](int lane, long long* r, long long* c, int* a, int* q) {
        index::vec_load_role(w * model::kWarpSize + lane, TW, a, q);
        *r = row0 + 4 * *a;
        *c = col0 + 4 * *q;
        return full || (*r < rows && *c < cols);
      };
      for (int j = 0; j < 4; ++j)
        rec.global(warp_access(kAllLanes, 16, false, [&](int lane, std::uint64_t* addr) {
          long long r = 0, c = 0;
          int a = 0, q = 0;
          const bool on = load_on(lane, &r, &c, &a, &q);
          *addr = kIn + kFloat * index::in_offset(r + j, c, cols);
          return on;
        }));
      for (int j = 0; j < 4; ++j)
        rec.shared(warp_access(kAllLanes, 16, true, [&](int lane, std::uint64_t* addr) {
          long long r = 0, c = 0;
          int a = 0, q = 0;
          const bool on = load_on(lane, &r, &c, &a, &q);
          *addr = kFloat4 * static_cast<std::uint64_t>(index::vec_slot(4 * q + j, a, kChunks));
          return on;
        }));
    }
    for (int w = 0; w < kWarps; ++w) {
      rec.at(t, w);
      auto role = [&](int lane, int* p, int* cc0) {
        index::vec_store_role(w * model::kWarpSize + lane, TH, p, cc0);
      };
      for (int i = 0; i < kPasses; ++i)
        rec.shared(warp_access(kAllLanes, 16, false, [&](int lane, std::uint64_t* addr) {
          int p = 0, cc0 = 0;
          role(lane, &p, &cc0);
          *addr = kFloat4 *
                  static_cast<std::uint64_t>(index::vec_slot(cc0 + i * kRowsPerPass, p, kChunks));
          return true;
        }));
      for (int i = 0; i < kPasses; ++i)
        rec.global(warp_access(kAllLanes, 16, true, [&](int lane, std::uint64_t* addr) {
          int p = 0, cc0 = 0;
          role(lane, &p, &cc0);
          const long long out_col = row0 + 4 * p;
          const long long out_row = col0 + cc0 + i * kRowsPerPass;
          *addr = kOut + kFloat * index::out_offset(out_col, out_row, rows);
          return full || (out_col < rows && out_row < cols);
        }));
    }
  }
}

// The replays a table line (transpose_rungs.inc) names: each records what its kernel
// executes for a rows x cols transpose. Buffers from cudaMalloc are 16-byte aligned, so the
// float4 path of the vectorized kernels runs iff rows and cols are multiples of 4.
namespace replay {

using Replay = void (*)(Recorder& rec, int rows, int cols);
constexpr Replay none = nullptr;  ///< a rung with no prediction

// naive_kernel (naive.cu), 32x8 threads: warp w is thread row ty = w, lanes run along tx.
// SASS per tile and warp: the four k-steps unrolled, each LDG.E (4 bytes) then STG.E
// under the bounds check; see the report for whether the check is a branch or a predicate.
void naive(Recorder& rec, int rows, int cols) {
  rec.launch(kBlockThreads, 0);
  const TileGrid g = tile_grid(rows, cols, index::kTile, index::kTile);
  for (unsigned t = 0; t < g.count; ++t) {
    long long row0 = 0, col0 = 0;
    index::tile_origin(t, g.tiles_x, index::kTile, index::kTile, &row0, &col0);
    for (int ty = 0; ty < index::kBlockRows; ++ty)
      for (int k = 0; k < index::kTile; k += index::kBlockRows) {
        if (k == 0) rec.at(t, ty);
        const long long r = row0 + ty + k;
        auto in_bounds = [&](int tx) { return r < rows && col0 + tx < cols; };
        const WarpAccess ld = warp_access(kAllLanes, 4, false, [&](int tx, std::uint64_t* a) {
          *a = kIn + kFloat * index::in_offset(r, col0 + tx, cols);
          return in_bounds(tx);
        });
        const WarpAccess st = warp_access(kAllLanes, 4, true, [&](int tx, std::uint64_t* a) {
          *a = kOut + kFloat * index::out_offset(r, col0 + tx, rows);
          return in_bounds(tx);
        });
        rec.global(ld);
        rec.global(st);
      }
  }
}

void tile(Recorder& rec, int rows, int cols) {
  tiled(
      rec, rows, cols, [](int r, int c) { return index::tile_word(r, c); },
      index::kTile * index::kTile);
}

void padded(Recorder& rec, int rows, int cols) {
  tiled(
      rec, rows, cols, [](int r, int c) { return index::padded_word(r, c); },
      index::kTile * (index::kTile + 1));
}

void swizzled(Recorder& rec, int rows, int cols) {
  tiled(
      rec, rows, cols, [](int r, int c) { return index::swizzled_word(r, c); },
      index::kTile * index::kTile);
}

// vectorized_kernel<64, 64>, or the padded fallback on unaligned shapes; the bulk prefetch
// of best_64x64_prefetch is no LSU access (it goes to L2).
void vectorized_64x64(Recorder& rec, int rows, int cols) {
  if (rows % 4 == 0 && cols % 4 == 0)
    vectorized<64, 64>(rec, rows, cols);
  else
    padded(rec, rows, cols);
}

void vectorized_32x128(Recorder& rec, int rows, int cols) {
  if (rows % 4 == 0 && cols % 4 == 0)
    vectorized<32, 128>(rec, rows, cols);
  else
    padded(rec, rows, cols);
}

// best_64x64_prefetch's stream: vectorized_64x64 with the bulk prefetches, or the padded
// fallback.
void vectorized_64x64_prefetch(Recorder& rec, int rows, int cols) {
  if (rows % 4 == 0 && cols % 4 == 0)
    vectorized<64, 64>(rec, rows, cols, true);
  else
    padded(rec, rows, cols);
}

// best: cudaMemcpyAsync for 1xN and Nx1 (no kernel of ours runs), else best_64x64_prefetch.
void best(Recorder& rec, int rows, int cols) {
  if (rows == 1 || cols == 1) return;
  vectorized_64x64(rec, rows, cols);
}

}  // namespace replay

/// Each variant's replay, in enum order.
constexpr replay::Replay kReplays[] = {
#define MEMHIER_RUNG(name, launch, symbol, prediction, ...) replay::prediction,
#define MEMHIER_BEST(name, symbol, prediction, ...) replay::prediction,
#include "memhier/kernels/transpose_rungs.inc"
};

}  // namespace

bool has_prediction(Variant v) {
  return kReplays[static_cast<int>(v)] != replay::none;
}

model::AccessCounts predict(Variant v, int rows, int cols) {
  check_shape(rows, cols);
  if (!has_prediction(v))
    throw std::invalid_argument(std::string("transpose variant ") + to_string(v) +
                                " has no prediction.");
  Recorder rec;
  kReplays[static_cast<int>(v)](rec, rows, cols);
  return rec.counts();
}

model::AccessCounts predict(Variant v, const std::string& shape) {
  const std::vector<std::int64_t> d = registry::parse_shape(shape, 2, "transpose");
  check_shape(d[0], d[1]);
  return predict(v, static_cast<int>(d[0]), static_cast<int>(d[1]));
}

void stream(Variant v, const std::string& shape, model::AccessSink& sink) {
  const std::vector<std::int64_t> d = registry::parse_shape(shape, 2, "transpose");
  check_shape(d[0], d[1]);
  if (!has_prediction(v))
    throw std::invalid_argument(std::string("transpose variant ") + to_string(v) +
                                " has no model.");
  Recorder rec(&sink);
  // best on a 1xN or Nx1 shape runs cudaMemcpyAsync: no kernel of ours, an empty stream.
  if (v == Variant::best && (d[0] == 1 || d[1] == 1)) {
    rec.launch(kBlockThreads, 0);
    return;
  }
  // The prefetch rung and best (which runs it) stream its bulk L2 prefetches too: no LSU
  // access, so the counting replay of the table leaves them out.
  if (v == Variant::best_64x64_prefetch || v == Variant::best)
    replay::vectorized_64x64_prefetch(rec, static_cast<int>(d[0]), static_cast<int>(d[1]));
  else
    kReplays[static_cast<int>(v)](rec, static_cast<int>(d[0]), static_cast<int>(d[1]));
}

}  // namespace memhier::transpose::detail
