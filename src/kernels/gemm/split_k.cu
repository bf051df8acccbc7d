// The slots split-K divides K over (split_k.cuh): the same count the tuner's model is given.
#include <map>
#include <mutex>
#include <utility>

#include "split_k.cuh"

namespace memhier::gemm::detail {

long long resident_slots(const void* kernel, int threads) {
  static std::mutex mu;
  static std::map<std::pair<int, const void*>, long long> known;
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  const std::lock_guard<std::mutex> lock(mu);
  const auto at = known.find({dev, kernel});
  if (at != known.end()) return at->second;
  int sms = 0, blocks = 0;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0));
  return known[{dev, kernel}] = static_cast<long long>(sms) * blocks;
}

}  // namespace memhier::gemm::detail
