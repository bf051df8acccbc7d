#include "memhier/core/launch.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

#include "memhier/core/check.hpp"

namespace memhier::core {

int resident_grid(const void* kernel, int block_threads, std::size_t dynamic_smem, int max_per_sm,
                  bool prefer_max_shared) {
  static std::mutex mu;
  static std::map<std::tuple<int, const void*, int, std::size_t, int, bool>, int> cache;
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  const std::lock_guard<std::mutex> lock(mu);
  const auto key =
      std::make_tuple(dev, kernel, block_threads, dynamic_smem, max_per_sm, prefer_max_shared);
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  if (prefer_max_shared)
    MEMHIER_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      cudaSharedmemCarveoutMaxShared));
  int sms = 0, per_sm = 0;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  MEMHIER_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, dynamic_smem));
  per_sm = std::max(per_sm, 1);
  if (max_per_sm > 0) per_sm = std::min(per_sm, max_per_sm);
  const int grid = std::max(sms, 1) * per_sm;
  cache.emplace(key, grid);
  return grid;
}

}  // namespace memhier::core
