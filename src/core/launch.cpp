#include "memhier/core/launch.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "memhier/core/check.hpp"
#include "memhier/core/gate.hpp"

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

namespace {

/// A 1-D launch of `blocks` blocks in clusters of `cluster` along x; `attr` is the storage
/// the configuration points to (it must outlive the configuration's use).
cudaLaunchConfig_t cluster_config(int blocks, int cluster, int threads, std::size_t smem,
                                  cudaStream_t stream, cudaLaunchAttribute* attr) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(blocks), 1, 1);
  cfg.blockDim = dim3(static_cast<unsigned>(threads), 1, 1);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = static_cast<unsigned>(cluster);
  attr->val.clusterDim.y = 1;
  attr->val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

}  // namespace

int max_active_clusters(const void* kernel, int cluster, int threads, std::size_t smem) {
  static std::mutex mu;
  static std::map<std::tuple<int, const void*, int, int, std::size_t>, int> cache;
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  const std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_tuple(dev, kernel, cluster, threads, smem);
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  int cluster_launch = 0;
  if (cudaDeviceGetAttribute(&cluster_launch, cudaDevAttrClusterLaunch, dev) != cudaSuccess) {
    cudaGetLastError();
    cluster_launch = 0;
  }
  int n = 0;
  // Code compiled below sm_90 has no cluster features (they compiled to nothing): none run.
  if (cluster_launch != 0 && kernel_image(kernel).ptx_arch >= 90) {
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = cluster_config(cluster, cluster, threads, smem, nullptr, &attr);
    if (cudaOccupancyMaxActiveClusters(&n, kernel, &cfg) != cudaSuccess) {
      cudaGetLastError();  // an unsupported size is "none", not a sticky error for the next launch
      n = 0;
    }
  }
  cache.emplace(key, n);
  return n;
}

void launch_clustered(const void* kernel, void** args, int blocks, int cluster, int threads,
                      std::size_t smem, cudaStream_t stream) {
  // Clusters at all: sizes past the portable 8 (sm_90's 16, opted into per kernel) are the
  // caller's to check with max_active_clusters.
  require_kernel("a clustered launch", kernel, {90, false, static_cast<int>(smem), 2});
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = cluster_config(blocks, cluster, threads, smem, stream, &attr);
  MEMHIER_CUDA(cudaLaunchKernelExC(&cfg, kernel, args));
  MEMHIER_CHECK_LAUNCH();
}

void prepare_dynamic_smem(const void* kernel, int bytes, const char* what) {
  constexpr int kDefaultLimit = 48 * 1024;
  if (bytes <= kDefaultLimit) return;
  static std::mutex mu;
  static std::set<std::pair<int, const void*>> done;  // (device, kernel) already raised
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  if (done.count({dev, kernel})) return;
  int optin = 0;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if (bytes > optin)
    throw std::invalid_argument(std::string(what) + ": needs " + std::to_string(bytes / 1024) +
                                " KiB of shared memory per block; this device allows " +
                                std::to_string(optin / 1024) + " KiB.");
  MEMHIER_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  done.insert({dev, kernel});
}

dim3 grid_2d(long long tiles_x, long long tiles_y, const char* what) {
  if (tiles_x > std::numeric_limits<int>::max() || tiles_y > 65535)
    throw std::invalid_argument(
        std::string(what) + ": the shape needs more blocks than a grid allows (" +
        std::to_string(tiles_x) + " x " + std::to_string(tiles_y) + "; at most 2^31-1 x 65535).");
  return dim3(static_cast<unsigned>(tiles_x), static_cast<unsigned>(tiles_y));
}

}  // namespace memhier::core
