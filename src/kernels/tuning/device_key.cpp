// What a tuned choice is keyed by besides the family and the shape (tuning/tuner.hpp): the
// device, driver, toolkit, runtime and memhier version; and where the cache file lives.
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/tuning/tuner.hpp"
#include "memhier/core/cache_dir.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/device.hpp"
#include "memhier/kernels/tuning_cache.hpp"

#ifndef MEMHIER_VERSION
#define MEMHIER_VERSION "0.0.0"
#endif

namespace memhier::tuning {

std::string device_key_prefix(int dev, const std::vector<std::string>& candidate_names) {
  cudaDeviceProp prop{};
  MEMHIER_CUDA(cudaGetDeviceProperties(&prop, dev));
  const core::Versions versions = core::cuda_versions();
  DeviceFacts facts;
  facts.device =
      std::string(prop.name) + "|sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  facts.driver = versions.driver_release + " (CUDA " + versions.driver + ")";
  facts.toolkit = std::to_string(CUDART_VERSION);
  facts.runtime = versions.runtime;
  facts.memhier_version = MEMHIER_VERSION;
  return key_prefix(facts, candidate_names);
}

std::string cache_path() {
  const char* off = std::getenv("MEMHIER_NO_TUNE_CACHE");
  if (off && *off && std::string(off) != "0") return {};
  const std::string dir = core::cache_dir();
  // One file for every family (entries are keyed by family); the name predates the others.
  return dir.empty() ? dir : dir + "/gemm-tuning.json";
}

}  // namespace memhier::tuning
