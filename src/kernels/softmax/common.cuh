// Device helpers every softmax kernel shares: packed loads and stores, warp, block and
// cluster reductions of a max, a sum and an online (max, rescaled sum) pair.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "index.cuh"

namespace memhier::softmax::detail {

__device__ __forceinline__ float neg_inf() {
  return __int_as_float(0xff800000);
}

/// The max to subtract: 0 when nothing finite was seen (a chunk of -inf gives exp = 0, not NaN).
__device__ __forceinline__ float safe_max(float m) {
  return m == neg_inf() ? 0.f : m;
}

// ---- PACK consecutive floats per access: float4 (16-byte aligned) or scalar ----------------

/// Read-only (non-coherent) global load of PACK floats.
template <int PACK>
__device__ __forceinline__ void load_global(const float* p, float* v) {
  if constexpr (PACK == 4) {
    const float4 t = __ldg(reinterpret_cast<const float4*>(p));
    v[0] = t.x;
    v[1] = t.y;
    v[2] = t.z;
    v[3] = t.w;
  } else {
    static_assert(PACK == 1, "PACK is 1 or 4");
    v[0] = __ldg(p);
  }
}

/// Load of PACK floats from shared (or any coherent) memory.
template <int PACK>
__device__ __forceinline__ void load_plain(const float* p, float* v) {
  if constexpr (PACK == 4) {
    const float4 t = *reinterpret_cast<const float4*>(p);
    v[0] = t.x;
    v[1] = t.y;
    v[2] = t.z;
    v[3] = t.w;
  } else {
    v[0] = *p;
  }
}

/// Store of PACK floats (global or shared).
template <int PACK>
__device__ __forceinline__ void store_pack(float* p, const float* v) {
  if constexpr (PACK == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  } else {
    *p = v[0];
  }
}

/// Batched global loads: unit base + u*stride (u < UNROLL) of a row of `units` units into
/// v[u], `fill` past the end. The guards become predicates, so all UNROLL loads are in
/// flight before any is used.
template <int PACK, int UNROLL>
__device__ __forceinline__ void load_batch(const float* row, int base, int stride, int units,
                                           float (&v)[UNROLL][PACK], float fill) {
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    const int i = base + u * stride;
    if (i < units) {
      load_global<PACK>(row + static_cast<long long>(i) * PACK, v[u]);
    } else {
#pragma unroll
      for (int k = 0; k < PACK; ++k) v[u][k] = fill;
    }
  }
}

/// Asynchronous copy of PACK floats from global to shared memory (sm_80+): no register
/// holds the data, so a thread can have its whole share of a row in flight at once.
template <int PACK>
__device__ __forceinline__ void cp_async(float* smem_dst, const float* gmem_src) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  if constexpr (PACK == 4) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(gmem_src)
                 : "memory");
  } else {
    static_assert(PACK == 1, "PACK is 1 or 4");
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(gmem_src) : "memory");
  }
}

/// Waits for this thread's cp.async copies (visible to this thread; others need a barrier).
__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.wait_all;\n" ::: "memory");
}

// ---- warp reductions (butterfly: every lane ends with the result) --------------------------

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/// An online softmax partial: the max seen and the sum of exp(x - m) over what was seen.
/// Empty: m = -inf, s = 0.
struct MaxSum {
  float m;
  float s;
};

__device__ __forceinline__ MaxSum empty_max_sum() {
  return MaxSum{neg_inf(), 0.f};
}

/// Merges two partials, rescaling each sum to the larger max; an empty side is ignored.
__device__ __forceinline__ MaxSum combine(MaxSum a, MaxSum b) {
  if (a.m == neg_inf()) return b;
  if (b.m == neg_inf()) return a;
  const float m = fmaxf(a.m, b.m);
  return MaxSum{m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

/// Adds a batch of U x P values to a partial with one rescale for the whole batch.
template <int U, int P>
__device__ __forceinline__ void online_update(MaxSum& p, const float (&v)[U][P]) {
  float bm = neg_inf();
#pragma unroll
  for (int u = 0; u < U; ++u)
#pragma unroll
    for (int k = 0; k < P; ++k) bm = fmaxf(bm, v[u][k]);
  const float m = fmaxf(p.m, bm);
  if (m == neg_inf()) return;  // nothing finite yet
  float acc = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u)
#pragma unroll
    for (int k = 0; k < P; ++k) acc += expf(v[u][k] - m);  // -inf padding adds 0
  p.s = p.s * expf(p.m - m) + acc;                         // p.m = -inf: expf(-inf) = 0
  p.m = m;
}

__device__ __forceinline__ MaxSum warp_combine(MaxSum p) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const MaxSum q{__shfl_xor_sync(0xffffffffu, p.m, o), __shfl_xor_sync(0xffffffffu, p.s, o)};
    p = combine(p, q);
  }
  return p;
}

// ---- block reductions (blockDim.x a multiple of 32, at most 1024) --------------------------
// Each warp reduces, lane 0 posts to `scratch` (32 slots), one barrier, then every warp
// reduces the posts itself: one __syncthreads, and every thread gets the result. A scratch
// array serves one reduction per kernel (it is not rewritten after the barrier).

__device__ __forceinline__ float block_max(float v, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  v = warp_max(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  return warp_max(lane < warps ? scratch[lane] : neg_inf());
}

__device__ __forceinline__ float block_sum(float v, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  v = warp_sum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  return warp_sum(lane < warps ? scratch[lane] : 0.f);
}

__device__ __forceinline__ MaxSum block_combine(MaxSum p, float* scratch_m, float* scratch_s) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  p = warp_combine(p);
  if (lane == 0) {
    scratch_m[warp] = p.m;
    scratch_s[warp] = p.s;
  }
  __syncthreads();
  const MaxSum q = lane < warps ? MaxSum{scratch_m[lane], scratch_s[lane]} : empty_max_sum();
  return warp_combine(q);
}

// ---- cluster exchange (sm_90): the partials of the blocks that share a row ------------------

/// Posts this block's partial, waits for the cluster, merges every block's partial (read
/// through distributed shared memory), then arrives on the cluster barrier: the caller
/// must call cluster_finish() before it exits, so that no block leaves while another may
/// still read its shared memory. `post` and `result` are this block's shared slots.
__device__ __forceinline__ MaxSum cluster_combine(MaxSum local, float2* post, float2* result) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) *post = make_float2(local.m, local.s);
  cluster.sync();  // every block has started and posted
  if (threadIdx.x < 32) {
    MaxSum p = empty_max_sum();
    const int n = static_cast<int>(cluster.num_blocks());
    for (int r = static_cast<int>(threadIdx.x); r < n; r += 32) {
      const float2 q = *cluster.map_shared_rank(post, r);
      p = combine(p, MaxSum{q.x, q.y});
    }
    p = warp_combine(p);
    if (threadIdx.x == 0) *result = make_float2(p.m, p.s);
  }
  cluster.barrier_arrive();  // this block's remote reads are done
  __syncthreads();
  const float2 r = *result;
  return MaxSum{r.x, r.y};
#else
  (void)post;
  (void)result;
  return local;  // not built for clusters: the host never launches this path
#endif
}

/// Waits until every block of the cluster has finished reading this block's shared memory.
__device__ __forceinline__ void cluster_finish() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cooperative_groups::this_cluster().barrier_wait();
#endif
}

/// This block's rank in its cluster and the cluster's size (0 and 1 without clusters).
__device__ __forceinline__ int cluster_rank() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return static_cast<int>(cooperative_groups::this_cluster().block_rank());
#else
  return 0;
#endif
}

__device__ __forceinline__ int cluster_size() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return static_cast<int>(cooperative_groups::this_cluster().num_blocks());
#else
  return 1;
#endif
}

}  // namespace memhier::softmax::detail
