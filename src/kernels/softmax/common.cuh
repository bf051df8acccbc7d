// Device helpers every softmax kernel shares: packed loads and stores, warp, block and
// cluster reductions of a max, a sum and an online (max, rescaled sum) pair.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "index.cuh"
#include "memhier/core/ptx.cuh"

namespace memhier::softmax::detail {

__device__ __forceinline__ float neg_inf() {
  return __int_as_float(0xff800000);
}

/// The max to subtract: 0 when nothing finite was seen (a chunk of -inf gives exp = 0, not NaN).
__device__ __forceinline__ float safe_max(float m) {
  return m == neg_inf() ? 0.f : m;
}

// ---- PACK consecutive floats per access: float4 (16-byte aligned) or scalar ----------------

/// Read-only (non-coherent) global load of PACK floats; STREAM: evict-first (ld.global.cs),
/// for data read once.
template <int PACK, bool STREAM = false>
__device__ __forceinline__ void load_global(const float* p, float* v) {
  if constexpr (PACK == 4) {
    const float4* q = reinterpret_cast<const float4*>(p);
    const float4 t = STREAM ? __ldcs(q) : __ldg(q);
    v[0] = t.x;
    v[1] = t.y;
    v[2] = t.z;
    v[3] = t.w;
  } else {
    static_assert(PACK == 1, "PACK is 1 or 4");
    v[0] = STREAM ? __ldcs(p) : __ldg(p);
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

/// Store of PACK floats (global or shared); STREAM: evict-first global store (st.global.cs).
template <int PACK, bool STREAM = false>
__device__ __forceinline__ void store_pack(float* p, const float* v) {
  if constexpr (PACK == 4) {
    const float4 t = make_float4(v[0], v[1], v[2], v[3]);
    if constexpr (STREAM)
      __stcs(reinterpret_cast<float4*>(p), t);
    else
      *reinterpret_cast<float4*>(p) = t;
  } else if constexpr (STREAM) {
    __stcs(p, v[0]);
  } else {
    *p = v[0];
  }
}

/// Batched global loads: unit base + u*stride (u < UNROLL) of a row of `units` units into
/// v[u], `fill` past the end. The guards become predicates, so all UNROLL loads are in
/// flight before any is used.
template <int PACK, int UNROLL, bool STREAM = false>
__device__ __forceinline__ void load_batch(const float* row, int base, int stride, int units,
                                           float (&v)[UNROLL][PACK], float fill) {
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    const int i = base + u * stride;
    if (i < units) {
      load_global<PACK, STREAM>(row + static_cast<long long>(i) * PACK, v[u]);
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
  if constexpr (PACK == 4) {
    ptx::cp_async_cg_16(smem_dst, gmem_src);
  } else {
    static_assert(PACK == 1, "PACK is 1 or 4");
    ptx::cp_async_ca_4(smem_dst, gmem_src);
  }
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

/// A float's bits as an int that orders like the float (-0 just below +0; NaN above +inf):
/// what the integer warp reduction (REDUX, sm_80+) needs for a float max.
__device__ __forceinline__ int ordered_key(float f) {
  const int i = __float_as_int(f);
  return i >= 0 ? i : i ^ 0x7fffffff;
}
__device__ __forceinline__ float from_ordered_key(int k) {
  return __int_as_float(k >= 0 ? k : k ^ 0x7fffffff);
}

/// The warp's max in every lane: one REDUX instruction where the shuffle tree takes five
/// dependent shuffles.
__device__ __forceinline__ float warp_max_redux(float v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return from_ordered_key(__reduce_max_sync(0xffffffffu, ordered_key(v)));
#else
  return warp_max(v);
#endif
}

/// exp(d) for d <= 0 as ex2.approx.ftz(d * log2 e): one multiply and one MUFU op, where
/// expf spends about eight instructions and __expf five (its denormal handling). Results
/// below 2^-126 flush to zero; the error is that of __expf (a few ulp for |d| < 20).
__device__ __forceinline__ float exp_fast(float d) {
#if defined(__CUDA_ARCH__)
  return ptx::ex2_approx_ftz(d * 1.4426950408889634f);
#else
  return expf(d);
#endif
}

/// Merges the (max, sum) pairs the lanes hold into one pair in every lane: the max by REDUX,
/// then one rescale per lane (exp_fast: its argument is <= 0) and a sum by log2(width) xor
/// shuffles, instead of a shuffle tree of merges with two exponentials per step. width, a
/// power of two up to 32: every aligned group of `width` lanes holds the same pairs, so one
/// group's sum is the warp's; 32 when every lane holds its own. An empty pair is (-inf, 0).
__device__ __forceinline__ MaxSum merge_groups(MaxSum p, int width) {
  const float m = warp_max_redux(p.m);
  float part = p.m != neg_inf() ? p.s * exp_fast(p.m - m) : 0.f;
  for (int o = width >> 1; o > 0; o >>= 1) part += __shfl_xor_sync(0xffffffffu, part, o);
  return MaxSum{m, part};
}

/// Merges the pairs lanes hold (`valid` false: the lane holds none).
__device__ __forceinline__ MaxSum merge_lanes(MaxSum p, bool valid) {
  return merge_groups(valid ? p : empty_max_sum(), 32);
}

/// Merges n pairs posted in shared memory (1 <= n <= 32) into one pair in every lane. Every
/// aligned group of n-rounded-up-to-a-power-of-two lanes reads all n posts, so the sum takes
/// 3 xor shuffles for a cluster of 8 and 4 for a block of 16 warps, not 5. On the chain of
/// the latency-bound rung (cluster_per_row at 8 x 65536, measured on an H100 with a
/// harness not kept): the exchange after a cluster's last block pair
/// took 288 ns, against 352 ns with a 32-lane merge of the posts.
__device__ __forceinline__ MaxSum merge_posted(const float2* posted, int n) {
  const int width = n <= 1 ? 1 : 1 << (32 - __clz(n - 1));
  const int i = static_cast<int>(threadIdx.x) & (width - 1);
  const float2 q = i < n ? posted[i] : make_float2(neg_inf(), 0.f);
  return merge_groups(MaxSum{q.x, q.y}, width);
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

/// The block's (max, sum) from every thread's partial, in every thread. WARP_MAX: every
/// lane of a warp already holds the warp's max, so the lanes' sums only need adding.
template <bool WARP_MAX = false>
__device__ __forceinline__ MaxSum block_combine(MaxSum p, float2* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  p = WARP_MAX ? MaxSum{p.m, warp_sum(p.s)} : merge_lanes(p, true);
  if (lane == 0) scratch[warp] = make_float2(p.m, p.s);
  __syncthreads();
  return merge_posted(scratch, warps);
}

// ---- cluster exchange (sm_90): the partials of the blocks that share a row ------------------
// No cluster-wide barrier between the data's arrival and the stores: each block pushes its
// pair into slot `rank` of every block with `st.async`, an asynchronous distributed-shared-
// memory store that completes its bytes on the target's mbarrier, and waits on its own
// mbarrier, which expects one pair from every block. One cluster barrier makes sure every
// mbarrier is initialised before anyone pushes; it is arrived at before the loads are used
// and waited on just before the push, so nobody waits on it. A block leaves only after
// every push into it has landed (its mbarrier says so), so no barrier is needed at the end.
// Phase timestamps on an H100 at 8 x 65536 (a harness, not kept): from
// the block's pair to the row's, 0.25 us with st.async against 0.64 us with a remote store
// followed by a release arrive on the target's mbarrier, and 1.09 us (H200) with
// cluster.sync and remote reads.

constexpr int kMaxClusterBlocks = 16;

/// A block's static shared state for one exchange.
struct ClusterSlots {
  float2 pair[kMaxClusterBlocks];
  unsigned long long bar;  // an mbarrier: 8-byte aligned as the first 8-byte member
};

/// Every thread, once, before cluster_exchange (early: it overlaps the loads).
__device__ __forceinline__ void cluster_exchange_begin(ClusterSlots& slots) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (cooperative_groups::this_cluster().num_blocks() == 1) return;  // nothing to exchange
  if (threadIdx.x == 0) {
    ptx::mbarrier_init<1>(ptx::smem_addr(&slots.bar));
    ptx::fence_mbarrier_init_cluster();
  }
  ptx::cluster_arrive_relaxed();
#else
  (void)slots;
#endif
}

/// Every thread: pushes this block's pair, returns the merge of the cluster's pairs.
__device__ __forceinline__ MaxSum cluster_exchange(ClusterSlots& slots, MaxSum mine) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  const int n = static_cast<int>(cluster.num_blocks());
  if (n == 1) return mine;
  ptx::cluster_wait();  // every mbarrier is initialised
  const unsigned local_bar = ptx::smem_addr(&slots.bar);
  if (threadIdx.x == 0)  // the one arrival, expecting a pair from every block (pushes that
                         // land before it leave the transaction count below zero meanwhile)
    ptx::mbarrier_arrive_expect_tx(local_bar, static_cast<unsigned>(n * sizeof(float2)));
  if (static_cast<int>(threadIdx.x) < n)  // thread r pushes into block r
    ptx::st_async_remote_v2f32(ptx::smem_addr(&slots.pair[cluster.block_rank()]), local_bar,
                               threadIdx.x, mine.m, mine.s);
  while (!ptx::mbarrier_try_wait_parity_cluster<0>(local_bar)) {
  }
  return merge_posted(slots.pair, n);
#else
  (void)slots;
  return mine;  // not built for clusters: the host never launches this path
#endif
}

/// This block's cluster's index in a 1-D grid of clusters (the block's index without).
__device__ __forceinline__ int cluster_index() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return static_cast<int>(ptx::cluster_id_x());
#else
  return static_cast<int>(blockIdx.x);
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
