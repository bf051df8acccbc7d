// Rung 1, naive: one thread per output of C, the K-long dot product read straight from
// global memory. threadIdx.x runs along the ROWS of C (as in the common first attempt):
// the 32 lanes of a warp read 32 different rows of A (32 sectors per load) and write 32
// different rows of C, while they all read the same element of B.
#include "common.cuh"

namespace memhier::gemm::detail {
namespace {

constexpr int kBlock = 32;  // 32 x 32 threads

__global__ void __launch_bounds__(kBlock* kBlock) naive_kernel(const Params p) {
  const int row = static_cast<int>(blockIdx.x) * kBlock + static_cast<int>(threadIdx.x);
  const int col = static_cast<int>(blockIdx.y) * kBlock + static_cast<int>(threadIdx.y);
  dot_product_output(p, row, col);
}

void launch(const Params& p, cudaStream_t s) {
  const dim3 grid = grid_2d(ceil_div(p.m, kBlock), ceil_div(p.n, kBlock), "naive");
  launch_kernel(naive_kernel, grid, dim3(kBlock, kBlock), 0, s, p);
}

const void* symbol() {
  return reinterpret_cast<const void*>(naive_kernel);
}

}  // namespace

Launcher naive_launcher() {
  return {launch, symbol, kBlock * kBlock, 0};
}

}  // namespace memhier::gemm::detail
