// The public softmax API: names, validation, dispatch by shape, and the per-device facts
// (SM count, shared memory, cluster occupancy) the launches size their grids from, each
// read once per device and process.
#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>

#include "memhier/core/check.hpp"
#include "memhier/kernels/softmax.hpp"
#include "memhier/registry/names.hpp"
#include "variants.hpp"

namespace memhier::softmax {
namespace {

constexpr registry::Named<Variant> kNames[] = {
#define MEMHIER_RUNG(name, ...) {Variant::name, #name},
#define MEMHIER_BEST(name, ...) {Variant::name, #name},
#include "memhier/kernels/softmax_rungs.inc"
};

constexpr int kMaxCols = 1 << 30;

void check_shape(int rows, int cols) {
  if (rows < 1 || cols < 1)
    throw std::invalid_argument("softmax needs rows >= 1 and cols >= 1, not " +
                                std::to_string(rows) + " x " + std::to_string(cols) + ".");
  // Loop indices within a row are int: keep them (plus a block's stride) far from INT_MAX.
  if (cols > kMaxCols)
    throw std::invalid_argument("softmax takes at most " + std::to_string(kMaxCols) +
                                " columns, not " + std::to_string(cols) + ".");
}

std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}

int current_device() {
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  return dev;
}

}  // namespace

const char* to_string(Variant v) {
  return registry::name_of(kNames, v);
}

std::optional<Variant> variant_from_string(const std::string& name) {
  return registry::from_name(kNames, name);
}

namespace detail {

const DeviceLimits& device_limits() {
  const int dev = current_device();
  std::lock_guard<std::mutex> lock(cache_mutex());
  static std::map<int, DeviceLimits> cache;
  auto it = cache.find(dev);
  if (it != cache.end()) return it->second;
  DeviceLimits d;
  d.device = dev;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&d.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&d.cc_major, cudaDevAttrComputeCapabilityMajor, dev));
  int cluster_launch = 0;
  if (cudaDeviceGetAttribute(&cluster_launch, cudaDevAttrClusterLaunch, dev) != cudaSuccess) {
    cudaGetLastError();  // an older driver without the attribute: no clusters
    cluster_launch = 0;
  }
  d.clusters = d.cc_major >= 9 && cluster_launch != 0;
  return cache.emplace(dev, d).first->second;
}

int prepare_smem_kernel(const void* kernel, bool cluster) {
  const DeviceLimits& lim = device_limits();
  std::lock_guard<std::mutex> lock(cache_mutex());
  static std::map<std::pair<const void*, int>, int> cache;
  const auto key = std::make_pair(kernel, lim.device);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  cudaFuncAttributes a{};
  MEMHIER_CUDA(cudaFuncGetAttributes(&a, kernel));
  const int dynamic = lim.smem_optin - static_cast<int>(a.sharedSizeBytes);
  MEMHIER_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic));
  // Prefer shared memory over L1: the cache is the point, and the carveout decides how many
  // blocks fit on an SM.
  MEMHIER_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared));
  if (cluster && lim.clusters &&
      cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) !=
          cudaSuccess)
    cudaGetLastError();  // clusters above 8 stay unavailable; max_active_clusters says so
  cache.emplace(key, dynamic);
  return dynamic;
}

void allow_large_clusters(const void* kernel) {
  const DeviceLimits& lim = device_limits();
  if (!lim.clusters) return;
  std::lock_guard<std::mutex> lock(cache_mutex());
  static std::map<std::pair<const void*, int>, bool> done;
  if (!done.emplace(std::make_pair(kernel, lim.device), true).second) return;
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) !=
      cudaSuccess)
    cudaGetLastError();  // clusters above 8 stay unavailable; max_active_clusters says so
}

int pow2_ceil(int v) {
  int p = 1;
  while (p < v && p < (1 << 30)) p <<= 1;
  return p;
}

int pow2_floor(int v) {
  int p = 1;
  while (p <= v / 2) p <<= 1;
  return p;
}

}  // namespace detail

namespace {

/// best's choice, for rows that are (vec4) or are not 16-byte aligned.
Variant best_for(int rows, int cols, bool vec4) {
  if (cols <= detail::kWarpPerRowMaxCols) return Variant::warp_per_row;
  // With a block per row for every SM, one block per row caching the row in shared memory
  // is the fastest (H200, 2026-11-21: 0.93-0.98 of memcpy at 1024x4096 .. 4096x32768,
  // where clusters reached 0.68-0.78); clusters only pay when rows are fewer than SMs.
  if (rows >= detail::device_limits().sm_count && detail::block_per_row_fits(cols))
    return Variant::block_per_row;
  const int c = detail::cluster_per_row_plan(rows, cols, vec4);  // 0 without clusters
  if (c > 1) return Variant::cluster_per_row;
  return detail::block_per_row_fits(cols) ? Variant::block_per_row : Variant::uncached;
}

}  // namespace

Variant best_variant(int rows, int cols) {
  check_shape(rows, cols);
  return best_for(rows, cols, cols % 4 == 0);
}

void softmax(Variant v, const float* in, float* out, int rows, int cols, cudaStream_t stream) {
  check_shape(rows, cols);
  if (in == nullptr || out == nullptr)
    throw std::invalid_argument(
        "softmax needs device pointers for the input and the output, not null.");
  const auto a = reinterpret_cast<std::uintptr_t>(in), b = reinterpret_cast<std::uintptr_t>(out);
  if (a % 4 != 0 || b % 4 != 0)
    throw std::invalid_argument("softmax needs float pointers aligned to 4 bytes.");
  const std::uintptr_t bytes =
      static_cast<std::uintptr_t>(rows) * static_cast<std::uintptr_t>(cols) * 4u;
  if (a < b + bytes && b < a + bytes)
    throw std::invalid_argument(
        "softmax's input and output must not overlap (it reads the input "
        "through the read-only cache).");
  detail::Problem p;
  p.in = in;
  p.out = out;
  p.rows = rows;
  p.cols = cols;
  p.vec4 = cols % 4 == 0 && a % 16 == 0 && b % 16 == 0;
  p.stream = stream;
  if (v == Variant::best) v = best_for(rows, cols, p.vec4);
  switch (v) {
#define MEMHIER_RUNG(name, launch, ...) \
  case Variant::name:                   \
    return detail::launch(p);
#define MEMHIER_BEST(name, ...) \
  case Variant::name:           \
    break;
#include "memhier/kernels/softmax_rungs.inc"
  }
  throw std::invalid_argument("unknown softmax variant.");
}

}  // namespace memhier::softmax
