// Rung 6, vectorized grid-stride loads: 16-byte float4 loads (a scalar head peeled up
// to the first 16-byte boundary), 4 independent loads in flight per thread per step,
// a grid sized to fill every SM once that strides over the whole array, then a warp-
// shuffle block reduction. Thousands of elements per thread instead of two, so pass 1
// leaves only one partial per block and a second, one-block launch finishes.
#include "grid_stride.cuh"

namespace memhier::reduction::detail {
namespace {

constexpr int kBlock = 256;
constexpr int kUnroll = 4;
constexpr int kFinishBlock = 1024;

}  // namespace

GridConfig vectorized_grid_stride_config() {
  return {kBlock, kUnroll,
          reinterpret_cast<const void*>(grid_partials_kernel<SumOp, kBlock, kUnroll, Load::ldg>)};
}

void launch_vectorized_grid_stride(const Launch& l) {
  // One block: its value is the answer and the second launch is skipped.
  float* dst = l.grid == 1 ? l.out : l.slots;
  if (l.op == Op::sum)
    grid_partials_kernel<SumOp, kBlock, kUnroll, Load::ldg>
        <<<l.grid, kBlock, 0, l.stream>>>(l.in, l.n, dst);
  else
    grid_partials_kernel<MaxOp, kBlock, kUnroll, Load::ldg>
        <<<l.grid, kBlock, 0, l.stream>>>(l.in, l.n, dst);
  MEMHIER_CHECK_LAUNCH();
  if (l.grid == 1) return;
  if (l.op == Op::sum)
    finish_partials_kernel<SumOp, kFinishBlock>
        <<<1, kFinishBlock, 0, l.stream>>>(l.slots, l.grid, l.out);
  else
    finish_partials_kernel<MaxOp, kFinishBlock>
        <<<1, kFinishBlock, 0, l.stream>>>(l.slots, l.grid, l.out);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::reduction::detail
