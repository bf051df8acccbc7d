// Grid sizing for the elementwise kernels, read from the device (never a hard-coded card)
// and cached per process, kernel and device.
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "memhier/core/check.hpp"
#include "variants.hpp"

namespace memhier::elementwise::detail {

unsigned blocks_for(std::size_t threads) {
  const std::size_t blocks = threads == 0 ? 1 : (threads - 1) / kBlock + 1;
  if (blocks > 0x7fffffffu)
    throw std::invalid_argument("elementwise: " + std::to_string(threads) +
                                " threads need more blocks than one launch allows (2^31 - 1).");
  return static_cast<unsigned>(blocks);
}

unsigned resident_blocks(const void* kernel) {
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, unsigned> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(kernel, dev);
  const auto hit = cache.find(key);
  if (hit != cache.end()) return hit->second;
  int sms = 0, per_sm = 0;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlock, 0));
  const unsigned blocks =
      static_cast<unsigned>(sms > 0 ? sms : 1) * static_cast<unsigned>(per_sm > 0 ? per_sm : 1);
  cache.emplace(key, blocks);
  return blocks;
}

}  // namespace memhier::elementwise::detail
