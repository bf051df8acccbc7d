// Rung 1: three kernels. S = Q K^T scale (fp32, masked scores -inf) is written to HBM, the
// softmax ladder's `best` turns each row of S into a row of P, and O = P V reads P back: the
// scores cross HBM four times, 16 bytes each, against Q, K, V and O's 2 bytes per element.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "common.cuh"
#include "memhier/kernels/softmax.hpp"

namespace memhier::attention::detail {
namespace {

constexpr int kTile = 32;    // scores: a 32 x 32 tile of S per block
constexpr int kRowsPer = 4;  // scores: rows of the tile per thread (32 x 8 threads)
constexpr int kPvRows = 16;  // O = P V: query rows per block (4 warps x 4 rows)

/// S[b, h, i, j] = scale <q_i, k_j>, -inf where the causal mask hides key j from query i.
/// Each thread: key n0 + tx against rows q0 + ty + 8 r.
template <int D>
__global__ void __launch_bounds__(256) scores_kernel(const Problem p) {
  __shared__ float qs[kTile][D + 1];
  __shared__ float ks[kTile][D + 1];  // +1: lanes (keys) reading one column hit 32 banks
  const Shape& s = p.s;
  const int b = blockIdx.z, h = blockIdx.y / ((s.seq_k + kTile - 1) / kTile);
  const int n0 = (blockIdx.y % ((s.seq_k + kTile - 1) / kTile)) * kTile, q0 = blockIdx.x * kTile;
  const int kvh = kv_head_of(h, s.heads, s.kv_heads);
  const int tid = threadIdx.y * kTile + threadIdx.x;
  for (int c = tid; c < kTile * D / 8; c += 256) {
    const int row = c / (D / 8), col = (c % (D / 8)) * 8;
    float f[8];
    const bool qin = q0 + row < s.seq_q;
    unpack8(load8_or_zero(p.q + (qin ? row_offset(b, q0 + row, h, s.seq_q, s.heads, D) : 0) + col,
                          qin),
            s.scale, f);
#pragma unroll
    for (int e = 0; e < 8; ++e) qs[row][col + e] = f[e];
    const bool kin = n0 + row < s.seq_k;
    unpack8(load8_or_zero(
                p.k + (kin ? row_offset(b, n0 + row, kvh, s.seq_k, s.kv_heads, D) : 0) + col, kin),
            1.f, f);
#pragma unroll
    for (int e = 0; e < 8; ++e) ks[row][col + e] = f[e];
  }
  __syncthreads();
  float acc[kRowsPer] = {};
  for (int d = 0; d < D; ++d) {
    const float kv = ks[threadIdx.x][d];
#pragma unroll
    for (int r = 0; r < kRowsPer; ++r) acc[r] = fmaf(qs[threadIdx.y + 8 * r][d], kv, acc[r]);
  }
  const int j = n0 + threadIdx.x;
  if (j >= s.seq_k) return;
#pragma unroll
  for (int r = 0; r < kRowsPer; ++r) {
    const int i = q0 + threadIdx.y + 8 * r;
    if (i >= s.seq_q) continue;
    const bool seen = j < visible_keys(i, s.seq_q, s.seq_k, s.causal);
    const std::size_t row = (static_cast<std::size_t>(b) * s.heads + h) * s.seq_q + i;
    p.scores[row * s.seq_k + j] = seen ? acc[r] : -INFINITY;
  }
}

/// O[b, i, h, :] = sum_j P[b, h, i, j] v_j: 4 warps of 4 rows, lane l holding columns
/// l + 32 c; P and V through shared memory 32 keys at a time. A fully masked row (no
/// visible key, its P row not a softmax) is written as 0.
template <int D>
__global__ void __launch_bounds__(128) pv_kernel(const Problem p) {
  constexpr int R = kPvRows / 4, C = D / 32;
  __shared__ float ps[kPvRows][kTile];
  __shared__ __align__(16) __nv_bfloat16 vs[kTile][D];
  const Shape& s = p.s;
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * kPvRows;
  const int kvh = kv_head_of(h, s.heads, s.kv_heads);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const std::size_t prow0 = (static_cast<std::size_t>(b) * s.heads + h) * s.seq_q;
  const int n_end = tile_key_end(q0, kPvRows, s.seq_q, s.seq_k, s.causal);
  float acc[R][C] = {};
  for (int n0 = 0; n0 < n_end; n0 += kTile) {
    __syncthreads();  // every warp is done with the previous tiles
    for (int c = tid; c < kPvRows * kTile; c += 128) {
      const int r = c / kTile, j = c % kTile;
      const bool in = q0 + r < s.seq_q && n0 + j < n_end;
      ps[r][j] = in ? p.probs[(prow0 + q0 + r) * s.seq_k + n0 + j] : 0.f;
    }
    for (int c = tid; c < kTile * D / 8; c += 128) {
      const int row = c / (D / 8), col = (c % (D / 8)) * 8;
      const bool in = n0 + row < n_end;
      *reinterpret_cast<uint4*>(&vs[row][col]) = load8_or_zero(
          p.v + (in ? row_offset(b, n0 + row, kvh, s.seq_k, s.kv_heads, D) : 0) + col, in);
    }
    __syncthreads();
    for (int j = 0; j < kTile; ++j)
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const float pj = ps[warp * R + r][j];
#pragma unroll
        for (int c = 0; c < C; ++c)
          acc[r][c] = fmaf(pj, __bfloat162float(vs[j][lane + 32 * c]), acc[r][c]);
      }
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int i = q0 + warp * R + r;
    if (i >= s.seq_q) continue;
    const bool any = visible_keys(i, s.seq_q, s.seq_k, s.causal) > 0;
    __nv_bfloat16* out = p.o + row_offset(b, i, h, s.seq_q, s.heads, D);
#pragma unroll
    for (int c = 0; c < C; ++c) out[lane + 32 * c] = __float2bfloat16_rn(any ? acc[r][c] : 0.f);
  }
}

template <int D>
void launch_d(const Problem& p) {
  const Shape& s = p.s;
  const long long key_tiles = (s.seq_k + kTile - 1) / kTile;
  if (key_tiles * s.heads > 65535)
    throw std::invalid_argument("unfused: seq_k / 32 x heads exceeds the grid's 65535 along y.");
  const dim3 sgrid(static_cast<unsigned>((s.seq_q + kTile - 1) / kTile),
                   static_cast<unsigned>(key_tiles * s.heads), static_cast<unsigned>(s.batch));
  scores_kernel<D><<<sgrid, dim3(kTile, 8), 0, p.stream>>>(p);
  MEMHIER_CHECK_LAUNCH();
  const long long rows = static_cast<long long>(s.batch) * s.heads * s.seq_q;
  softmax::softmax(softmax::Variant::best, p.scores, p.probs, static_cast<int>(rows), s.seq_k,
                   p.stream);
  pv_kernel<D><<<head_grid((s.seq_q + kPvRows - 1) / kPvRows, s, "unfused"), 128, 0, p.stream>>>(
      p);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace

void launch_unfused(const Problem& p) {
  if (p.s.head_dim == 64) return launch_d<64>(p);
  launch_d<128>(p);
}

Geometry unfused_geometry(int head_dim) {
  return {kPvRows, kTile, 32 * 8, int(2 * sizeof(float) * kTile * (head_dim + 1)), KvLoad::plain};
}

const void* unfused_symbol() {
  return reinterpret_cast<const void*>(scores_kernel<128>);
}

}  // namespace memhier::attention::detail
