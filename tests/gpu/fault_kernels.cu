#include "fault_kernels.hpp"
#include "memhier/core/check.hpp"

namespace memhier::testing {
namespace {

__global__ void copy_kernel(const float* in, float* out, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void trap_kernel() {
  __trap();
}

}  // namespace

void launch_copy(const float* in, float* out, std::size_t n, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  copy_kernel<<<blocks, 256, 0, stream>>>(in, out, n);
  MEMHIER_CHECK_LAUNCH();
}

void launch_trap(cudaStream_t stream) {
  trap_kernel<<<1, 32, 0, stream>>>();
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::testing
