// The alpha == 0 path of every rung (BLAS): A and B are not read; C = beta * C + bias, and
// the bias alone when beta == 0 (C is not read then, so NaN there is overwritten).
#include "common.cuh"

namespace memhier::gemm_bf16::detail {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) scale_c_kernel(const Params p) {
  const std::size_t total = static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.n);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += stride) {
    store1(p, static_cast<int>(i / p.n), static_cast<int>(i % p.n), 0.f);
  }
}

}  // namespace

void launch_scale_c(const Params& p, cudaStream_t stream) {
  const std::size_t total = static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.n);
  const std::size_t blocks = (total + kThreads - 1) / kThreads;
  launch_kernel(scale_c_kernel, dim3(static_cast<unsigned>(blocks < 65536 ? blocks : 65536)),
                dim3(kThreads), 0, stream, p);
}

}  // namespace memhier::gemm_bf16::detail
