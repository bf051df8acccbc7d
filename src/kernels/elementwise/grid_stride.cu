// Rung 5, grid_stride: as many blocks as the device holds at once (SMs x resident blocks
// per SM, read from the device), each looping over contiguous tiles of kUnroll x kBlock
// float4, all loads of a tile in flight before its stores. No tail wave: every SM streams
// until the end, and block scheduling happens once.
#include <algorithm>

#include "memhier/core/check.hpp"
#include "memhier/core/launch.hpp"
#include "ops.cuh"
#include "variants.hpp"

namespace memhier::elementwise::detail {
namespace {

template <class Op>
__global__ void __launch_bounds__(kBlock)
    grid_stride_kernel(Op op, const float* __restrict__ x, float* __restrict__ y, Split sp) {
  const float4* xv = reinterpret_cast<const float4*>(x + sp.head);
  float4* yv = reinterpret_cast<float4*>(y + sp.head);
  const std::size_t tile = static_cast<std::size_t>(kUnroll) * kBlock;
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * tile; base < sp.nvec;
       base += static_cast<std::size_t>(gridDim.x) * tile)
    tile_pass<Op, kUnroll, Cache::normal>(op, xv, yv, base, sp.nvec);
  split_edges(op, x, y, sp, flat_index(blockIdx.x, blockDim.x, threadIdx.x));
}

template <class Op>
void launch_with(Op op, const float* x, float* y, const Split& sp, cudaStream_t s) {
  const std::size_t tile = static_cast<std::size_t>(kUnroll) * kBlock;
  const std::size_t tiles = (sp.nvec + tile - 1) / tile;
  const unsigned grid = static_cast<unsigned>(std::max<std::size_t>(
      1, std::min<std::size_t>(
             tiles,
             core::resident_grid(reinterpret_cast<const void*>(grid_stride_kernel<Op>), kBlock))));
  grid_stride_kernel<<<grid, kBlock, 0, s>>>(op, x, y, sp);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace

void launch_grid_stride(OpArgs op, const float* x, float* y, const Split& sp, cudaStream_t s) {
  if (op.op == Op::axpy)
    launch_with(AxpyOp{op.a}, x, y, sp, s);
  else
    launch_with(CopyOp{}, x, y, sp, s);
}

const void* grid_stride_symbol(Op op) {
  return op == Op::axpy ? reinterpret_cast<const void*>(grid_stride_kernel<AxpyOp>)
                        : reinterpret_cast<const void*>(grid_stride_kernel<CopyOp>);
}

}  // namespace memhier::elementwise::detail
