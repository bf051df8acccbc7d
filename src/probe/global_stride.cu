// Probe "global-stride": useful global-memory bandwidth against the stride between
// consecutive threads (1 .. 32 four-byte elements) and for a random gather, from
// DRAM (buffer >> L2, L2 flushed between launches), beside the coalescing model's
// sectors per request for the very same addresses.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/core/hash.cuh"
#include "memhier/model/access.hpp"
#include "memhier/probe/global_stride.hpp"

namespace memhier::probe {
namespace {

constexpr int kGlobalBlock = 256;
constexpr std::uint32_t kRandom = 0;  // stride code for the random gather
constexpr std::uint32_t kRandomShare =
    32;                          // the gather makes n / 32 accesses, as many as stride 32
constexpr int kModelWarps = 64;  // warps the model averages over

/// Element that thread-access `i` reads: i * stride, or a hashed position for the random
/// gather (stride kRandom); `mask` = elements - 1 (a power of two). Shared by the kernel
/// and the coalescing model. Access i runs on lane i % 32 of warp i / 32.
__host__ __device__ inline std::uint32_t global_stride_element(std::uint32_t i,
                                                               std::uint32_t stride,
                                                               std::uint32_t mask) {
  return (stride == kRandom ? core::hash32(i) : i * stride) & mask;
}

// Grid-stride over the accesses, 4 independent loads in flight per thread; the sum is
// written per thread so no load can be dropped.
__global__ void __launch_bounds__(kGlobalBlock)
    global_stride_kernel(const float* __restrict__ data, std::uint32_t accesses,
                         std::uint32_t stride, std::uint32_t mask, float* __restrict__ out) {
  const std::uint32_t T = gridDim.x * blockDim.x;
  const std::uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  std::uint32_t i = tid;
  for (; i + 3 * T < accesses; i += 4 * T) {
    const float a = data[global_stride_element(i, stride, mask)];
    const float b = data[global_stride_element(i + T, stride, mask)];
    const float c = data[global_stride_element(i + 2 * T, stride, mask)];
    const float d = data[global_stride_element(i + 3 * T, stride, mask)];
    acc += (a + b) + (c + d);
  }
  for (; i < accesses; i += T) acc += data[global_stride_element(i, stride, mask)];
  out[tid] = acc;
}

struct ModelFigures {
  double sectors_per_request = 0;
  double utilization = 0;  // bytes asked for / bytes in the sectors fetched
};

/// The coalescing model over the kernel's own addresses for the first kModelWarps warps.
ModelFigures predict(std::uint32_t stride, std::uint32_t mask) {
  ModelFigures m;
  for (int w = 0; w < kModelWarps; ++w) {
    model::WarpAccess acc;
    acc.width_bytes = 4;
    for (int lane = 0; lane < model::kWarpSize; ++lane) {
      const std::uint32_t i = static_cast<std::uint32_t>(w * model::kWarpSize + lane);
      acc.address[lane] = static_cast<std::uint64_t>(global_stride_element(i, stride, mask)) * 4u;
    }
    const model::GlobalCost c = model::global_cost(acc);
    m.sectors_per_request += c.sectors_per_request;
    m.utilization += c.noncaching_utilization;
  }
  m.sectors_per_request /= kModelWarps;
  m.utilization /= kModelWarps;
  return m;
}

Result run_global_stride(Context& ctx) {
  return present_global_stride(measure_global_stride(ctx));
}

}  // namespace

GlobalStrideResult measure_global_stride(Context& ctx) {
  const core::DeviceInfo& dev = ctx.device;
  GlobalStrideResult m;
  m.model_warps = kModelWarps;
  m.random_share = static_cast<int>(kRandomShare);
  m.tolerance = claims::band(claims::ClaimId::coalescing_stride_2_half).amount /
                100;  // the catalogue's ±35 %
  m.peak_dram_gbps = dev.peak_dram_gbps();

  // Footprint: a power of two of floats, >> L2, capped by free memory.
  const std::size_t free_b = free_device_bytes();
  const std::size_t want = (ctx.quick ? std::size_t(256) : std::size_t(1024)) << 20;
  const std::size_t cap = std::min(want, free_b / 2);
  std::size_t bytes = std::size_t(1) << 20;
  while (bytes * 2 <= cap) bytes *= 2;
  if (cap < bytes)
    throw core::CudaError(cudaErrorMemoryAllocation,
                          "global-stride: under 1 MiB of device memory free");
  const std::size_t n = bytes / 4;  // <= 2^28 floats: every index fits 32 bits
  const std::uint32_t mask = static_cast<std::uint32_t>(n - 1);
  m.buffer_bytes = bytes;
  m.l2_bytes = static_cast<std::size_t>(std::max(dev.l2_bytes, 1));

  core::DeviceBuffer<float> data(n);
  fill_random(data.data(), n, 707u, 0.5f, 1.5f);
  const int grid = full_grid(global_stride_kernel, kGlobalBlock, ctx);
  core::DeviceBuffer<float> out(static_cast<std::size_t>(grid) * kGlobalBlock);

  for (std::uint32_t s : {1u, 2u, 4u, 8u, 16u, 32u, kRandom}) {
    StrideBandwidth r;
    r.stride = s;
    r.pattern = s == kRandom ? "random" : "stride " + std::to_string(s);
    ctx.progress("global-stride: " + r.pattern);
    const std::uint32_t accesses =
        static_cast<std::uint32_t>(n / (s == kRandom ? kRandomShare : s));
    core::TimingOptions o;
    o.name = "global-stride: " + r.pattern;
    o.warmup = 1;
    o.min_reps = 5;
    o.max_reps = 100;
    o.min_total_ms = ctx.quick ? 1.0 : 4.0;
    o.flush_l2 = true;  // every launch starts from DRAM, whatever the last one left in L2
    o = fewest_if_smallest(ctx, o);
    const core::Timing t = core::time_it(
        [&](cudaStream_t st) {
          global_stride_kernel<<<grid, kGlobalBlock, 0, st>>>(data.data(), accesses, s, mask,
                                                              out.data());
          MEMHIER_CHECK_LAUNCH();
        },
        o);
    r.gbps = gbps(4.0 * accesses, t.median_ms);  // useful bytes: 4 per thread-access
    const ModelFigures model = predict(s, mask);
    r.predicted_sectors_per_request = model.sectors_per_request;
    r.predicted_utilization = model.utilization;
    m.patterns.push_back(r);
  }
  for (StrideBandwidth& r : m.patterns) {
    r.relative = r.gbps / m.patterns.front().gbps;
    r.predicted_relative = r.predicted_utilization / m.patterns.front().predicted_utilization;
  }
  return m;
}

std::vector<registry::Entry> global_stride_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "global_stride";
  e.name = "global-stride";
  e.technique =
      "thread i reads element i*stride (4 bytes), strides 1..32 and a random gather, from DRAM, "
      "beside the coalescing model's sectors per request";
  e.claim = {"001 §Memory coalescing (A100)",
             "stride 2 halves useful bandwidth; stride 32 ~3% of coalesced"};
  e.run_probe = run_global_stride;
  return {e};
}

}  // namespace memhier::probe
