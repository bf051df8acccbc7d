// Rung 2, coalesced: the naive kernel with threadIdx.x along the COLUMNS of C. A warp now
// reads one element of A (broadcast) and 32 consecutive floats of B (one 128-byte line)
// per step, and writes 32 consecutive floats of C.
#include "common.cuh"

namespace memhier::gemm::detail {
namespace {

constexpr int kBlock = 32;  // 32 x 32 threads

__global__ void __launch_bounds__(kBlock* kBlock) coalesced_kernel(const Params p) {
  const int col = static_cast<int>(blockIdx.x) * kBlock + static_cast<int>(threadIdx.x);
  const int row = static_cast<int>(blockIdx.y) * kBlock + static_cast<int>(threadIdx.y);
  dot_product_output(p, row, col);
}

void launch(const Params& p, cudaStream_t s) {
  const dim3 grid = grid_2d(ceil_div(p.n, kBlock), ceil_div(p.m, kBlock), "coalesced");
  launch_kernel(coalesced_kernel, grid, dim3(kBlock, kBlock), 0, s, p);
}

const void* symbol() {
  return reinterpret_cast<const void*>(coalesced_kernel);
}

}  // namespace

Launcher coalesced_launcher() {
  return {launch, symbol, kBlock * kBlock, 0};
}

}  // namespace memhier::gemm::detail
