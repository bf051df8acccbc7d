#include "kernels/split_k/workspace.hpp"

#include <map>
#include <mutex>
#include <utility>

#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"

namespace memhier::kernels::split_k {

Workspace workspace_for(std::size_t floats, std::size_t tiles, cudaStream_t stream) {
  struct Held {
    core::DeviceBuffer<float> partials;
    core::DeviceBuffer<unsigned> counters;
  };
  static std::mutex mu;
  static std::map<std::pair<int, cudaStream_t>, Held> all;
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  const std::lock_guard<std::mutex> lock(mu);
  Held& h = all[{dev, stream}];
  if (h.partials.size() < floats || h.counters.size() < tiles)
    MEMHIER_CUDA(cudaStreamSynchronize(stream));
  if (h.partials.size() < floats) h.partials = core::DeviceBuffer<float>(floats);
  if (h.counters.size() < tiles) {
    h.counters = core::DeviceBuffer<unsigned>(tiles);
    MEMHIER_CUDA(cudaMemsetAsync(h.counters.data(), 0, h.counters.bytes(), stream));
  }
  return {h.partials.data(), h.counters.data()};
}

}  // namespace memhier::kernels::split_k
