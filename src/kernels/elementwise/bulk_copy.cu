// Rung bulk_copy: the way CUB's DeviceTransform moves data on Hopper. A resident grid of
// blocks loops over 8 KiB tiles; one thread per block asks the TMA for the next tile of x
// (and of y, for axpy) with cp.async.bulk while the block works on the current one (two
// stages, each completing on its own mbarrier); the threads read their float4 from shared
// memory, apply the operation and store it. The bulk copies need 16-byte aligned addresses
// and sizes: they run on the float4 split (x and y share a 16-byte boundary after a scalar
// head of at most 3 elements; otherwise the scalar kernel runs, as for every float4 rung),
// and the partial last tile is a whole number of float4. Below compute capability 9.0 the
// rung declines.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "memhier/core/check.hpp"
#include "memhier/core/gate.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/core/tma.cuh"
#include "memhier/core/tma.hpp"
#include "ops.cuh"
#include "variants.hpp"

namespace memhier::elementwise::detail {
namespace {

constexpr int kTileVec = 2 * kBlock;            // float4 per array per tile: 8 KiB
constexpr unsigned kTileBytes = kTileVec * 16;  // bytes per array per tile
constexpr int kStages = 2;

/// Dynamic shared memory of the kernel for `Op`: kStages tiles of x, and of y for axpy.
template <class Op>
constexpr int smem_bytes() {
  return kStages * (Op::kReadsY ? 2 : 1) * static_cast<int>(kTileBytes);
}

template <class Op>
__global__ void __launch_bounds__(kBlock)
    bulk_copy_kernel(Op op, const float* __restrict__ x, float* __restrict__ y, Split sp) {
#if MEMHIER_TMA_DEVICE
  extern __shared__ __align__(128) unsigned char stage_mem[];
  __shared__ alignas(8) unsigned long long bars[kStages];
  const float4* xv = reinterpret_cast<const float4*>(x + sp.head);
  float4* yv = reinterpret_cast<float4*>(y + sp.head);
  const std::size_t tiles = (sp.nvec + kTileVec - 1) / kTileVec;
  constexpr unsigned arrays = Op::kReadsY ? 2u : 1u;
  const unsigned mem = tma::smem_addr(stage_mem);
  // Stage s: x's tile at s * arrays * kTileBytes, y's right after it.
  const auto issue = [&](std::size_t tile, int s) {
    const std::size_t first = tile * kTileVec;
    const unsigned bytes =
        static_cast<unsigned>(std::min<std::size_t>(kTileVec, sp.nvec - first)) * 16u;
    const unsigned bar = tma::smem_addr(&bars[s]);
    const unsigned dst = mem + static_cast<unsigned>(s) * arrays * kTileBytes;
    tma::mbarrier_arrive_expect_tx(bar, arrays * bytes);
    tma::bulk_load(dst, xv + first, bytes, bar);
    if (Op::kReadsY) tma::bulk_load(dst + kTileBytes, yv + first, bytes, bar);
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) tma::mbarrier_init(tma::smem_addr(&bars[s]), 1);
    tma::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x < tiles) issue(blockIdx.x, 0);
  unsigned iter = 0;
  for (std::size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x, ++iter) {
    const int s = static_cast<int>(iter % kStages);
    // The other stage was read in the previous round, which every thread has left.
    if (threadIdx.x == 0 && tile + gridDim.x < tiles) issue(tile + gridDim.x, (s + 1) % kStages);
    tma::mbarrier_wait_parity(tma::smem_addr(&bars[s]), (iter / kStages) & 1u);
    const float4* xs =
        reinterpret_cast<const float4*>(stage_mem + static_cast<unsigned>(s) * arrays * kTileBytes);
    const float4* ys = xs + kTileVec;
    const std::size_t first = tile * kTileVec;
    const int count = static_cast<int>(std::min<std::size_t>(kTileVec, sp.nvec - first));
#pragma unroll
    for (int k = 0; k < kTileVec / kBlock; ++k) {
      const int i = k * kBlock + static_cast<int>(threadIdx.x);
      if (i < count)
        yv[first + static_cast<std::size_t>(i)] =
            apply4(op, xs[i], Op::kReadsY ? ys[i] : make_float4(0.f, 0.f, 0.f, 0.f));
    }
    __syncthreads();  // this stage is free for the load issued next round
  }
  split_edges(op, x, y, sp, flat_index(blockIdx.x, blockDim.x, threadIdx.x));
#else
  (void)op, (void)x, (void)y, (void)sp;
  tma::unsupported();
#endif
}

template <class Op>
void launch_with(Op op, const float* x, float* y, const Split& sp, cudaStream_t s) {
  const void* kernel = reinterpret_cast<const void*>(bulk_copy_kernel<Op>);
  const std::size_t tiles = (sp.nvec + kTileVec - 1) / kTileVec;
  const std::size_t resident = static_cast<std::size_t>(
      core::resident_grid(kernel, kBlock, smem_bytes<Op>(), 0, /*prefer_max_shared=*/true));
  const unsigned grid =
      static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(tiles, resident)));
  bulk_copy_kernel<<<grid, kBlock, smem_bytes<Op>(), s>>>(op, x, y, sp);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace

void launch_bulk_copy(OpArgs op, const float* x, float* y, const Split& sp, cudaStream_t s) {
  const int smem = op.op == Op::axpy ? smem_bytes<AxpyOp>() : smem_bytes<CopyOp>();
  core::require_kernel("elementwise bulk_copy", bulk_copy_symbol(op.op), {90, false, smem, 0});
  if (op.op == Op::axpy)
    launch_with(AxpyOp{op.a}, x, y, sp, s);
  else
    launch_with(CopyOp{}, x, y, sp, s);
}

const void* bulk_copy_symbol(Op op) {
  return op == Op::axpy ? reinterpret_cast<const void*>(bulk_copy_kernel<AxpyOp>)
                        : reinterpret_cast<const void*>(bulk_copy_kernel<CopyOp>);
}

}  // namespace memhier::elementwise::detail
