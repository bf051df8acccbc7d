// The vectorized grid-stride machinery shared by the last rungs: each thread streams
// float4 loads over the array (U independent 16-byte loads in flight per step, a grid
// sized to fill every SM once), then the block reduces its threads' values. Two ways to
// finish: block partials plus a second small launch, or a single pass in which the
// last block to arrive reduces the partials (its ticket taken between two fences, or by
// one acquire-release atomic).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cuda/atomic>

#include "index.cuh"
#include "memhier/core/check.hpp"
#include "memhier/core/ptx.cuh"
#include "reduce_ops.cuh"
#include "variants.hpp"

namespace memhier::reduction::detail {

/// How the 16-byte loads are issued.
enum class Load {
  ldg,              ///< ld.global.nc (read-only path), as CUB's LOAD_LDG
  l2_prefetch_256,  ///< ld.global.nc.L1::no_allocate.L2::256B: L2 fetches 256-byte blocks
};

template <Load L>
__device__ __forceinline__ float4 load4(const float4* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (L == Load::l2_prefetch_256) return ptx::ld_nc_no_l1_l2_256b(p);
#endif
  return __ldg(p);
}

template <class OpT>
__device__ __forceinline__ float reduce4(float4 v) {
  return OpT::apply(OpT::apply(v.x, v.y), OpT::apply(v.z, v.w));
}

/// This thread's share of the n floats at `in`: a scalar head up to the first 16-byte
/// boundary, float4 tiles of B*U vectors per block step (grid-stride), a scalar tail of
/// fewer than 4. U accumulators keep U loads independent and the add chains short.
template <class OpT, int B, int U, Load L>
__device__ __forceinline__ float thread_accumulate(const float* in, std::size_t n) {
  static_assert(U >= 1 && (U & (U - 1)) == 0, "U must be a power of two");
  const std::size_t head = index::scalar_head(reinterpret_cast<std::uintptr_t>(in), n);
  const std::size_t nvec = (n - head) / 4;
  const std::size_t tail_start = head + 4 * nvec;
  const float4* vec = reinterpret_cast<const float4*>(in + head);

  float acc[U];
#pragma unroll
  for (int u = 0; u < U; ++u) acc[u] = OpT::identity();

  constexpr std::size_t kTile = static_cast<std::size_t>(B) * U;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kTile;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * kTile + threadIdx.x;
  for (; i + (U - 1) * static_cast<std::size_t>(B) < nvec; i += stride) {
    float4 r[U];
#pragma unroll
    for (int u = 0; u < U; ++u) r[u] = load4<L>(vec + i + static_cast<std::size_t>(u) * B);
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u] = OpT::apply(acc[u], reduce4<OpT>(r[u]));
  }
  // The one partial tile (if any) is this step's: i + (U-1)*B >= nvec, and the next
  // step starts past nvec.
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const std::size_t j = i + static_cast<std::size_t>(u) * B;
    if (j < nvec) acc[u] = OpT::apply(acc[u], reduce4<OpT>(load4<L>(vec + j)));
  }
  // Scalar head and tail (fewer than 4 each): the first threads of the grid.
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * B + threadIdx.x;
  if (g < head) acc[0] = OpT::apply(acc[0], __ldg(in + g));
  if (g < n - tail_start) acc[0] = OpT::apply(acc[0], __ldg(in + tail_start + g));

#pragma unroll
  for (int w = U / 2; w > 0; w /= 2)
#pragma unroll
    for (int u = 0; u < w; ++u) acc[u] = OpT::apply(acc[u], acc[u + w]);
  return acc[0];
}

/// Pass 1 of the two-pass variant: block b's share of the array into dst[b].
template <class OpT, int B, int U, Load L>
__global__ void __launch_bounds__(B)
    grid_partials_kernel(const float* in, std::size_t n, float* dst) {
  const float v = block_reduce<OpT, B>(thread_accumulate<OpT, B, U, L>(in, n));
  if (threadIdx.x == 0) dst[blockIdx.x] = v;
}

/// Pass 2: one block reduces `count` partials into *out.
template <class OpT, int B>
__global__ void __launch_bounds__(B)
    finish_partials_kernel(const float* partials, unsigned count, float* out) {
  float v = OpT::identity();
  for (unsigned i = threadIdx.x; i < count; i += B) v = OpT::apply(v, partials[i]);
  v = block_reduce<OpT, B>(v);
  if (threadIdx.x == 0) *out = v;
}

/// How a single-pass block takes its ticket after storing its partial.
enum class Ticket {
  fences,   ///< __threadfence(), relaxed atomicInc, and a fence in the last block (the
            ///< CUDA guide's threadFenceReduction)
  acq_rel,  ///< one fetch_add with acquire-release order at device scope: releases this
            ///< block's partial and, in the last block, acquires every other's. Measured on
            ///< an H100 at 2^20 (full grid): 8.0 against 8.5 us with the fences.
};

/// The end of a single pass, once the block has reduced its share to `v` (thread 0's): every
/// block writes its partial and takes a ticket; the block that draws the last ticket reduces
/// all partials into *out and resets the counter to zero for the next launch. No block waits
/// for another (no co-residency needed). Every thread of the block calls it.
template <class OpT, int B, Ticket T>
__device__ __forceinline__ void single_pass_finish(float v, float* partials, unsigned* counter,
                                                   float* out) {
  __shared__ bool is_last;
  if (gridDim.x == 1) {  // uniform: the block's value is the answer
    if (threadIdx.x == 0) *out = v;
    return;
  }
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = v;
    if constexpr (T == Ticket::fences) {
      __threadfence();  // the partial is visible device-wide before the ticket is taken
      is_last = atomicInc(counter, gridDim.x) == gridDim.x - 1;
    } else {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket(*counter);
      is_last = ticket.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
  }
  __syncthreads();       // the last block's other threads read after thread 0's acquire
  if (!is_last) return;  // uniform per block
  if constexpr (T == Ticket::fences) __threadfence();  // pairs with the writers' fences
  float w = OpT::identity();
  for (unsigned i = threadIdx.x; i < gridDim.x; i += B) w = OpT::apply(w, __ldcg(partials + i));
  w = block_reduce<OpT, B>(w);
  if (threadIdx.x == 0) {
    *out = w;
    *counter = 0;  // the last block resets the counter: the workspace is ready again
  }
}

/// Single pass over registers: thread_accumulate's share of the array, then
/// single_pass_finish.
template <class OpT, int B, int U, Load L, Ticket T>
__global__ void __launch_bounds__(B)
    single_pass_kernel(const float* in, std::size_t n, float* partials, unsigned* counter,
                       float* out) {
  const float v = block_reduce<OpT, B>(thread_accumulate<OpT, B, U, L>(in, n));
  single_pass_finish<OpT, B, T>(v, partials, counter, out);
}

/// Launches the single-pass kernel of one configuration for l.op.
template <int B, int U, Load L, Ticket T>
void launch_single_pass_config(const Launch& l) {
  if (l.op == Op::sum)
    single_pass_kernel<SumOp, B, U, L, T>
        <<<l.grid, B, 0, l.stream>>>(l.in, l.n, l.slots, l.counter, l.out);
  else
    single_pass_kernel<MaxOp, B, U, L, T>
        <<<l.grid, B, 0, l.stream>>>(l.in, l.n, l.slots, l.counter, l.out);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::reduction::detail
