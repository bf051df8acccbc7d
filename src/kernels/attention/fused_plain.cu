// Rung 2: fused. One block per 16-query tile (4 warps of 4 rows); 32-key K and V tiles come
// through shared memory by plain 16-byte loads; lane l scores key l against the warp's rows
// and the online softmax (running max and sum, fp32) rescales the output held in registers,
// lane l holding columns l + 32 c. Only Q, K, V and O cross HBM.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "common.cuh"

namespace memhier::attention::detail {
namespace {

constexpr int kRows = 16, kKeys = 32, kWarps = 4, kThreads = 32 * kWarps;

template <int D>
__global__ void __launch_bounds__(kThreads) fused_plain_kernel(const Problem p) {
  constexpr int R = kRows / kWarps, C = D / 32;
  __shared__ __align__(16) float qs[kRows][D];  // Q times scale log2(e)
  // K rows padded by one word: lane l reading word w of key l hits bank (l (D/2 + 1) + w) % 32,
  // 32 different banks.
  __shared__ __nv_bfloat162 ks[kKeys][D / 2 + 1];
  __shared__ __align__(16) __nv_bfloat16 vs[kKeys][D];
  const Shape& s = p.s;
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * kRows;
  const int kvh = kv_head_of(h, s.heads, s.kv_heads);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const float qmul = s.scale * kLog2e;
  for (int c = tid; c < kRows * D / 8; c += kThreads) {
    const int row = c / (D / 8), col = (c % (D / 8)) * 8;
    const bool in = q0 + row < s.seq_q;
    unpack8(load8_or_zero(p.q + (in ? row_offset(b, q0 + row, h, s.seq_q, s.heads, D) : 0) + col,
                          in),
            qmul, &qs[row][col]);
  }
  float m[R], l[R], acc[R][C];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.f;
#pragma unroll
    for (int c = 0; c < C; ++c) acc[r][c] = 0.f;
  }
  const int n_end = tile_key_end(q0, kRows, s.seq_q, s.seq_k, s.causal);
  for (int n0 = 0; n0 < n_end; n0 += kKeys) {
    __syncthreads();  // every warp is done with the previous tiles (and Q has landed)
    for (int c = tid; c < kKeys * D / 8; c += kThreads) {
      const int row = c / (D / 8), col = (c % (D / 8)) * 8;
      const bool in = n0 + row < s.seq_k;
      const std::size_t at = in ? row_offset(b, n0 + row, kvh, s.seq_k, s.kv_heads, D) : 0;
      const uint4 kk = load8_or_zero(p.k + at + col, in);
      unsigned* kd = reinterpret_cast<unsigned*>(&ks[row][col / 2]);
      kd[0] = kk.x, kd[1] = kk.y, kd[2] = kk.z, kd[3] = kk.w;
      *reinterpret_cast<uint4*>(&vs[row][col]) = load8_or_zero(p.v + at + col, in);
    }
    __syncthreads();
    float sc[R] = {};
    for (int d2 = 0; d2 < D / 2; ++d2) {
      const float2 kf = __bfloat1622float2(ks[lane][d2]);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const float2 qf = *reinterpret_cast<const float2*>(&qs[warp * R + r][2 * d2]);
        sc[r] = fmaf(qf.x, kf.x, fmaf(qf.y, kf.y, sc[r]));
      }
    }
    const int j = n0 + lane;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int i = q0 + warp * R + r;
      const bool seen = j < s.seq_k && j < visible_keys(i, s.seq_q, s.seq_k, s.causal);
      const float x = seen ? sc[r] : -INFINITY;
      const float m_new = fmaxf(m[r], warp_max(x));
      const float mu = usable_max(m_new);
      const float alpha = exp2f(m[r] - mu);
      const float pr = exp2f(x - mu);
      l[r] = l[r] * alpha + warp_sum(pr);
      m[r] = m_new;
#pragma unroll
      for (int c = 0; c < C; ++c) acc[r][c] *= alpha;
      sc[r] = pr;
    }
    for (int jj = 0; jj < kKeys; ++jj) {
      float vj[C];
#pragma unroll
      for (int c = 0; c < C; ++c) vj[c] = __bfloat162float(vs[jj][lane + 32 * c]);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const float pj = __shfl_sync(0xffffffffu, sc[r], jj);
#pragma unroll
        for (int c = 0; c < C; ++c) acc[r][c] = fmaf(pj, vj[c], acc[r][c]);
      }
    }
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int i = q0 + warp * R + r;
    if (i >= s.seq_q) continue;
    const float inv = l[r] > 0.f ? 1.f / l[r] : 0.f;  // no visible key: 0, not 0/0
    __nv_bfloat16* out = p.o + row_offset(b, i, h, s.seq_q, s.heads, D);
#pragma unroll
    for (int c = 0; c < C; ++c) out[lane + 32 * c] = __float2bfloat16_rn(acc[r][c] * inv);
  }
}

template <int D>
void launch_d(const Problem& p) {
  fused_plain_kernel<D>
      <<<head_grid((p.s.seq_q + kRows - 1) / kRows, p.s, "fused_plain"), kThreads, 0, p.stream>>>(
          p);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace

void launch_fused_plain(const Problem& p) {
  if (p.s.head_dim == 64) return launch_d<64>(p);
  launch_d<128>(p);
}

Geometry fused_plain_geometry(int head_dim) {
  // The kernel's qs, ks and vs.
  const int smem = (kRows * head_dim + kKeys * (head_dim / 2 + 1)) * 4 + kKeys * head_dim * 2;
  return {kRows, kKeys, kThreads, smem, KvLoad::plain};
}

const void* fused_plain_symbol() {
  return reinterpret_cast<const void*>(fused_plain_kernel<128>);
}

}  // namespace memhier::attention::detail
