// Session 8 experiment: softmax 8 x 65536 on an H100, the chain after a block's last data:
// the block pair, the cluster exchange and its merge. It extends session 7's harness
// (docs/results/h100-2026-11-22-session7/softmax_rows.cu; its modes rows, policy, claim and
// shared are kept) and times every design like the bench (L2 flushed before each
// repetition, median of 80), with %globaltimer stamps per block (start, block pair, row
// pair, stores issued, stores acknowledged after __threadfence) and, per cluster, the time
// from the cluster's last block pair to each block's row pair.
//   x0: the wait (try_wait .acquire.cta, test_wait spin), L2 policies by createpolicy for
//       the stores (evict_first, evict_unchanged) and the loads (evict_first), 256 threads.
//       (Its run, -1-x0, also has a first merge with 3 shuffles that left lanes 8..31
//       without the sum: marked WRONG there, not a result.)
//   x:  the floor (no exchange, wrong results), the merges of posted pairs with every
//       group of 8 or 16 lanes reading all pairs (3 or 4 xor shuffles, exp_fast), the
//       scale by exp_fast, and the three together (what ce0aa0d ships).
//   y:  on top of those, tree reductions of a thread's 16 values and a warp sum by two
//       integer REDUX on fixed point.
// Outputs beside it: softmax_exchange-h100-{1-x0,2-x,3-x,4-y}.txt. From the repository
// root:
//   nvcc -O3 -std=c++17 -arch=sm_90a -Isrc/kernels/softmax -o sx \
//     docs/results/h100-2026-11-22-session8/softmax_exchange.cu && ./sx MODE [ROUNDS]
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>
#include "common.cuh"
using namespace memhier::softmax::detail;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::exit(1);} } while (0)
constexpr int ROWS = 8, COLS = 65536;
__device__ __forceinline__ unsigned long long gtime() { unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t; }
__device__ __forceinline__ unsigned smid() { unsigned s; asm volatile("mov.u32 %0, %smid;" : "=r"(s)); return s; }
#define STAMP(k) if (TS && lead) ts[blockIdx.x * 16 + (k)] = gtime();

__device__ __forceinline__ void bar_named(int id, int n) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory"); }

// Zeros into this thread's output units with an evict_last hint: the output's L2 lines are
// allocated (and the dirty lines they replace written back) before the real stores.
template <int U, int T>
__device__ __forceinline__ void pre_claim(float* y) {
  unsigned long long pol;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
#pragma unroll
  for (int u = 0; u < U; ++u)
    asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1,%1,%1,%1}, %2;" ::"l"(y + (long long)(threadIdx.x + u * T) * 4), "f"(0.f), "l"(pol) : "memory");
}
template <int R>
__device__ __forceinline__ void ex_begin(ClusterSlots (&s)[R]) {
  if (threadIdx.x == 0) {
    for (int r = 0; r < R; ++r) {
      const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&s[r].bar));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
}
// t: thread index within the group that exchanges this row (t == 0 arrives).
template <int WM = 0>
__device__ __forceinline__ MaxSum ex_row(ClusterSlots& slots, MaxSum mine, int t, int n, bool wait_cluster) {
  if constexpr (WM == 9) return mine;  // no exchange: the floor (wrong results)
  if (wait_cluster) asm volatile("barrier.cluster.wait;" ::: "memory");
  const unsigned local_bar = static_cast<unsigned>(__cvta_generic_to_shared(&slots.bar));
  if (t == 0)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(local_bar), "r"(static_cast<unsigned>(n * 8)) : "memory");
  if (t < n) {
    unsigned rank; asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    const unsigned slot = static_cast<unsigned>(__cvta_generic_to_shared(&slots.pair[rank]));
    asm volatile("{\n\t.reg .b32 a, b;\n\tmapa.shared::cluster.u32 a, %0, %2;\n\tmapa.shared::cluster.u32 b, %1, %2;\n\t"
                 "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [a], {%3, %4}, [b];\n\t}" ::"r"(slot), "r"(local_bar), "r"(t), "f"(mine.m), "f"(mine.s) : "memory");
  }
  unsigned done = 0;
  do {
    if constexpr (WM == 1 || WM == 13)
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(local_bar) : "memory");
    else if constexpr (WM == 2)
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(local_bar) : "memory");
    else
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(local_bar) : "memory");
  } while (!done);
  const int lane = threadIdx.x & 31;
  const float2 q = lane < n ? slots.pair[lane] : make_float2(0.f, 0.f);
  if constexpr (WM == 3 || WM == 13) {  // every group of 8 lanes reads the 8 pairs: 3 xor shuffles, exp_fast
    const float2 r = slots.pair[lane & 7];
    const float m = warp_max_redux(r.x);
    float part = r.x != neg_inf() ? r.y * exp_fast(r.x - m) : 0.f;
#pragma unroll
    for (int o = 4; o > 0; o >>= 1) part += __shfl_xor_sync(0xffffffffu, part, o);
    return MaxSum{m, part};
  }
  return merge_lanes(MaxSum{q.x, q.y}, lane < n);
}
// The warp's sum of per-lane values in [0, 2^9) by two integer REDUX (20 + 20 fraction bits)
__device__ __forceinline__ float warp_sum_fixed(float v) {
  const float a = v * 1048576.f;
  const float ha = floorf(a);
  const int hi = __float2int_rz(ha);
  const int lo = __float2int_rn((a - ha) * 1048576.f);
  const int shi = __reduce_add_sync(0xffffffffu, hi);
  const int slo = __reduce_add_sync(0xffffffffu, lo);
  return (static_cast<float>(shi) + static_cast<float>(slo) * (1.f / 1048576.f)) * (1.f / 1048576.f);
}
template <int N, bool MAX>
__device__ __forceinline__ float tree(float (&t)[N]) {
#pragma unroll
  for (int w = N / 2; w >= 1; w >>= 1)
#pragma unroll
    for (int i = 0; i < w; ++i) t[i] = MAX ? fmaxf(t[i], t[i + w]) : t[i] + t[i + w];
  return t[0];
}
template <int TG, bool FASTB = false, bool FIXED = false>
__device__ __forceinline__ MaxSum group_combine(MaxSum p, float2* scratch, int g, int t) {
  const int lane = t & 31, warp = t >> 5;
  constexpr int warps = TG / 32;
  p = MaxSum{p.m, FIXED ? warp_sum_fixed(p.s) : warp_sum(p.s)};
  if (lane == 0) scratch[warp] = make_float2(p.m, p.s);
  if (TG == (int)1024) __syncthreads(); else bar_named(1 + g, TG);
  if constexpr (FASTB && (warps & (warps - 1)) == 0) {  // lanes replicate the warps' pairs
    const float2 r = scratch[lane & (warps - 1)];
    const float m = warp_max_redux(r.x);
    float part = r.x != neg_inf() ? r.y * exp_fast(r.x - m) : 0.f;
#pragma unroll
    for (int o = warps / 2; o > 0; o >>= 1) part += __shfl_xor_sync(0xffffffffu, part, o);
    return MaxSum{m, part};
  }
  const float2 q = lane < warps ? scratch[lane] : make_float2(0.f, 0.f);
  return merge_lanes(MaxSum{q.x, q.y}, lane < warps);
}

// Every thread holds U units of each of R rows (non-split) or U units of one row (split).
template <int R, int U, int T, bool SPLIT, bool TS, int LM = 0, int SMODE = 0, int PRE = 0, int WM = 0, int FAST = 0>
__global__ void __launch_bounds__(T) rows_kernel(const float* __restrict__ in, float* __restrict__ out, int cols, int delay_ns, unsigned long long* ts) {
  __shared__ float2 scratch[R][32];
  __shared__ ClusterSlots slots[R];
  const bool lead = threadIdx.x == 0;
  STAMP(0);
  const int C = cluster_size();
  const int rank = cluster_rank();
  const int row0 = cluster_index() * R;
  const int chunk = cols / 4 / C;
  if constexpr (!SPLIT) {
    float v[R][U][4];
    if constexpr (PRE == 3) pre_claim<U, T>(out + (long long)row0 * cols + (long long)rank * chunk * 4);
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (r > 0 && delay_ns > 0) { const unsigned long long t0 = gtime(); while (gtime() - t0 < (unsigned long long)delay_ns) {} }
      const float* x = in + (long long)(row0 + r) * cols + (long long)rank * chunk * 4;
      if constexpr (LM == 0) load_batch<4, U, true>(x, threadIdx.x, T, chunk, v[r], neg_inf());
      else {
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const float* p = x + (long long)(threadIdx.x + u * T) * 4;
          if constexpr (LM == 1) asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v[r][u][0]), "=f"(v[r][u][1]), "=f"(v[r][u][2]), "=f"(v[r][u][3]) : "l"(p));
          else if constexpr (LM == 3) { unsigned long long pol; asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
            asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;" : "=f"(v[r][u][0]), "=f"(v[r][u][1]), "=f"(v[r][u][2]), "=f"(v[r][u][3]) : "l"(p), "l"(pol)); }
          else { const float4 q = __ldg(reinterpret_cast<const float4*>(p)); v[r][u][0] = q.x; v[r][u][1] = q.y; v[r][u][2] = q.z; v[r][u][3] = q.w; }
        }
      }
    }
    if constexpr (PRE == 1) {
      float* y = out + (long long)row0 * cols + (long long)rank * chunk * 4;
      if (threadIdx.x < chunk * 16 / 128) asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(y + threadIdx.x * 32) : "memory");
    } else if constexpr (PRE == 2) {
      float* y = out + (long long)row0 * cols + (long long)rank * chunk * 4;
      if (threadIdx.x == 0) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(y), "r"(chunk * 16) : "memory");
    } else if constexpr (PRE == 4) {
      pre_claim<U, T>(out + (long long)row0 * cols + (long long)rank * chunk * 4);
    }
    ex_begin<R>(slots);
#pragma unroll
    for (int r = 0; r < R; ++r) {
      float tmax = neg_inf();
      if constexpr ((FAST & 8) != 0) {
        float t[U * 4];
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int k = 0; k < 4; ++k) t[u * 4 + k] = v[r][u][k];
        tmax = tree<U * 4, true>(t);
      } else {
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int k = 0; k < 4; ++k) tmax = fmaxf(tmax, v[r][u][k]);
      }
      const float wm = warp_max_redux(tmax);
      const float use = safe_max(wm);
      float sum = 0.f;
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int k = 0; k < 4; ++k) { v[r][u][k] = exp_fast(v[r][u][k] - use); if ((FAST & 8) == 0) sum += v[r][u][k]; }
      if constexpr ((FAST & 8) != 0) {
        float t[U * 4];
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int k = 0; k < 4; ++k) t[u * 4 + k] = v[r][u][k];
        sum = tree<U * 4, false>(t);
      }
      const MaxSum bp = group_combine<T, (FAST & 2) != 0, (FAST & 16) != 0>(MaxSum{wm, sum}, scratch[r], 0, threadIdx.x);
      STAMP(1 + 3 * r);
      const MaxSum all = ex_row<WM>(slots[r], bp, threadIdx.x, C, r == 0);
      STAMP(2 + 3 * r);
      const float scale = wm == neg_inf() ? 0.f : (FAST & 4) ? __fdividef(exp_fast(wm - all.m), all.s) : __fdividef(expf(wm - all.m), all.s);
      float* y = out + (long long)(row0 + r) * cols + (long long)rank * chunk * 4;
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int i = threadIdx.x + u * T;
#pragma unroll
        for (int k = 0; k < 4; ++k) v[r][u][k] *= scale;
        if constexpr (SMODE == 0) store_pack<4, true>(y + (long long)i * 4, v[r][u]);
        else if constexpr (SMODE == 1) store_pack<4, false>(y + (long long)i * 4, v[r][u]);
        else if constexpr (SMODE == 2) asm volatile("st.global.L1::no_allocate.v4.f32 [%0], {%1,%2,%3,%4};" ::"l"(y + (long long)i * 4), "f"(v[r][u][0]), "f"(v[r][u][1]), "f"(v[r][u][2]), "f"(v[r][u][3]) : "memory");
        else {
          unsigned long long pol;
          if constexpr (SMODE == 3) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
          else asm volatile("createpolicy.fractional.L2::evict_unchanged.b64 %0, 1.0;" : "=l"(pol));
          asm volatile("st.global.L1::no_allocate.L2::cache_hint.v4.f32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(y + (long long)i * 4), "f"(v[r][u][0]), "f"(v[r][u][1]), "f"(v[r][u][2]), "f"(v[r][u][3]), "l"(pol) : "memory");
        }
      }
      STAMP(3 + 3 * r);
    }
    if (TS) { __threadfence(); STAMP(14); }
  } else {
    constexpr int TG = T / R;
    const int g = threadIdx.x / TG, t = threadIdx.x % TG;
    if (g > 0 && delay_ns > 0) { const unsigned long long t0 = gtime(); while (gtime() - t0 < (unsigned long long)(delay_ns * g)) {} }
    float v[U][4];
    const float* x = in + (long long)(row0 + g) * cols + (long long)rank * chunk * 4;
    load_batch<4, U, true>(x, t, TG, chunk, v, neg_inf());
    ex_begin<R>(slots);
    float tmax = neg_inf();
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int k = 0; k < 4; ++k) tmax = fmaxf(tmax, v[u][k]);
    const float wm = warp_max_redux(tmax);
    const float use = safe_max(wm);
    float sum = 0.f;
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int k = 0; k < 4; ++k) { v[u][k] = exp_fast(v[u][k] - use); sum += v[u][k]; }
    const MaxSum bp = group_combine<TG>(MaxSum{wm, sum}, scratch[g], g, t);
    const bool gl = TS && t == 0;
    if (gl) ts[blockIdx.x * 16 + 1 + 3 * g] = gtime();
    const MaxSum all = ex_row(slots[g], bp, t, C, true);
    if (gl) ts[blockIdx.x * 16 + 2 + 3 * g] = gtime();
    const float scale = wm == neg_inf() ? 0.f : __fdividef(expf(wm - all.m), all.s);
    float* y = out + (long long)(row0 + g) * cols + (long long)rank * chunk * 4;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = t + u * TG;
#pragma unroll
      for (int k = 0; k < 4; ++k) v[u][k] *= scale;
      store_pack<4, true>(y + (long long)i * 4, v[u]);
    }
    if (gl) ts[blockIdx.x * 16 + 3 + 3 * g] = gtime();
  }
  if (TS && lead) ts[blockIdx.x * 16 + 15] = smid();
}

__global__ void empty_kernel(const float* __restrict__ in, float* __restrict__ out, int cols, int d, unsigned long long* ts) {}
// copy with every load before any store, like the softmax's structure without the reductions
template <int U, int T, bool TS>
__global__ void __launch_bounds__(T) copyn(const float* __restrict__ in, float* __restrict__ out, int cols, int d, unsigned long long* ts) {
  const bool lead = threadIdx.x == 0;
  STAMP(0);
  const long long base = (long long)blockIdx.x * U * T * 4;
  float v[U][4];
  load_batch<4, U, true>(in + base, threadIdx.x, T, U * T, v, 0.f);
  STAMP(1);
#pragma unroll
  for (int u = 0; u < U; ++u) store_pack<4, true>(out + base + (long long)(threadIdx.x + u * T) * 4, v[u]);
  STAMP(3);
  if (TS) { __threadfence(); STAMP(14); }
  if (TS && lead) ts[blockIdx.x * 16 + 15] = smid();
}

// Design Z: N clusters for R = N + 1 rows. Cluster k owns row k; every cluster also reads the
// last row and computes its (max, sum), and stores 1/N of it: every SM's stores shrink from a
// whole chunk of one row to a chunk plus 1/N of a chunk.
struct alignas(16) Slots4 { float4 pair[16]; unsigned long long bar; };
template <int U, int T, bool TS, int NCL>
__global__ void __launch_bounds__(T) shared_row_kernel(const float* __restrict__ in, float* __restrict__ out, int cols, int d, unsigned long long* ts) {
  __shared__ float4 scratch[32];
  __shared__ Slots4 slots;
  const bool lead = threadIdx.x == 0;
  STAMP(0);
  const int C = cluster_size();
  const int rank = cluster_rank();
  const int k = cluster_index();
  const int chunk = cols / 4 / C;
  const long long off = (long long)rank * chunk * 4;
  float a[U][4], b[U][4];
  load_batch<4, U, true>(in + (long long)k * cols + off, threadIdx.x, T, chunk, a, neg_inf());
  load_batch<4, U, true>(in + (long long)NCL * cols + off, threadIdx.x, T, chunk, b, neg_inf());
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&slots.bar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
  float ma = neg_inf(), mb = neg_inf();
#pragma unroll
  for (int u = 0; u < U; ++u)
#pragma unroll
    for (int q = 0; q < 4; ++q) { ma = fmaxf(ma, a[u][q]); mb = fmaxf(mb, b[u][q]); }
  const float wa = warp_max_redux(ma), wb = warp_max_redux(mb);
  const float ua = safe_max(wa), ub = safe_max(wb);
  float sa = 0.f, sb = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u)
#pragma unroll
    for (int q = 0; q < 4; ++q) { a[u][q] = exp_fast(a[u][q] - ua); sa += a[u][q]; b[u][q] = exp_fast(b[u][q] - ub); sb += b[u][q]; }
  sa = warp_sum(sa); sb = warp_sum(sb);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  constexpr int warps = T / 32;
  if (lane == 0) scratch[warp] = make_float4(wa, sa, wb, sb);
  __syncthreads();
  const float4 q = lane < warps ? scratch[lane] : make_float4(0.f, 0.f, 0.f, 0.f);
  const MaxSum ba = merge_lanes(MaxSum{q.x, q.y}, lane < warps), bb = merge_lanes(MaxSum{q.z, q.w}, lane < warps);
  STAMP(1);
  asm volatile("barrier.cluster.wait;" ::: "memory");
  if (threadIdx.x == 0)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(static_cast<unsigned>(C * 16)) : "memory");
  if ((int)threadIdx.x < C) {
    const unsigned slot = static_cast<unsigned>(__cvta_generic_to_shared(&slots.pair[rank]));
    asm volatile("{\n\t.reg .b32 x, y;\n\tmapa.shared::cluster.u32 x, %0, %2;\n\tmapa.shared::cluster.u32 y, %1, %2;\n\t"
                 "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [x], {%3, %4, %5, %6}, [y];\n\t}" ::"r"(slot), "r"(bar), "r"((unsigned)threadIdx.x), "f"(ba.m), "f"(ba.s), "f"(bb.m), "f"(bb.s) : "memory");
  }
  unsigned done = 0;
  do {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(bar) : "memory");
  } while (!done);
  const float4 r4 = lane < C ? slots.pair[lane] : make_float4(0.f, 0.f, 0.f, 0.f);
  const MaxSum ra = merge_lanes(MaxSum{r4.x, r4.y}, lane < C), rb = merge_lanes(MaxSum{r4.z, r4.w}, lane < C);
  STAMP(2);
  const float sca = wa == neg_inf() ? 0.f : __fdividef(expf(wa - ra.m), ra.s);
  const float scb = wb == neg_inf() ? 0.f : __fdividef(expf(wb - rb.m), rb.s);
  float* ya = out + (long long)k * cols + off;
  float* yb = out + (long long)NCL * cols + off;
  const int lo = k * chunk / NCL, hi = (k + 1) * chunk / NCL;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int i = threadIdx.x + u * T;
#pragma unroll
    for (int c = 0; c < 4; ++c) a[u][c] *= sca;
    store_pack<4, true>(ya + (long long)i * 4, a[u]);
  }
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int i = threadIdx.x + u * T;
    if (i >= lo && i < hi) {
#pragma unroll
      for (int c = 0; c < 4; ++c) b[u][c] *= scb;
      store_pack<4, true>(yb + (long long)i * 4, b[u]);
    }
  }
  STAMP(3);
  if (TS) { __threadfence(); STAMP(14); }
  if (TS && lead) ts[blockIdx.x * 16 + 15] = smid();
}
static char* g_flush;
static size_t g_flush_bytes;
double time_med(const std::function<void()>& f, int reps = 80) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  f(); CK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    CK(cudaMemsetAsync(g_flush, i & 0xff, g_flush_bytes));
    CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float t; CK(cudaEventElapsedTime(&t, a, b)); ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
  return ms[ms.size() / 2] * 1e3;
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  g_flush_bytes = size_t(l2) * 2;
  CK(cudaMalloc(&g_flush, g_flush_bytes));
  const size_t n = size_t(ROWS) * COLS, bytes = n * 4;
  std::vector<float> h(n);
  srand(7);
  for (auto& x : h) x = (rand() / (float)RAND_MAX) * 8.f - 4.f;
  float *in, *out;
  CK(cudaMalloc(&in, bytes)); CK(cudaMalloc(&out, bytes));
  CK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
  std::vector<double> ref(n);
  for (int r = 0; r < ROWS; ++r) {
    double m = -1e300, s = 0;
    for (int c = 0; c < COLS; ++c) m = std::max(m, (double)h[r * COLS + c]);
    for (int c = 0; c < COLS; ++c) s += std::exp(h[r * COLS + c] - m);
    for (int c = 0; c < COLS; ++c) ref[r * COLS + c] = std::exp(h[r * COLS + c] - m) / s;
  }
  unsigned long long* ts;
  CK(cudaMalloc(&ts, 4096 * 16 * 8));
  auto check = [&](const std::string& name) {
    std::vector<float> o(n);
    CK(cudaMemcpy(o.data(), out, bytes, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(o[i] - ref[i]) / ref[i]);
    if (!(worst < 1e-5)) std::printf("    %s worst rel err %.3g  WRONG\n", name.c_str(), worst);
  };
  struct V { std::string name; int C, blocks, T, delay; const void* k; const void* kts; };
  auto mk = [&](const std::string& nm, int C, int R, int T, int d, const void* k, const void* kts) {
    if (C > 0) {
      CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
      CK(cudaFuncSetAttribute(kts, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    }
    return V{nm + (d ? " d=" + std::to_string(d) : std::string()), C, C > 0 ? (R < 0 ? -R * C : ROWS / R * C) : R, T, d, k, kts};
  };
#define K(R, U, T, S) (const void*)&rows_kernel<R, U, T, S, false>, (const void*)&rows_kernel<R, U, T, S, true>
#define KZ(U, T) (const void*)&shared_row_kernel<U, T, false, 7>, (const void*)&shared_row_kernel<U, T, true, 7>
#define KP(P, SM) (const void*)&rows_kernel<1, 4, 512, false, false, 0, SM, P>, (const void*)&rows_kernel<1, 4, 512, false, true, 0, SM, P>
#define KM(LM, SM) (const void*)&rows_kernel<1, 4, 512, false, false, LM, SM>, (const void*)&rows_kernel<1, 4, 512, false, true, LM, SM>
  const void* E = (const void*)&empty_kernel;
  const std::string mode = argc > 1 ? argv[1] : "rows";
  std::vector<V> vs = {mk("shipped-like C8 R1 T512 U4", 8, 1, 512, 0, K(1, 4, 512, false))};
  auto copy64 = [&] { vs.push_back(mk("copyN plain 64 x 512 U4", 0, 64, 512, 0, (const void*)&copyn<4, 512, false>, (const void*)&copyn<4, 512, true>)); };
  if (mode == "rows") {  // R rows per cluster, loads of the rows one after another
    vs.push_back(mk("C16 R2 T512 U2x2 (thread holds both)", 16, 2, 512, 0, K(2, 2, 512, false)));
    vs.push_back(mk("C16 R2 T512 U2x2 (thread holds both)", 16, 2, 512, 150, K(2, 2, 512, false)));
    vs.push_back(mk("C16 R2 T512 split U4", 16, 2, 512, 0, K(2, 4, 512, true)));
    vs.push_back(mk("C16 R2 T512 split U4", 16, 2, 512, 150, K(2, 4, 512, true)));
    vs.push_back(mk("C16 R2 T512 split U4", 16, 2, 512, 300, K(2, 4, 512, true)));
    vs.push_back(mk("C16 R2 T1024 split U2", 16, 2, 1024, 0, K(2, 2, 1024, true)));
    vs.push_back(mk("C16 R4 T512 split U8", 16, 4, 512, 0, K(4, 8, 512, true)));
    vs.push_back(mk("C16 R4 T512 split U8", 16, 4, 512, 100, K(4, 8, 512, true)));
    vs.push_back(mk("C8 R2 T512 split U8", 8, 2, 512, 0, K(2, 8, 512, true)));
  } else if (mode == "policy") {  // cache policies; launch cost of empty kernels
    vs.push_back(mk("  loads L2::256B", 8, 1, 512, 0, KM(1, 0)));
    vs.push_back(mk("  loads ldg (default policy)", 8, 1, 512, 0, KM(2, 0)));
    vs.push_back(mk("  stores default policy", 8, 1, 512, 0, KM(0, 1)));
    vs.push_back(mk("  stores L1::no_allocate", 8, 1, 512, 0, KM(0, 2)));
    vs.push_back(mk("  loads 256B, stores default", 8, 1, 512, 0, KM(1, 1)));
    copy64();
    vs.push_back(mk("copyN plain 128 x 512 U2", 0, 128, 512, 0, (const void*)&copyn<2, 512, false>, (const void*)&copyn<2, 512, true>));
    vs.push_back(mk("empty plain 64 x 512", 0, 64, 512, 0, E, E));
    vs.push_back(mk("empty cluster 8: 64 x 512", 8, 1, 512, 0, E, E));
    vs.push_back(mk("empty cluster 16: 128 x 512", 16, 1, 512, 0, E, E));
    vs.push_back(mk("empty plain 1 x 32", 0, 1, 32, 0, E, E));
  } else if (mode == "claim") {  // the output's L2 lines claimed before the real stores
    vs.push_back(mk("  prefetch.L2 output lines", 8, 1, 512, 0, KP(1, 0)));
    vs.push_back(mk("  bulk prefetch.L2 output chunk", 8, 1, 512, 0, KP(2, 0)));
    vs.push_back(mk("  zeros evict_last before loads", 8, 1, 512, 0, KP(3, 0)));
    vs.push_back(mk("  zeros evict_last after loads", 8, 1, 512, 0, KP(4, 0)));
    vs.push_back(mk("  zeros before loads, stores no_alloc", 8, 1, 512, 0, KP(3, 2)));
    copy64();
    vs.push_back(mk("empty plain 64 x 512", 0, 64, 512, 0, E, E));
  } else if (mode == "x") {  // session 8: the exchange's wait and merge, store/load policies, threads
#define KW(LM, SM, WM) (const void*)&rows_kernel<1, 4, 512, false, false, LM, SM, 0, WM>, (const void*)&rows_kernel<1, 4, 512, false, true, LM, SM, 0, WM>
#define KF(WM, F) (const void*)&rows_kernel<1, 4, 512, false, false, 0, 0, 0, WM, F>, (const void*)&rows_kernel<1, 4, 512, false, true, 0, 0, 0, WM, F>
#define KF8(WM, F) (const void*)&rows_kernel<1, 8, 256, false, false, 0, 0, 0, WM, F>, (const void*)&rows_kernel<1, 8, 256, false, true, 0, 0, 0, WM, F>
    vs.push_back(mk("  floor: no exchange (wrong results)", 8, 1, 512, 0, KW(0, 0, 9)));
    vs.push_back(mk("  floor, fast block pair", 8, 1, 512, 0, KF(9, 2)));
    vs.push_back(mk("  merge 3 shuffles, exp_fast", 8, 1, 512, 0, KF(3, 0)));
    vs.push_back(mk("  fast block pair", 8, 1, 512, 0, KF(0, 2)));
    vs.push_back(mk("  fast scale", 8, 1, 512, 0, KF(0, 4)));
    vs.push_back(mk("  all three", 8, 1, 512, 0, KF(3, 6)));
    vs.push_back(mk("  all three, try_wait .cta", 8, 1, 512, 0, KF(13, 6)));
    vs.push_back(mk("C8 R1 T256 U8 all three", 8, 1, 256, 0, KF8(3, 6)));
    copy64();
  } else if (mode == "y") {  // on top of the shipped merge (all three): trees, fixed-point warp sums
    vs.push_back(mk("  all three (= product at ce0aa0d)", 8, 1, 512, 0, KF(3, 6)));
    vs.push_back(mk("  + trees", 8, 1, 512, 0, KF(3, 14)));
    vs.push_back(mk("  + fixed-point warp sum", 8, 1, 512, 0, KF(3, 22)));
    vs.push_back(mk("  + trees + fixed-point warp sum", 8, 1, 512, 0, KF(3, 30)));
    vs.push_back(mk("  floor, + trees + fixed", 8, 1, 512, 0, KF(9, 30)));
    vs.push_back(mk("C8 R1 T256 U8 + trees + fixed", 8, 1, 256, 0, KF8(3, 30)));
    copy64();
  } else if (mode == "x0") {
    vs.push_back(mk("  wait try_wait acquire.cta", 8, 1, 512, 0, KW(0, 0, 1)));
    vs.push_back(mk("  wait test_wait spin", 8, 1, 512, 0, KW(0, 0, 2)));
        vs.push_back(mk("  stores policy evict_first", 8, 1, 512, 0, KW(0, 3, 0)));
    vs.push_back(mk("  stores policy evict_unchanged", 8, 1, 512, 0, KW(0, 4, 0)));
    vs.push_back(mk("  loads policy evict_first", 8, 1, 512, 0, KW(3, 0, 0)));
    vs.push_back(mk("C8 R1 T256 U8", 8, 1, 256, 0, (const void*)&rows_kernel<1, 8, 256, false, false>, (const void*)&rows_kernel<1, 8, 256, false, true>));
    vs.push_back(mk("C8 R1 T256 U8 merge 3 shuffles", 8, 1, 256, 0, (const void*)&rows_kernel<1, 8, 256, false, false, 0, 0, 0, 3>, (const void*)&rows_kernel<1, 8, 256, false, true, 0, 0, 0, 3>));
    copy64();
  } else if (mode == "shared") {  // design Z
    vs.push_back(mk("Z: 7 clusters of 16 x 512, U2+2", 16, -7, 512, 0, KZ(2, 512)));
    vs.push_back(mk("Z: 7 clusters of 16 x 256, U4+4", 16, -7, 256, 0, KZ(4, 256)));
    vs.push_back(mk("Z: 7 clusters of 16 x 1024, U1+1", 16, -7, 1024, 0, KZ(1, 1024)));
    copy64();
  } else {
    std::printf("mode is x, y, x0, rows, policy, claim or shared, not %s\n", mode.c_str());
    return 2;
  }
  auto launcher = [&](const V& v, bool stamped) {
    return std::function<void()>([&, v, stamped] {
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(v.blocks);
      cfg.blockDim = dim3(v.T);
      cudaLaunchAttribute at[1];
      at[0].id = cudaLaunchAttributeClusterDimension;
      at[0].val.clusterDim.x = v.C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
      cfg.attrs = at; cfg.numAttrs = v.C > 0 ? 1 : 0;
      const float* i = in; float* o = out; int cols = COLS, d = v.delay; unsigned long long* t = ts;
      void* args[] = {&i, &o, &cols, &d, &t};
      CK(cudaLaunchKernelExC(&cfg, stamped ? v.kts : v.k, args));
    });
  };
  auto phases = [&](const V& v) {
    const int blocks = v.blocks;
    CK(cudaMemset(ts, 0, 4096 * 16 * 8));
    CK(cudaMemsetAsync(g_flush, 1, g_flush_bytes));
    launcher(v, true)();
    CK(cudaDeviceSynchronize());
    std::vector<unsigned long long> t(blocks * 16);
    CK(cudaMemcpy(t.data(), ts, t.size() * 8, cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull;
    for (int b = 0; b < blocks; ++b) t0 = std::min(t0, t[b * 16]);
    std::printf("    phases ns med/max: ");
    for (int k = 0; k < 15; ++k) {
      std::vector<long long> d;
      for (int b = 0; b < blocks; ++b) if (t[b * 16 + k]) d.push_back((long long)(t[b * 16 + k] - t0));
      if (d.empty()) continue;
      std::sort(d.begin(), d.end());
      if (k == 0) std::printf("start %lld/%lld", d[d.size() / 2], d.back());
      else if (k == 14) std::printf(" | acked %lld/%lld", d[d.size() / 2], d.back());
      else std::printf(" | r%d %s %lld/%lld", (k - 1) / 3, (k - 1) % 3 == 0 ? "pair" : (k - 1) % 3 == 1 ? "row" : "st", d[d.size() / 2], d.back());
    }
    if (v.C > 0 && t[1] && t[2]) {  // row pair minus the cluster's latest block pair
      std::vector<long long> ex;
      for (int c0 = 0; c0 + v.C <= blocks; c0 += v.C) {
        unsigned long long lastpair = 0;
        for (int b = c0; b < c0 + v.C; ++b) lastpair = std::max(lastpair, t[b * 16 + 1]);
        for (int b = c0; b < c0 + v.C; ++b) ex.push_back((long long)(t[b * 16 + 2] - lastpair));
      }
      std::sort(ex.begin(), ex.end());
      std::printf(" | exchange after the cluster's last pair med/max %lld/%lld", ex[ex.size() / 2], ex.back());
    }
    std::vector<int> per(256, 0);
    int shared = 0;
    for (int b = 0; b < blocks; ++b) shared += per[t[b * 16 + 15] & 255]++ > 0;
    std::printf("; sharing an SM: %d\n", shared);
  };
  for (auto& v : vs) {
    if (v.C == 0 || v.k == E) continue;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(v.blocks); cfg.blockDim = dim3(v.T);
    cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = v.C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
    cfg.attrs = at; cfg.numAttrs = 1;
    int nc = 0; CK(cudaOccupancyMaxActiveClusters(&nc, v.k, &cfg));
    std::printf("%-44s clusters needed %d, fit %d\n", v.name.c_str(), v.blocks / v.C, nc);
  }
  const int rounds = argc > 2 ? atoi(argv[2]) : 3;
  for (int rep = 0; rep < rounds; ++rep) {
    const double t_memcpy = time_med([&] { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); });
    const double t_small = time_med([&] { CK(cudaMemcpyAsync(out, in, 16, cudaMemcpyDeviceToDevice)); });
    std::printf("memcpy D2D %.2f us (16 bytes: %.2f us)\n", t_memcpy, t_small);
    for (auto& v : vs) {
      CK(cudaMemset(out, 0xff, bytes));
      launcher(v, false)();
      CK(cudaDeviceSynchronize()); CK(cudaGetLastError());
      if (v.k != E && v.name.rfind("copyN", 0) != 0) check(v.name);
      const double t = time_med(launcher(v, false));
      std::printf("  %-46s %.2f us (%.3f x memcpy)\n", v.name.c_str(), t, t_memcpy / t);
      if (rep == 0 && v.k != E) phases(v);
    }
  }
  return 0;
}
