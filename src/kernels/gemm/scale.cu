// The alpha == 0 path of every variant (BLAS semantics: A and B are not read):
// C = beta * C, or zeros when beta == 0 (C is then not read, so NaN is overwritten).
#include "common.cuh"

namespace memhier::gemm::detail {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) scale_c_kernel(const Params p) {
  for (int row = static_cast<int>(blockIdx.y); row < p.m; row += static_cast<int>(gridDim.y)) {
    float* c = p.C + static_cast<std::size_t>(row) * p.ldc;
    for (int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); col < p.n;
         col += static_cast<int>(gridDim.x * blockDim.x))
      c[col] = p.beta == 0.f ? 0.f : p.beta * c[col];
  }
}

}  // namespace

void launch_scale_c(const Params& p, cudaStream_t s) {
  const long long bx = ceil_div(p.n, kThreads) < 64 ? ceil_div(p.n, kThreads) : 64;
  const long long by = p.m < 65535 ? p.m : 65535;
  launch_kernel(scale_c_kernel, grid_2d(bx, by, "scale"), dim3(kThreads), 0, s, p);
}

}  // namespace memhier::gemm::detail
