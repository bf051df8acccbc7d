// The attention rungs' streams (see stream.hpp). Each 16-byte row chunk, score and output
// element is addressed as the kernels address it; TMA boxes are read as whole 128-byte rows,
// four rows a warp instruction, bypassing L1.
#include "kernels/attention/stream.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/attention/index.cuh"
#include "kernels/attention/variants.hpp"
#include "kernels/predict.hpp"
#include "kernels/softmax/stream.hpp"
#include "kernels/softmax/variants.hpp"

namespace memhier::attention::detail {
namespace {

using kernels::predict::block_warp_access;
using kernels::predict::buffer_base;
using model::AccessSink;
using model::WarpAccess;

const std::uint64_t kQ = buffer_base(0), kK = buffer_base(1), kV = buffer_base(2),
                    kO = buffer_base(3), kS = buffer_base(4), kP = buffer_base(5);

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

/// Byte address of element `col` of row `pos` of a bf16 [batch, seq, heads, D] tensor.
std::uint64_t at(std::uint64_t base, int b, int pos, int head, int seq, int heads, int d, int col) {
  return base + 2 * (row_offset(b, pos, head, seq, heads, d) + static_cast<std::size_t>(col));
}

/// Block `x, y, z`'s number in launch order (x fastest).
std::uint64_t block_id(int x, int y, int z, int nx, int ny) {
  return (static_cast<std::uint64_t>(z) * ny + y) * nx + x;
}

/// Warp `warp`'s instructions of a staging loop `for (c = tid; c < chunks; c += threads)` over
/// 16-byte chunks of `rows` rows from row `r0` (rows at or past `end` not read):
/// chunk c is row c / (D / 8), column (c % (D / 8)) * 8.
void stage(AccessSink& sink, int warp, int threads, int rows, int d, std::uint64_t base, int b,
           int r0, int end, int head, int seq, int heads, bool cached) {
  const int chunks = rows * d / 8;
  for (int c0 = 0; c0 < chunks; c0 += threads) {
    WarpAccess w = block_warp_access(warp, threads, 16, false, [&](int tid, std::uint64_t* a) {
      const int c = c0 + tid, row = c / (d / 8), col = (c % (d / 8)) * 8;
      if (c >= chunks || r0 + row >= end) return false;
      *a = at(base, b, r0 + row, head, seq, heads, d, col);
      return true;
    });
    w.l1_cached = cached;
    w.async_copy = !cached;
    sink.global(w);
  }
}

/// A TMA box of `rows` rows from `r0` (rows at or past `end` arrive as zeros, unread) x 64
/// columns from `col` of a [batch, seq, heads, D] tensor: 128 bytes a row, 4 rows a warp access.
void tma_box(AccessSink& sink, std::uint64_t base, int b, int r0, int rows, int end, int head,
             int seq, int heads, int d, int col) {
  for (int q = 0; q < rows; q += 4) {
    WarpAccess w = kernels::predict::warp_access(
        kernels::predict::kAllLanes, 16, false, [&](int lane, std::uint64_t* a) {
          const int row = r0 + q + lane / 8;
          if (q + lane / 8 >= rows || row >= end) return false;
          *a = at(base, b, row, head, seq, heads, d, col + 8 * (lane % 8));
          return true;
        });
    w.l1_cached = false;
    sink.global(w);
  }
}

/// Row `i` of O a bf16 a lane, columns lane + 32 c (rungs 1 and 2).
void store_row(AccessSink& sink, const Shape& s, int b, int h, int i) {
  for (int c = 0; c < s.head_dim / 32; ++c)
    sink.global(kernels::predict::warp_access(
        kernels::predict::kAllLanes, 2, true, [&](int lane, std::uint64_t* a) {
          *a = at(kO, b, i, h, s.seq_q, s.heads, s.head_dim, lane + 32 * c);
          return true;
        }));
}

/// A warp's O from m16n8 (or wgmma) accumulators: rows row0 + lane / 4 and + 8, a bf16x2 at
/// columns 8 j + 2 (lane % 4) per instruction; rows past seq_q not stored.
void store_accumulators(AccessSink& sink, const Shape& s, int b, int h, int row0) {
  const int d = s.head_dim;
  for (int half = 0; half < 2; ++half)
    for (int j = 0; j < d / 8; ++j)
      sink.global(kernels::predict::warp_access(
          kernels::predict::kAllLanes, 4, true, [&](int lane, std::uint64_t* a) {
            const int row = row0 + lane / 4 + 8 * half;
            if (row >= s.seq_q) return false;
            *a = at(kO, b, row, h, s.seq_q, s.heads, d, 8 * j + 2 * (lane % 4));
            return true;
          }));
}

/// The fused rungs 2-4: Q staged once, then the K and V tiles the block's last query sees, O
/// stored from the accumulators.
void stream_fused(Variant v, const Geometry& g, const Shape& s, AccessSink& sink) {
  const int d = s.head_dim, warps = g.threads / 32, tiles = ceil_div(s.seq_q, g.rows);
  const bool mma = v != Variant::fused_plain;
  sink.launch(g.threads, g.smem_bytes);
  for (int b = 0; b < s.batch; ++b)
    for (int h = 0; h < s.heads; ++h)
      for (int x = 0; x < tiles; ++x) {
        const int q0 = x * g.rows, kvh = kv_head_of(h, s.heads, s.kv_heads);
        const int n_end = tile_key_end(q0, g.rows, s.seq_q, s.seq_k, s.causal);
        for (int warp = 0; warp < warps; ++warp) {
          sink.at(block_id(x, h, b, tiles, s.heads), warp);
          stage(sink, warp, g.threads, g.rows, d, kQ, b, q0, s.seq_q, h, s.seq_q, s.heads, true);
          const bool cached = g.load != KvLoad::cp_async;
          for (int n0 = 0; n0 < n_end; n0 += g.keys) {
            // Keys below seq_k (rows past it are zero-filled, unread). Rungs 3-4 stage all of
            // K, then all of V; rung 2 loads a K chunk and the V chunk at the same place in turn.
            if (mma) {
              for (std::uint64_t base : {kK, kV})
                stage(sink, warp, g.threads, g.keys, d, base, b, n0, s.seq_k, kvh, s.seq_k,
                      s.kv_heads, cached);
            } else {
              for (int r = 0; r < g.keys; r += g.threads * 8 / d) {
                stage(sink, warp, g.threads, g.threads * 8 / d, d, kK, b, n0 + r, s.seq_k, kvh,
                      s.seq_k, s.kv_heads, cached);
                stage(sink, warp, g.threads, g.threads * 8 / d, d, kV, b, n0 + r, s.seq_k, kvh,
                      s.seq_k, s.kv_heads, cached);
              }
            }
          }
          // O: rung 2 a row per instruction (lane l: columns l + 32 c, 2 bytes); rungs 3-4
          // rows g and g + 8 of the warp's 16, 4 bytes at 8 j + 2 t.
          if (!mma) {
            for (int r = 0; r < g.rows / warps; ++r) {
              const int i = q0 + warp * (g.rows / warps) + r;
              if (i < s.seq_q) store_row(sink, s, b, h, i);
            }
          } else {
            store_accumulators(sink, s, b, h, q0 + 16 * warp);
          }
        }
      }
}

/// Rungs 5-7: the producer thread (warp 0) loads Q's boxes once and each K and V tile's
/// boxes, blocks numbered as launched but taking the query tiles last first; the consumer
/// warps (warpgroups 1 .. C) store O.
void stream_wgmma(const Geometry& g, const Shape& s, AccessSink& sink) {
  const int d = s.head_dim, tiles = ceil_div(s.seq_q, g.rows), boxes = d / 64;
  const int consumer_warps = g.threads / 32 - 4;
  sink.launch(g.threads, g.smem_bytes);
  for (int b = 0; b < s.batch; ++b)
    for (int h = 0; h < s.heads; ++h)
      for (int x = 0; x < tiles; ++x) {
        const std::uint64_t id = block_id(x, h, b, tiles, s.heads);
        const int q0 = (tiles - 1 - x) * g.rows, kvh = kv_head_of(h, s.heads, s.kv_heads);
        const int n_tiles = ceil_div(tile_key_end(q0, g.rows, s.seq_q, s.seq_k, s.causal), g.keys);
        if (n_tiles > 0) {
          sink.at(id, 0);
          for (int c = 0; c < boxes; ++c)
            tma_box(sink, kQ, b, q0, g.rows, s.seq_q, h, s.seq_q, s.heads, d, 64 * c);
          for (int j = 0; j < n_tiles; ++j)
            for (std::uint64_t base : {kK, kV})
              for (int c = 0; c < boxes; ++c)
                tma_box(sink, base, b, j * g.keys, g.keys, s.seq_k, kvh, s.seq_k, s.kv_heads, d,
                        64 * c);
        }
        for (int cw = 0; cw < consumer_warps; ++cw) {
          sink.at(id, 4 + cw);
          store_accumulators(sink, s, b, h, q0 + 64 * (cw / 4) + 16 * (cw % 4));
        }
      }
}

/// Rung 1's scores kernel: 32 x 32 tiles of S, Q and K staged by __ldg, thread (tx, ty)
/// storing key n0 + tx of rows q0 + ty + 8 r as fp32.
void stream_scores(const Geometry& g, const Shape& s, AccessSink& sink) {
  const int d = s.head_dim, t = g.keys, threads = g.threads;
  const int qt = ceil_div(s.seq_q, t), kt = ceil_div(s.seq_k, t);
  sink.launch(threads, g.smem_bytes);
  for (int b = 0; b < s.batch; ++b)
    for (int y = 0; y < kt * s.heads; ++y)
      for (int x = 0; x < qt; ++x) {
        const int h = y / kt, n0 = (y % kt) * t, q0 = x * t,
                  kvh = kv_head_of(h, s.heads, s.kv_heads);
        for (int warp = 0; warp < threads / 32; ++warp) {
          sink.at(block_id(x, y, b, qt, kt * s.heads), warp);
          // The kernel's loop loads a Q chunk and a K chunk in turn.
          const int chunks = t * d / 8;
          for (int c0 = 0; c0 < chunks; c0 += threads)
            for (int which = 0; which < 2; ++which) {
              const int r0 = which == 0 ? q0 : n0;
              sink.global(
                  block_warp_access(warp, threads, 16, false, [&](int tid, std::uint64_t* a) {
                    const int c = c0 + tid, row = c / (d / 8), col = (c % (d / 8)) * 8;
                    if (c >= chunks) return false;
                    if (which == 0 && q0 + row < s.seq_q)
                      *a = at(kQ, b, r0 + row, h, s.seq_q, s.heads, d, col);
                    else if (which == 1 && n0 + row < s.seq_k)
                      *a = at(kK, b, r0 + row, kvh, s.seq_k, s.kv_heads, d, col);
                    else
                      return false;
                    return true;
                  }));
            }
          for (int r = 0; r < 4; ++r)
            sink.global(kernels::predict::warp_access(
                kernels::predict::kAllLanes, 4, true, [&](int lane, std::uint64_t* a) {
                  const int i = q0 + warp + 8 * r, j = n0 + lane;
                  if (i >= s.seq_q || j >= s.seq_k) return false;
                  const std::uint64_t row =
                      (static_cast<std::uint64_t>(b) * s.heads + h) * s.seq_q + i;
                  *a = kS + 4 * (row * s.seq_k + j);
                  return true;
                }));
        }
      }
}

/// Rung 1's P V kernel: 16 query rows a block (4 a warp), P and V staged 32 keys at a time
/// up to the block's last visible key, O stored a row per instruction.
void stream_pv(const Geometry& g, const Shape& s, AccessSink& sink) {
  constexpr int kThreads = 128;
  const int d = s.head_dim, rows = g.rows, t = g.keys, tiles = ceil_div(s.seq_q, rows);
  sink.launch(kThreads, (rows * t) * 4 + t * d * 2);
  for (int b = 0; b < s.batch; ++b)
    for (int h = 0; h < s.heads; ++h)
      for (int x = 0; x < tiles; ++x) {
        const int q0 = x * rows, kvh = kv_head_of(h, s.heads, s.kv_heads);
        const int n_end = tile_key_end(q0, rows, s.seq_q, s.seq_k, s.causal);
        const std::uint64_t prow0 = (static_cast<std::uint64_t>(b) * s.heads + h) * s.seq_q;
        for (int warp = 0; warp < kThreads / 32; ++warp) {
          sink.at(block_id(x, h, b, tiles, s.heads), warp);
          for (int n0 = 0; n0 < n_end; n0 += t) {
            for (int c0 = 0; c0 < rows * t; c0 += kThreads)
              sink.global(
                  block_warp_access(warp, kThreads, 4, false, [&](int tid, std::uint64_t* a) {
                    const int c = c0 + tid, r = c / t, j = c % t;
                    if (q0 + r >= s.seq_q || n0 + j >= n_end) return false;
                    *a = kP + 4 * ((prow0 + q0 + r) * s.seq_k + n0 + j);
                    return true;
                  }));
            stage(sink, warp, kThreads, t, d, kV, b, n0, n_end, kvh, s.seq_k, s.kv_heads, true);
          }
          for (int r = 0; r < rows / 4; ++r) {
            const int i = q0 + warp * (rows / 4) + r;
            if (i < s.seq_q) store_row(sink, s, b, h, i);
          }
        }
      }
}

/// The unfused rung: its scores kernel, the softmax ladder's warp_per_row (best's choice up to
/// its column limit: past it, a launch with no access) and P V.
void stream_unfused(Variant, const Shape& s, AccessSink& sink) {
  const Geometry g = unfused_geometry(s.head_dim);
  if (s.seq_k > softmax::detail::kWarpPerRowMaxCols) {
    sink.launch(g.threads, g.smem_bytes);
    return;
  }
  stream_scores(g, s, sink);
  softmax::detail::stream_warp_per_row(s.batch * s.heads * s.seq_q, s.seq_k, sink);
  stream_pv(g, s, sink);
}

void stream_fused_rung(Variant v, const Shape& s, AccessSink& sink) {
  const int d = s.head_dim;
  stream_fused(v,
               v == Variant::fused_plain    ? fused_plain_geometry(d)
               : v == Variant::mma_ldmatrix ? mma_ldmatrix_geometry(d)
                                            : cp_async_pipeline_geometry(d),
               s, sink);
}

void stream_wgmma_rung(Variant v, const Shape& s, AccessSink& sink) {
  const int d = s.head_dim;
  stream_wgmma(v == Variant::wgmma_tma        ? wgmma_tma_geometry(d)
               : v == Variant::wgmma_tma_wide ? wgmma_tma_wide_geometry(d)
                                              : wgmma_tma_3wg_geometry(d),
               s, sink);
}

using Replay = void (*)(Variant, const Shape&, AccessSink&);

/// The replay each rung shares; nullptr for a rung without one (and best).
Replay replay_of(Variant v) {
  switch (v) {
    case Variant::unfused:
      return stream_unfused;
    case Variant::fused_plain:
    case Variant::mma_ldmatrix:
    case Variant::cp_async_pipeline:
      return stream_fused_rung;
    case Variant::wgmma_tma:
    case Variant::wgmma_tma_wide:
    case Variant::wgmma_tma_3wg:
      return stream_wgmma_rung;
    default:
      return nullptr;
  }
}

}  // namespace

bool has_stream(Variant v) {
  return replay_of(v) != nullptr;
}

void stream(Variant v, const Shape& s, AccessSink& sink) {
  const Replay r = replay_of(v);
  if (!r) throw std::invalid_argument(std::string("attention ") + to_string(v) + " has no stream.");
  if (s.head_dim != 64 && s.head_dim != 128)
    throw std::invalid_argument("attention's stream takes head_dim 64 or 128.");
  r(v, s, sink);
}

}  // namespace memhier::attention::detail
