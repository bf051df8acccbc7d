// Rung 4, float4_unroll4: each block owns one contiguous tile of kUnroll x kBlock float4
// (16 KiB of x) and each thread issues all kUnroll loads (2 x kUnroll for axpy) before its
// first store: more bytes in flight per thread, a quarter of the blocks, no loop.
#include "memhier/core/check.hpp"
#include "ops.cuh"
#include "variants.hpp"

namespace memhier::elementwise::detail {
namespace {

template <class Op>
__global__ void __launch_bounds__(kBlock)
    float4_unroll4_kernel(Op op, const float* __restrict__ x, float* __restrict__ y, Split sp) {
  const std::size_t tile = static_cast<std::size_t>(kUnroll) * kBlock;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * tile;
  if (base < sp.nvec)
    tile_pass<Op, kUnroll, Cache::normal>(op, reinterpret_cast<const float4*>(x + sp.head),
                                          reinterpret_cast<float4*>(y + sp.head), base, sp.nvec);
  split_edges(op, x, y, sp, flat_index(blockIdx.x, blockDim.x, threadIdx.x));
}

}  // namespace

void launch_float4_unroll4(OpArgs op, const float* x, float* y, const Split& sp, cudaStream_t s) {
  const std::size_t tile = static_cast<std::size_t>(kUnroll) * kBlock;
  const unsigned grid = blocks_for((sp.nvec + tile - 1) / tile * kBlock);
  if (op.op == Op::axpy)
    float4_unroll4_kernel<<<grid, kBlock, 0, s>>>(AxpyOp{op.a}, x, y, sp);
  else
    float4_unroll4_kernel<<<grid, kBlock, 0, s>>>(CopyOp{}, x, y, sp);
  MEMHIER_CHECK_LAUNCH();
}

const void* float4_unroll4_symbol(Op op) {
  return op == Op::axpy ? reinterpret_cast<const void*>(float4_unroll4_kernel<AxpyOp>)
                        : reinterpret_cast<const void*>(float4_unroll4_kernel<CopyOp>);
}

}  // namespace memhier::elementwise::detail
