// The mma.sync kernel of rungs 3 and 4 (FlashAttention-2's forward): a block of 4 warps takes
// 64 queries, each warp 16 of them, and walks the 64-key K/V tiles its causal mask needs.
// Q's fragments stay in registers; S = Q K^T is 8 m16n8 accumulators a warp, fed by
// ldmatrix from XOR-swizzled tiles (the bf16 GEMM's layout); the online softmax turns them
// into P, whose accumulator registers are already the A fragments of P V (rounded to bf16),
// so P never touches shared memory. STAGES == 1 loads each K/V tile through registers
// between two barriers; STAGES >= 2 is a cp.async ring with STAGES - 1 tiles in flight.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "common.cuh"
#include "kernels/gemm_bf16/common.cuh"
#include "kernels/gemm_bf16/layout.cuh"
#include "memhier/core/launch.hpp"
#include "memhier/core/ptx.cuh"

namespace memhier::attention::detail {

using gemm_bf16::detail::a_ldmatrix_lane;
using gemm_bf16::detail::b_ldmatrix_lane;
using gemm_bf16::detail::ldmatrix_x4;
using gemm_bf16::detail::ldmatrix_x4_trans;
using gemm_bf16::detail::Layout;
using gemm_bf16::detail::mma_bf16;
using gemm_bf16::detail::staging_chunk;
using gemm_bf16::detail::tile_offset;

struct MmaTile {
  static constexpr int kRows = 64, kKeys = 64, kWarps = 4, kThreads = 32 * kWarps;
};

/// Element offset of (row, col) in a swizzled tile of rows of D bf16.
template <int D>
__device__ __forceinline__ int swz(int row, int col) {
  return tile_offset(Layout::swizzled, row, col, D);
}

/// Dynamic shared memory of the kernel: the Q tile and STAGES K/V tile pairs.
template <int D, int STAGES>
constexpr int mma_smem_bytes() {
  return (1 + 2 * STAGES) * MmaTile::kKeys * D * 2;
}

/// A 64-row tile of `src` ([batch, seq, heads, D]) from row `r0` into the swizzled `dst`,
/// rows at or past `rows` zero-filled: 16-byte cp.async (zero-fill) when Async, else loads
/// through registers.
template <int D, bool Async>
__device__ __forceinline__ void stage_rows(const __nv_bfloat16* src, int b, int head, int seq,
                                           int heads, int r0, int tid, __nv_bfloat16* dst) {
  constexpr int kChunks = MmaTile::kKeys * D / 8;
#pragma unroll
  for (int i = 0; i < kChunks / MmaTile::kThreads; ++i) {
    int row = 0, col = 0;
    staging_chunk(tid + i * MmaTile::kThreads, D, &row, &col);
    const bool in = r0 + row < seq;
    const __nv_bfloat16* g = src + (in ? row_offset(b, r0 + row, head, seq, heads, D) + col : 0);
    __nv_bfloat16* d = dst + swz<D>(row, col);
    if constexpr (Async)
      ptx::cp_async_cg_16_zfill(d, g, in ? 16 : 0);
    else
      *reinterpret_cast<uint4*>(d) = load8_or_zero(g, in);
  }
}

/// Two floats as a bf16x2 register, `lo` in the low half (the smaller k of an mma operand).
__device__ __forceinline__ unsigned pack_bf16(float lo, float hi) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&h);
}

template <int D, int STAGES>
__global__ void __launch_bounds__(MmaTile::kThreads) mma_attention_kernel(const Problem p) {
  using T = MmaTile;
  constexpr int KD = D / 16;   // k16 steps of Q K^T
  constexpr int NS = T::kKeys / 8;  // n8 score fragments a warp
  constexpr int NO = D / 8;    // n8 output fragments a warp
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __nv_bfloat16* qs = reinterpret_cast<__nv_bfloat16*>(smem_raw);
  __nv_bfloat16* kv = qs + T::kRows * D;  // stage s: K at kv + 2 s tile, V after it
  constexpr int kTile = T::kKeys * D;
  const Shape& s = p.s;
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * T::kRows;
  const int kvh = kv_head_of(h, s.heads, s.kv_heads);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;  // an m16n8 accumulator's row and column pair
  const int qw = q0 + 16 * warp;         // this warp's first query
  const float qmul = s.scale * kLog2e;

  stage_rows<D, false>(p.q, b, h, s.seq_q, s.heads, q0, tid, qs);
  __syncthreads();
  unsigned qf[KD][4];
  {
    int r = 0, c = 0;
    a_ldmatrix_lane(lane, &r, &c);
#pragma unroll
    for (int kk = 0; kk < KD; ++kk) ldmatrix_x4(qf[kk], qs + swz<D>(16 * warp + r, 16 * kk + c));
  }
  int kr = 0, kc = 0, vr = 0, vc = 0;
  kr = (lane / 16) * 8 + lane % 8;  // K as the col operand: keys 0-7 then 8-15, d 0 then 8
  kc = ((lane / 8) % 2) * 8;
  b_ldmatrix_lane(lane, &vr, &vc);

  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};  // rows g and g + 8
  float o[NO][4] = {};
  const int n_end = tile_key_end(q0, T::kRows, s.seq_q, s.seq_k, s.causal);
  const int n_tiles = (n_end + T::kKeys - 1) / T::kKeys;

  const auto multiply = [&](const __nv_bfloat16* ks, const __nv_bfloat16* vs, int n0) {
    float sc[NS][4] = {};
#pragma unroll
    for (int kk = 0; kk < KD; ++kk)
#pragma unroll
      for (int jp = 0; jp < NS / 2; ++jp) {
        unsigned bk[4];
        ldmatrix_x4(bk, ks + swz<D>(16 * jp + kr, 16 * kk + kc));
        mma_bf16(sc[2 * jp], qf[kk], bk[0], bk[1]);
        mma_bf16(sc[2 * jp + 1], qf[kk], bk[2], bk[3]);
      }
    // Only a tile past seq_k or crossing this warp's diagonal has keys to hide.
    const bool edge = n0 + T::kKeys > s.seq_k ||
                      (s.causal && n0 + T::kKeys > visible_keys(qw, s.seq_q, s.seq_k, true));
#pragma unroll
    for (int j = 0; j < NS; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float x = sc[j][e] * qmul;
        if (edge) {
          const int key = n0 + 8 * j + 2 * t + (e & 1), row = qw + g + 8 * (e / 2);
          if (key >= s.seq_k || key >= visible_keys(row, s.seq_q, s.seq_k, s.causal)) x = -INFINITY;
        }
        sc[j][e] = x;
      }
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      float tmax = -INFINITY;
#pragma unroll
      for (int j = 0; j < NS; ++j) tmax = fmaxf(tmax, fmaxf(sc[j][2 * half], sc[j][2 * half + 1]));
      tmax = fmaxf(tmax, __shfl_xor_sync(0xffffffffu, tmax, 1));
      tmax = fmaxf(tmax, __shfl_xor_sync(0xffffffffu, tmax, 2));
      const float m_new = fmaxf(m[half], tmax);
      const float mu = usable_max(m_new);
      const float alpha = exp2f(m[half] - mu);
      float sum = 0.f;
#pragma unroll
      for (int j = 0; j < NS; ++j)
#pragma unroll
        for (int e = 2 * half; e < 2 * half + 2; ++e) {
          sc[j][e] = exp2f(sc[j][e] - mu);
          sum += sc[j][e];
        }
      l[half] = l[half] * alpha + sum;  // this thread's share; the quad adds them at the end
      m[half] = m_new;
#pragma unroll
      for (int j = 0; j < NO; ++j) {
        o[j][2 * half] *= alpha;
        o[j][2 * half + 1] *= alpha;
      }
    }
    // P V: the score accumulators of keys 16 kk .. 16 kk + 15 are the m16k16 A fragment.
#pragma unroll
    for (int kk = 0; kk < NS / 2; ++kk) {
      const unsigned a[4] = {pack_bf16(sc[2 * kk][0], sc[2 * kk][1]),
                             pack_bf16(sc[2 * kk][2], sc[2 * kk][3]),
                             pack_bf16(sc[2 * kk + 1][0], sc[2 * kk + 1][1]),
                             pack_bf16(sc[2 * kk + 1][2], sc[2 * kk + 1][3])};
#pragma unroll
      for (int dp = 0; dp < NO / 2; ++dp) {
        unsigned bv[4];
        ldmatrix_x4_trans(bv, vs + swz<D>(16 * kk + vr, 16 * dp + vc));
        mma_bf16(o[2 * dp], a, bv[0], bv[1]);
        mma_bf16(o[2 * dp + 1], a, bv[2], bv[3]);
      }
    }
  };

  if constexpr (STAGES == 1) {
    for (int it = 0; it < n_tiles; ++it) {
      __syncthreads();  // every warp is done with the previous tiles
      stage_rows<D, false>(p.k, b, kvh, s.seq_k, s.kv_heads, it * T::kKeys, tid, kv);
      stage_rows<D, false>(p.v, b, kvh, s.seq_k, s.kv_heads, it * T::kKeys, tid, kv + kTile);
      __syncthreads();
      multiply(kv, kv + kTile, it * T::kKeys);
    }
  } else {
    // Prologue: tiles 0 .. STAGES - 2 in flight, one commit group each (empty groups keep
    // the count uniform when there are fewer tiles).
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
      if (st < n_tiles) {
        __nv_bfloat16* ks = kv + 2 * st * kTile;
        stage_rows<D, true>(p.k, b, kvh, s.seq_k, s.kv_heads, st * T::kKeys, tid, ks);
        stage_rows<D, true>(p.v, b, kvh, s.seq_k, s.kv_heads, st * T::kKeys, tid, ks + kTile);
      }
      ptx::cp_async_commit_group();
    }
    for (int it = 0; it < n_tiles; ++it) {
      // Tile `it` has landed once at most STAGES - 2 newer groups are pending; the barrier
      // makes it every thread's and says every warp is done with tile it - 1, whose stage
      // is refilled next.
      ptx::cp_async_wait_group<STAGES - 2>();
      __syncthreads();
      const int next = it + STAGES - 1;
      if (next < n_tiles) {
        __nv_bfloat16* ks = kv + 2 * (next % STAGES) * kTile;
        stage_rows<D, true>(p.k, b, kvh, s.seq_k, s.kv_heads, next * T::kKeys, tid, ks);
        stage_rows<D, true>(p.v, b, kvh, s.seq_k, s.kv_heads, next * T::kKeys, tid, ks + kTile);
      }
      ptx::cp_async_commit_group();
      const __nv_bfloat16* ks = kv + 2 * (it % STAGES) * kTile;
      multiply(ks, ks + kTile, it * T::kKeys);
    }
    ptx::cp_async_wait_group<0>();
  }

#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const float inv = inverse_row_sum(l[half]);
    const int row = qw + g + 8 * half;
    if (row >= s.seq_q) continue;
    __nv_bfloat16* out = p.o + row_offset(b, row, h, s.seq_q, s.heads, D);
#pragma unroll
    for (int j = 0; j < NO; ++j)
      *reinterpret_cast<__nv_bfloat162*>(out + 8 * j + 2 * t) =
          __floats2bfloat162_rn(o[j][2 * half] * inv, o[j][2 * half + 1] * inv);
  }
}

template <int D, int STAGES>
void launch_mma(const Problem& p, const char* what) {
  constexpr int kBytes = mma_smem_bytes<D, STAGES>();
  const auto kernel = mma_attention_kernel<D, STAGES>;
  core::prepare_dynamic_smem(reinterpret_cast<const void*>(kernel), kBytes, what);
  const dim3 grid = head_grid((p.s.seq_q + MmaTile::kRows - 1) / MmaTile::kRows, p.s, what);
  kernel<<<grid, MmaTile::kThreads, kBytes, p.stream>>>(p);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::attention::detail
