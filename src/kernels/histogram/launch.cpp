// Grid sizing for the histogram kernels: read from the device, cached per kernel and device.
#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

#include "kernels/histogram/variants.hpp"
#include "memhier/core/check.hpp"

namespace memhier::histogram::detail {

int resident_grid(const void* kernel, int block_threads, bool prefer_shared, int max_per_sm) {
  static std::mutex mu;
  static std::map<std::tuple<const void*, int, int>, int> cache;
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_tuple(kernel, dev, max_per_sm);
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  if (prefer_shared)
    MEMHIER_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      cudaSharedmemCarveoutMaxShared));
  int sms = 0, per_sm = 0;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, 0));
  if (max_per_sm > 0) per_sm = std::min(per_sm, max_per_sm);
  const int grid = std::max(1, sms) * std::max(1, per_sm);
  cache.emplace(key, grid);
  return grid;
}

int grid_for(const void* kernel, int block_threads, bool prefer_shared, std::size_t items,
             std::size_t items_per_block, int max_per_sm) {
  const std::size_t resident =
      static_cast<std::size_t>(resident_grid(kernel, block_threads, prefer_shared, max_per_sm));
  const std::size_t per = std::max<std::size_t>(items_per_block, 1);
  const std::size_t needed = std::max<std::size_t>((items + per - 1) / per, 1);
  return static_cast<int>(std::min(resident, needed));
}

}  // namespace memhier::histogram::detail
