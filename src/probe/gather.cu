// Probe "gather": out[i] = data[idx[i]] with every SM busy over a buffer far beyond L2,
// the index array once sorted (0, 1, 2, ...: the coalesced runs that sorting a permutation
// gives) and once shuffled (the same indices, permuted): the same bytes gathered, in two
// orders. L2 is flushed before every launch, and the two orders are timed paired.
#include <algorithm>
#include <cstdint>
#include <string>

#include "common.cuh"
#include "families.hpp"
#include "memhier/probe/gather.hpp"

namespace memhier::probe {
namespace {

constexpr int kBlock = 256;
constexpr int kUnroll = 4;  // gathers in flight per thread
constexpr std::uint64_t kTile = static_cast<std::uint64_t>(kBlock) * kUnroll;

// idx[i] = i (sorted) or its shuffled image: written on the device, a permutation of 0..n-1.
__global__ void fill_indices_kernel(std::uint32_t* __restrict__ idx, std::uint64_t n, int bits,
                                    bool shuffled) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const auto i32 = static_cast<std::uint32_t>(i);
    idx[i] = shuffled ? gather_shuffled_index(i32, bits) : i32;
  }
}

// Block b gathers the kUnroll x kBlock positions of its tile: every index load, then every
// gathered load, then the stores, so each thread has kUnroll gathers in flight. n is a
// multiple of kTile.
__global__ void __launch_bounds__(kBlock)
    gather_kernel(const float* __restrict__ data, const std::uint32_t* __restrict__ idx,
                  float* __restrict__ out) {
  const std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * kTile + threadIdx.x;
  std::uint32_t j[kUnroll];
  float v[kUnroll];
#pragma unroll
  for (int k = 0; k < kUnroll; ++k) j[k] = idx[base + k * kBlock];
#pragma unroll
  for (int k = 0; k < kUnroll; ++k) v[k] = data[j[k]];
#pragma unroll
  for (int k = 0; k < kUnroll; ++k) out[base + k * kBlock] = v[k];
}

// The largest power-of-two element count whose four arrays (data, two index orders, output)
// fit in half the free memory, at most `want`.
int element_bits(const Context& ctx) {
  const int want = ctx.quick ? 26 : 28;  // 256 MiB or 1 GiB per array
  const std::size_t budget = free_device_bytes() / 2;
  int bits = want;
  while (bits > 12 && (std::size_t(16) << bits) > budget) --bits;
  if ((std::size_t(16) << bits) > budget)
    throw core::CudaError(cudaErrorMemoryAllocation, "gather: under 128 KiB of device memory free");
  return bits;
}

Result run_gather(Context& ctx) {
  return present_gather(measure_gather(ctx));
}

}  // namespace

GatherResult measure_gather(Context& ctx) {
  GatherResult m;
  const int bits = element_bits(ctx);
  const std::uint64_t n = std::uint64_t(1) << bits;
  m.elements = n;
  m.l2_bytes = static_cast<std::uint64_t>(std::max(ctx.device.l2_bytes, 1));
  if (m.buffer_bytes() < 4.0 * static_cast<double>(m.l2_bytes))
    m.notes.push_back("The buffer (" + fmt_mib(m.buffer_bytes()) +
                      ") is under 4x the L2: the shuffled gather may hit in L2.");

  ctx.progress("gather: filling " + fmt_mib(m.buffer_bytes()) + " and two index orders");
  core::DeviceBuffer<float> data(n), out(n);
  core::DeviceBuffer<std::uint32_t> sorted(n), shuffled(n);
  fill_random(data.data(), n, 0x6a7e5u, 0.5f, 1.5f);
  const int fill_grid = full_grid(fill_indices_kernel, kBlock, ctx);
  fill_indices_kernel<<<fill_grid, kBlock>>>(sorted.data(), n, bits, false);
  MEMHIER_CHECK_LAUNCH();
  fill_indices_kernel<<<fill_grid, kBlock>>>(shuffled.data(), n, bits, true);
  MEMHIER_CHECK_LAUNCH();
  MEMHIER_CUDA(cudaDeviceSynchronize());

  const auto grid = static_cast<unsigned>(n / kTile);
  auto launch = [&](const std::uint32_t* idx) {
    return [&, idx](cudaStream_t s) {
      gather_kernel<<<grid, kBlock, 0, s>>>(data.data(), idx, out.data());
      MEMHIER_CHECK_LAUNCH();
    };
  };
  ctx.progress("gather: sorted and shuffled indices, paired");
  core::TimingOptions o = probe_timing(ctx, "gather");
  o.flush_l2 = true;  // every launch gathers from DRAM, whatever the last one left in L2
  const core::PairedTiming t =
      core::time_paired({launch(sorted.data()), launch(shuffled.data())}, o);
  const double nd = static_cast<double>(n);
  for (std::size_t k = 0; k < 2; ++k) {
    GatherOrder g;
    g.order = k == 0 ? "sorted" : "shuffled";
    g.median_ms = t.each[k].median_ms;
    g.useful_gbps = gbps(4.0 * nd, g.median_ms);
    g.requested_gbps = gbps(12.0 * nd, g.median_ms);
    m.orders.push_back(g);
  }
  const core::RatioStats r = t.ratio(1, 0);
  m.speedup = r.median;
  m.speedup_p10 = r.p10;
  m.speedup_p90 = r.p90;
  return m;
}

std::vector<registry::Entry> gather_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "gather";
  e.name = "gather";
  e.technique =
      "out[i] = data[idx[i]] over a buffer far beyond L2, indices sorted against the same "
      "indices shuffled, timed paired from DRAM";
  e.claim = {"001 §Common Memory Anti-Patterns and Their Fixes",
             "small irregular gathers: sorting the indices into coalesced runs gives 8x (~100 to "
             "~800 GB/s)"};
  e.run_probe = run_gather;
  return {e};
}

}  // namespace memhier::probe
