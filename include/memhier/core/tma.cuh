// TMA on the device: the mbarrier a bulk copy completes on, the proxy fence between thread
// writes and the copy engine, and the bulk copies themselves (cp.async.bulk 1-D and
// cp.async.bulk.tensor 2-D and 3-D, global -> shared and shared -> global). Every instruction is
// sm_90 PTX; the multicast form is legal on sm_90 and tuned for sm_90a, so the kernels that
// use it live in *.sm90a.cu files. Below sm_90 each wrapper traps: the host launchers pass
// core::require_kernel (gate.hpp) first and decline with its sentence.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "memhier/core/ptx.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define MEMHIER_TMA_DEVICE 1
#else
#define MEMHIER_TMA_DEVICE 0
#endif

namespace memhier::tma {

/// Reached only by device code compiled below sm_90, which the launchers never run.
__device__ __forceinline__ void unsupported() {
#if defined(__CUDA_ARCH__)
  __trap();
#endif
}

using ptx::smem_addr;

// ---- mbarrier: how a bulk copy tells the block it has landed -----------------------------

/// Initialises the mbarrier at shared address `bar` to expect `count` arrivals per phase.
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned count) {
#if MEMHIER_TMA_DEVICE
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
#else
  (void)bar, (void)count;
  unsupported();
#endif
}

/// Makes this thread's mbarrier initialisations visible to the copy engine and the cluster;
/// a __syncthreads (or cluster barrier) after it lets others use them.
__device__ __forceinline__ void fence_mbarrier_init() {
#if MEMHIER_TMA_DEVICE
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
  unsupported();
#endif
}

/// Arrives once on `bar` and adds `bytes` to the transaction count the phase waits for.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(unsigned bar, unsigned bytes) {
#if MEMHIER_TMA_DEVICE
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
#else
  (void)bar, (void)bytes;
  unsupported();
#endif
}

/// One test of whether the phase of `bar` with this parity (0 or 1) has completed; true once
/// it has. The hardware may suspend the thread a while before answering false.
__device__ __forceinline__ bool mbarrier_try_wait_parity(unsigned bar, unsigned parity) {
#if MEMHIER_TMA_DEVICE
  unsigned done;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
#else
  (void)bar, (void)parity;
  unsupported();
  return true;
#endif
}

/// Waits until the phase of `bar` with this parity has completed.
__device__ __forceinline__ void mbarrier_wait_parity(unsigned bar, unsigned parity) {
  while (!mbarrier_try_wait_parity(bar, parity)) {
  }
}

/// Orders this thread's generic-proxy shared-memory writes before later async-proxy
/// (bulk copy) reads of them: a bulk store of what threads wrote needs it, then a barrier.
__device__ __forceinline__ void fence_proxy_async_shared() {
#if MEMHIER_TMA_DEVICE
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#else
  unsupported();
#endif
}

// ---- cp.async.bulk: contiguous bytes -----------------------------------------------------

/// Copies `bytes` (a multiple of 16) global -> shared, both 16-byte aligned, completing
/// them as transactions on the mbarrier at `bar`.
__device__ __forceinline__ void bulk_load(unsigned dst, const void* src, unsigned bytes,
                                          unsigned bar) {
#if MEMHIER_TMA_DEVICE
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(dst),
      "l"(src), "r"(bytes), "r"(bar)
      : "memory");
#else
  (void)dst, (void)src, (void)bytes, (void)bar;
  unsupported();
#endif
}

/// Copies `bytes` (a multiple of 16) shared -> global, both 16-byte aligned, in this
/// thread's current bulk group (bulk_commit closes it).
__device__ __forceinline__ void bulk_store(void* dst, unsigned src, unsigned bytes) {
#if MEMHIER_TMA_DEVICE
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src),
               "r"(bytes)
               : "memory");
#else
  (void)dst, (void)src, (void)bytes;
  unsupported();
#endif
}

/// Closes this thread's bulk stores issued so far into one group.
__device__ __forceinline__ void bulk_commit() {
#if MEMHIER_TMA_DEVICE
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#else
  unsupported();
#endif
}

/// Waits until at most N of this thread's bulk groups still read their shared source (the
/// buffer may then be overwritten; the global writes may still be in flight).
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
#if MEMHIER_TMA_DEVICE
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
#else
  unsupported();
#endif
}

/// Waits until at most N of this thread's bulk groups are incomplete (writes done).
template <int N>
__device__ __forceinline__ void bulk_wait() {
#if MEMHIER_TMA_DEVICE
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
#else
  unsupported();
#endif
}

// ---- cp.async.bulk.tensor: 2-D boxes through a tensor map --------------------------------

/// Fetches the tensor map (a __grid_constant__ kernel parameter) into the descriptor cache.
__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
#if MEMHIER_TMA_DEVICE
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
#else
  (void)map;
  unsupported();
#endif
}

/// Loads the box whose first element is (column x, row y) of `map`'s tensor into shared
/// memory at `dst` (128-byte aligned; 1024 when swizzled), completing on `bar`. Elements
/// outside the tensor arrive as zeros and still count as transactions.
__device__ __forceinline__ void tensor_load_2d(unsigned dst, const CUtensorMap* map, int x, int y,
                                               unsigned bar) {
#if MEMHIER_TMA_DEVICE
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"(map), "r"(x), "r"(y), "r"(bar)
      : "memory");
#else
  (void)dst, (void)map, (void)x, (void)y, (void)bar;
  unsupported();
#endif
}

/// tensor_load_2d from layer `z` of a three-dimensional map (encode_tensor_map_3d): rows past
/// the layer's last arrive as zeros.
__device__ __forceinline__ void tensor_load_3d(unsigned dst, const CUtensorMap* map, int x, int y,
                                               int z, unsigned bar) {
#if MEMHIER_TMA_DEVICE
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(dst),
      "l"(map), "r"(x), "r"(y), "r"(z), "r"(bar)
      : "memory");
#else
  (void)dst, (void)map, (void)x, (void)y, (void)z, (void)bar;
  unsupported();
#endif
}

/// tensor_load_2d into the same shared offset `dst` of every block of the cluster whose bit
/// is set in `cta_mask`, completing on each one's mbarrier at the same offset `bar`: one
/// read of global memory (L2) for all of them.
__device__ __forceinline__ void tensor_load_2d_multicast(unsigned dst, const CUtensorMap* map,
                                                         int x, int y, unsigned bar,
                                                         std::uint16_t cta_mask) {
#if MEMHIER_TMA_DEVICE
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
      "l"(map), "r"(x), "r"(y), "r"(bar), "h"(cta_mask)
      : "memory");
#else
  (void)dst, (void)map, (void)x, (void)y, (void)bar, (void)cta_mask;
  unsupported();
#endif
}

/// Stores the box at shared `src` to (column x, row y) of `map`'s tensor in this thread's
/// current bulk group; elements outside the tensor are not written.
__device__ __forceinline__ void tensor_store_2d(const CUtensorMap* map, int x, int y,
                                                unsigned src) {
#if MEMHIER_TMA_DEVICE
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map),
      "r"(x), "r"(y), "r"(src)
      : "memory");
#else
  (void)map, (void)x, (void)y, (void)src;
  unsupported();
#endif
}

/// Where byte `offset` of a box row-major in global order lands in shared memory under
/// the 128-byte swizzle (the box at a 1024-byte aligned address): its 16-byte chunk within
/// the 128-byte row is XORed with the row's index mod 8.
__host__ __device__ __forceinline__ unsigned swizzle_128b(unsigned offset) {
  return offset ^ (((offset >> 7) & 7u) << 4);
}

}  // namespace memhier::tma
