// Rung 8, a block per row (OneFlow's softmax_block_smem): the row is read once into dynamic
// shared memory (opted in above 48 KB, carveout set to shared), reduced there, and written
// once: one global read and one global write per element. Rows up to the device's opt-in
// shared memory (227 KB on the H100: 58,000 columns).
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "memhier/core/check.hpp"
#include "smem_row.cuh"
#include "variants.hpp"

namespace memhier::softmax::detail {
namespace {

template <int PACK>
__global__ void __launch_bounds__(kSmemMaxThreads)
    block_per_row_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                         int cols) {
  smem_row<PACK>(in, out, rows, cols);
}

/// The largest dynamic shared memory both instantiations may use.
int max_smem() {
  return std::min(
      prepare_smem_kernel(reinterpret_cast<const void*>(&block_per_row_kernel<4>), false),
      prepare_smem_kernel(reinterpret_cast<const void*>(&block_per_row_kernel<1>), false));
}

}  // namespace

bool block_per_row_fits(int cols) {
  return static_cast<long long>(cols) * 4 <= max_smem();
}

void launch_block_per_row(const Problem& p) {
  if (!block_per_row_fits(p.cols))
    throw std::invalid_argument("block_per_row caches a row in shared memory: at most " +
                                std::to_string(max_smem() / 4) + " columns on this device, not " +
                                std::to_string(p.cols) + ".");
  const int smem = p.cols * 4;
  if (p.vec4) {
    block_per_row_kernel<4>
        <<<p.rows, smem_row_threads(p.cols / 4), smem, p.stream>>>(p.in, p.out, p.rows, p.cols);
  } else {
    block_per_row_kernel<1>
        <<<p.rows, smem_row_threads(p.cols), smem, p.stream>>>(p.in, p.out, p.rows, p.cols);
  }
  MEMHIER_CHECK_LAUNCH();
}

const void* block_per_row_symbol() {
  return reinterpret_cast<const void*>(&block_per_row_kernel<4>);
}

}  // namespace memhier::softmax::detail
