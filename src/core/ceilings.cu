#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "memhier/core/ceilings.hpp"
#include "memhier/core/check.hpp"

namespace memhier::core {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ unsigned add_words(unsigned acc, uint4 v) {
  return acc + v.x + v.y + v.z + v.w;
}

__global__ void __launch_bounds__(kThreads)
    read_only_kernel(const uint4* __restrict__ src, std::size_t n, unsigned* sum) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  // Four loads issued before any add: enough bytes in flight per SM to cover HBM latency.
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    acc = add_words(add_words(add_words(add_words(acc, a), b), c), d);
  }
  for (; i < n; i += stride) acc = add_words(acc, src[i]);
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  __shared__ unsigned warp_sums[kThreads / 32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned block = 0;
    for (int w = 0; w < kThreads / 32; ++w) block += warp_sums[w];
    atomicAdd(sum, block);
  }
}

__global__ void __launch_bounds__(kThreads)
    write_only_kernel(uint4* __restrict__ dst, std::size_t n, unsigned value) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const uint4 v = make_uint4(value, value, value, value);
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    dst[i] = v;
}

// 16-byte words in `bytes`; throws unless it is a whole number of them.
std::size_t words16(std::size_t bytes, const char* what) {
  if (bytes % 16 != 0)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(bytes) +
                                " bytes is not a multiple of 16.");
  return bytes / 16;
}

// No more blocks than the words need, at least one.
unsigned grid_for(std::size_t n, int blocks) {
  const std::size_t need = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(need, blocks)));
}

}  // namespace

int ceiling_blocks() {
  int dev = 0, sms = 0, per_sm_read = 0, per_sm_write = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  MEMHIER_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_read, read_only_kernel, kThreads, 0));
  MEMHIER_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_write, write_only_kernel, kThreads, 0));
  return sms * std::max(1, std::min(per_sm_read, per_sm_write));
}

void launch_read_only(const void* src, std::size_t bytes, unsigned* sum, int blocks,
                      cudaStream_t stream) {
  const std::size_t n = words16(bytes, "read-only ceiling");
  read_only_kernel<<<grid_for(n, blocks), kThreads, 0, stream>>>(static_cast<const uint4*>(src), n,
                                                                 sum);
  MEMHIER_CHECK_LAUNCH();
}

void launch_write_only(void* dst, std::size_t bytes, unsigned value, int blocks,
                       cudaStream_t stream) {
  const std::size_t n = words16(bytes, "write-only ceiling");
  write_only_kernel<<<grid_for(n, blocks), kThreads, 0, stream>>>(static_cast<uint4*>(dst), n,
                                                                  value);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::core
