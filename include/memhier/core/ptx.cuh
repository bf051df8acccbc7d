// The inline-PTX wrappers the kernel families share: cp.async, mbarrier, cluster barriers
// and distributed shared memory, bulk prefetch, one cache-hinted load and one MUFU op.
// Each keeps the exact PTX, qualifiers and clobbers the kernels were measured with; the
// caller guards what needs sm_90 (clusters, bulk copies) by __CUDA_ARCH__.
#pragma once

#include <cuda_runtime.h>

namespace memhier::ptx {

/// The shared-window address of a generic pointer into this block's shared memory.
__device__ __forceinline__ unsigned smem_addr(const void* p) {
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
#else
  (void)p;
  return 0;
#endif
}

// ---- cp.async (sm_80+): global -> shared without registers -------------------------------

/// Copies 4 bytes global -> shared through L1 (cp.async.ca).
__device__ __forceinline__ void cp_async_ca_4(void* smem_dst, const void* gmem_src) {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smem_addr(smem_dst)),
               "l"(gmem_src)
               : "memory");
#else
  (void)smem_dst, (void)gmem_src;
#endif
}

/// Copies 16 bytes global -> shared bypassing L1 (cp.async.cg); both 16-byte aligned.
__device__ __forceinline__ void cp_async_cg_16(void* smem_dst, const void* gmem_src) {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(smem_dst)),
               "l"(gmem_src)
               : "memory");
#else
  (void)smem_dst, (void)gmem_src;
#endif
}

/// cp_async_ca_4 reading only `src_bytes` (0 or 4) and zero-filling the rest: with 0 the
/// source is not read, which is how edge tiles are padded.
__device__ __forceinline__ void cp_async_ca_4_zfill(void* smem_dst, const void* gmem_src,
                                                    int src_bytes) {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(smem_dst)),
               "l"(gmem_src), "r"(src_bytes)
               : "memory");
#else
  (void)smem_dst, (void)gmem_src, (void)src_bytes;
#endif
}

/// cp_async_cg_16 reading only the first `src_bytes` (0..16) and zero-filling the rest.
__device__ __forceinline__ void cp_async_cg_16_zfill(void* smem_dst, const void* gmem_src,
                                                     int src_bytes) {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(smem_dst)),
               "l"(gmem_src), "r"(src_bytes)
               : "memory");
#else
  (void)smem_dst, (void)gmem_src, (void)src_bytes;
#endif
}

/// Closes this thread's cp.async copies issued so far into one group.
__device__ __forceinline__ void cp_async_commit_group() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait_group() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/// Waits for all of this thread's cp.async copies (visible to this thread; others need a
/// barrier).
__device__ __forceinline__ void cp_async_wait_all() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// ---- bulk copies (sm_90) -----------------------------------------------------------------

/// Prefetches Bytes (a multiple of 16) at the 16-byte aligned global p into L2; nothing
/// waits on it.
template <unsigned Bytes>
__device__ __forceinline__ void bulk_prefetch_l2(const void* p) {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "n"(Bytes) : "memory");
#else
  (void)p;
#endif
}

// ---- mbarrier, cluster barriers, distributed shared memory (sm_90) -----------------------

/// Initialises the mbarrier at shared address `bar` to expect Count arrivals.
template <unsigned Count>
__device__ __forceinline__ void mbarrier_init(unsigned bar) {
#if defined(__CUDA_ARCH__)
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "n"(Count) : "memory");
#else
  (void)bar;
#endif
}

/// Makes this thread's mbarrier initialisations visible to the cluster (release).
__device__ __forceinline__ void fence_mbarrier_init_cluster() {
#if defined(__CUDA_ARCH__)
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

/// Arrives on the cluster barrier without ordering memory (pair with cluster_wait).
__device__ __forceinline__ void cluster_arrive_relaxed() {
#if defined(__CUDA_ARCH__)
  asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
#endif
}

/// Waits until every thread of the cluster has arrived on the cluster barrier.
__device__ __forceinline__ void cluster_wait() {
#if defined(__CUDA_ARCH__)
  asm volatile("barrier.cluster.wait;" ::: "memory");
#endif
}

/// Arrives once on the mbarrier at `bar`, adding `bytes` to the transactions it expects.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(unsigned bar, unsigned bytes) {
#if defined(__CUDA_ARCH__)
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
#else
  (void)bar, (void)bytes;
#endif
}

/// Stores (x, y) into block `rank`'s copy of the shared slot at `slot`, completing 8 bytes
/// of transactions on that block's copy of the mbarrier at `bar` (mapa + st.async).
__device__ __forceinline__ void st_async_remote_v2f32(unsigned slot, unsigned bar, unsigned rank,
                                                      float x, float y) {
#if defined(__CUDA_ARCH__)
  asm volatile(
      "{\n\t.reg .b32 a, b;\n\t"
      "mapa.shared::cluster.u32 a, %0, %2;\n\t"
      "mapa.shared::cluster.u32 b, %1, %2;\n\t"
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [a], {%3, %4}, [b];\n\t}" ::"r"(
          slot),
      "r"(bar), "r"(rank), "f"(x), "f"(y)
      : "memory");
#else
  (void)slot, (void)bar, (void)rank, (void)x, (void)y;
#endif
}

/// One test of the mbarrier at `bar` for the completion of phase parity Parity, acquiring
/// at cluster scope; nonzero once it completed.
template <unsigned Parity>
__device__ __forceinline__ unsigned mbarrier_try_wait_parity_cluster(unsigned bar) {
#if defined(__CUDA_ARCH__)
  unsigned done;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(bar), "n"(Parity)
      : "memory");
  return done;
#else
  (void)bar;
  return 1;
#endif
}

/// This block's cluster's x index in the grid of clusters.
__device__ __forceinline__ unsigned cluster_id_x() {
#if defined(__CUDA_ARCH__)
  unsigned id;
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(id));
  return id;
#else
  return 0;
#endif
}

// ---- loads and math ----------------------------------------------------------------------

/// 16-byte read-only load that skips L1 and has L2 fetch 256-byte blocks (sm_80+).
__device__ __forceinline__ float4 ld_nc_no_l1_l2_256b(const float4* p) {
  float4 r;
#if defined(__CUDA_ARCH__)
  asm("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
      : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
      : "l"(p));
#else
  r = *p;
#endif
  return r;
}

/// 2^x by the MUFU unit (ex2.approx.ftz): results below 2^-126 flush to zero.
__device__ __forceinline__ float ex2_approx_ftz(float x) {
#if defined(__CUDA_ARCH__)
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else
  return exp2f(x);
#endif
}

}  // namespace memhier::ptx
