#include "memhier/core/gate.hpp"

#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "memhier/core/check.hpp"

namespace memhier::core {
namespace {

int current_device() {
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  return dev;
}

std::mutex& gate_mutex() {
  static std::mutex mu;
  return mu;
}

}  // namespace

model::KernelImage kernel_image(const void* kernel) {
  const int dev = current_device();
  const std::lock_guard<std::mutex> lock(gate_mutex());
  static std::map<std::pair<int, const void*>, model::KernelImage> cache;
  const auto key = std::make_pair(dev, kernel);
  const auto hit = cache.find(key);
  if (hit != cache.end()) return hit->second;
  model::KernelImage img;
  cudaFuncAttributes a{};
  const cudaError_t e = cudaFuncGetAttributes(&a, kernel);
  if (e == cudaSuccess) {
    img.present = true;
    img.ptx_arch = a.ptxVersion;
    img.binary_arch = a.binaryVersion;
    img.static_smem = static_cast<int>(a.sharedSizeBytes);
  } else if (e == cudaErrorInvalidDeviceFunction || e == cudaErrorNoKernelImageForDevice) {
    cudaGetLastError();  // not sticky: the kernel simply has no image for this device
  } else {
    MEMHIER_CUDA(e);
  }
  return cache.emplace(key, img).first->second;
}

model::DeviceLimits device_limits() {
  const int dev = current_device();
  const std::lock_guard<std::mutex> lock(gate_mutex());
  static std::map<int, model::DeviceLimits> cache;
  const auto hit = cache.find(dev);
  if (hit != cache.end()) return hit->second;
  model::DeviceLimits d;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&d.cc_major, cudaDevAttrComputeCapabilityMajor, dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&d.cc_minor, cudaDevAttrComputeCapabilityMinor, dev));
  MEMHIER_CUDA(
      cudaDeviceGetAttribute(&d.smem_per_block_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  int clusters = 0;
  if (cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, dev) != cudaSuccess) {
    cudaGetLastError();  // an older driver without the attribute: no clusters
    clusters = 0;
  }
  d.max_cluster = clusters != 0 ? 8 : 0;  // 8: the portable cluster size on every such card
  return cache.emplace(dev, d).first->second;
}

std::string kernel_unsupported(const std::string& what, const void* kernel,
                               const model::KernelNeeds& needs) {
  return model::kernel_declines(what, needs, kernel_image(kernel), device_limits());
}

void require_kernel(const std::string& what, const void* kernel, const model::KernelNeeds& needs) {
  const std::string why = kernel_unsupported(what, kernel, needs);
  if (!why.empty()) throw std::invalid_argument(why);
}

}  // namespace memhier::core
