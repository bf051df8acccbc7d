// Probes "smem-dynamic" and "smem-carveout": shared-memory configuration at run time.
// smem-dynamic: one tiled 1D stencil whose tile is sized at run time from the device's
// per-block limit (48 KiB by default, more with cudaFuncAttributeMaxDynamicSharedMemorySize),
// verified against a float64 CPU reference. smem-carveout: a kernel that re-reads a per-SM
// window of global memory through L1, run at several shared-memory carveout preferences.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/model/arch.hpp"
#include "memhier/model/occupancy.hpp"

namespace memhier::probe {
namespace {

constexpr int kKiB = 1024;


// ---------------------------------------------------------------------------------------
// smem-dynamic: tiled stencil, tile chosen at run time

constexpr int kRadius = 32;
constexpr int kTaps = 2 * kRadius + 1;
constexpr int kStencilBlock = 512;

// Uniform across a warp at every step, so each FFMA reads its weight from the constant bank.
__constant__ float c_stencil_taps[kTaps];

// Outputs per tile for a dynamic shared-memory budget: the tile plus its 2R halo must fit,
// and whole blocks of outputs keep every thread busy. 0 when not even one block fits.
__host__ __device__ inline int stencil_tile_for(int smem_budget_bytes) {
  const int words = smem_budget_bytes / 4 - 2 * kRadius;
  return words < kStencilBlock ? 0 : words / kStencilBlock * kStencilBlock;
}
__host__ __device__ inline int stencil_smem_bytes(int tile) {
  return (tile + 2 * kRadius) * 4;
}

// out[i] = sum_j w[j] * in[i + j], in holding n + 2R values. Each block stages a tile and its
// halo in dynamic shared memory (coalesced), then every output reads its 2R+1 neighbours
// from there: consecutive threads read consecutive words, so no bank conflicts.
__global__ void __launch_bounds__(kStencilBlock)
    stencil_tiled(const float* __restrict__ in, float* __restrict__ out, long long n, int tile) {
  extern __shared__ float stage[];
  const long long tiles = (n + tile - 1) / tile;
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    const long long base = t * tile;
    const int count = static_cast<int>(min(static_cast<long long>(tile), n - base));
    __syncthreads();  // the previous tile's readers are done with the stage
    for (int i = threadIdx.x; i < count + 2 * kRadius; i += blockDim.x) stage[i] = in[base + i];
    __syncthreads();
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
      float acc = 0.f;
#pragma unroll
      for (int j = 0; j < kTaps; ++j) acc = fmaf(c_stencil_taps[j], stage[i + j], acc);
      out[base + i] = acc;
    }
  }
}

// Restores the kernel's dynamic shared-memory limit on every path (leave the device as found).
struct MaxDynamicSmemGuard {
  const void* fn;
  int original;
  ~MaxDynamicSmemGuard() {
    if (cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, original) !=
        cudaSuccess)
      cudaGetLastError();  // a destructor must not throw; clear the error for later calls
  }
};

struct DynVariant {
  std::string name;
  int tile = 0;
  int smem = 0;
  int blocks_per_sm = 0;
  int model_blocks = -1;
  long long tiles = 0;
  double ms = NAN, gbps = NAN, max_rel = NAN, rel_l2 = NAN;
};

// Sampled indices: both ends, every tile edge of every variant (halo bugs live there), and
// random outputs. The full output is still checked to be finite (fully written).
std::vector<long long> sample_indices(long long n, const std::vector<int>& tiles,
                                      std::uint32_t seed) {
  std::vector<long long> idx;
  for (long long i = 0; i < std::min<long long>(n, 2048); ++i) idx.push_back(i);
  for (long long i = std::max<long long>(0, n - 2048); i < n; ++i) idx.push_back(i);
  for (int tile : tiles)
    for (long long b = tile; b < n; b += tile)
      for (long long d = -2; d <= 1; ++d)
        if (b + d >= 0 && b + d < n) idx.push_back(b + d);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<long long> pick(0, n - 1);
  for (int i = 0; i < 16384; ++i) idx.push_back(pick(rng));
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  return idx;
}

Result run_smem_dynamic(Context& ctx) {
  using report::Value;
  const core::DeviceInfo& dev = ctx.device;
  const void* fn = reinterpret_cast<const void*>(stencil_tiled);
  ctx.progress("smem-dynamic: setup");

  cudaFuncAttributes attr{};
  MEMHIER_CUDA(cudaFuncGetAttributes(&attr, fn));
  const int static_smem = static_cast<int>(attr.sharedSizeBytes);
  MaxDynamicSmemGuard guard{fn, attr.maxDynamicSharedSizeBytes};
  const model::ArchSpec* arch = model::find_arch(dev.cc_major, dev.cc_minor);

  const int default_limit = std::min(dev.smem_per_block, 48 * kKiB) - static_smem;
  const int optin_limit = std::max(dev.smem_per_block_optin, dev.smem_per_block) - static_smem;

  // Variants: the default 48 KiB budget, half the opt-in maximum (about two blocks per SM),
  // and the whole opt-in maximum; duplicates (cards without a larger opt-in) are dropped.
  std::vector<DynVariant> vars;
  auto add = [&](const std::string& name, int budget) {
    const int tile = stencil_tile_for(budget);
    if (tile <= 0) return;
    for (const DynVariant& v : vars)
      if (v.tile == tile) return;
    DynVariant v;
    v.name = name;
    v.tile = tile;
    v.smem = stencil_smem_bytes(tile);
    vars.push_back(v);
  };
  add("default-48k", default_limit);
  if (optin_limit / 2 > default_limit) add("optin-half", optin_limit / 2);
  if (optin_limit > default_limit) add("optin-max", optin_limit);
  if (vars.empty()) throw core::CudaError(cudaErrorInvalidValue, "smem-dynamic: no tile fits");
  const int max_smem = vars.back().smem;

  // Sizes: 16M outputs (8M quick), halved until input and output take under half the free memory.
  long long n = ctx.quick ? (8ll << 20) : (16ll << 20);
  const std::size_t free_b = free_device_bytes();
  while (n > (1 << 20) &&
         static_cast<double>(2 * n + 2 * kRadius) * 4 > static_cast<double>(free_b) / 2.0)
    n /= 2;

  core::DeviceBuffer<float> in(static_cast<std::size_t>(n + 2 * kRadius));
  core::DeviceBuffer<float> out(static_cast<std::size_t>(n));
  fill_random(in.data(), in.size(), 0xd1a11u);
  std::vector<float> taps(kTaps);
  {
    std::mt19937 rng(0x7a95u);
    std::uniform_real_distribution<float> w(0.5f, 1.5f);
    for (float& x : taps) x = w(rng) / kTaps;  // positive, summing to about 1: outputs O(0.1)
  }
  MEMHIER_CUDA(cudaMemcpyToSymbol(c_stencil_taps, taps.data(), sizeof(float) * kTaps));
  MEMHIER_CUDA(cudaDeviceSynchronize());
  const std::vector<float> host_in = in.download();

  // The claim itself: until the opt-in, the kernel's dynamic limit stays at the default.
  // (Read from the attribute rather than by a launch that must fail: a failing launch
  // would be an API error under compute-sanitizer.)
  std::string no_optin_result = "n/a";
  bool no_optin_failed = false, optin_tested = false;
  if (max_smem > default_limit) {
    ctx.progress("smem-dynamic: the kernel's limit without the opt-in");
    optin_tested = true;
    MEMHIER_CUDA(
        cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, default_limit));
    cudaFuncAttributes fa{};
    MEMHIER_CUDA(cudaFuncGetAttributes(&fa, fn));
    no_optin_failed = fa.maxDynamicSharedSizeBytes < max_smem;
    no_optin_result = "the kernel's limit is " + std::to_string(fa.maxDynamicSharedSizeBytes) +
                      " B" + (no_optin_failed ? ", so the launch would be refused" : "");
  }
  // Opt in for the largest tile (one attribute covers every smaller launch).
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));

  std::vector<int> tile_list;
  for (const DynVariant& v : vars) tile_list.push_back(v.tile);
  const std::vector<long long> samples = sample_indices(n, tile_list, 0x5a3917u);
  std::vector<double> ref(samples.size());
  double ref_sq = 0;
  for (std::size_t k = 0; k < samples.size(); ++k) {
    double acc = 0;
    for (int j = 0; j < kTaps; ++j)
      acc += static_cast<double>(taps[j]) * host_in[static_cast<std::size_t>(samples[k] + j)];
    ref[k] = acc;
    ref_sq += acc * acc;
  }
  const double ref_rms = std::sqrt(ref_sq / static_cast<double>(samples.size()));

  bool optin_ran = false;
  const double bytes = static_cast<double>(n + 2 * kRadius) * 4 + static_cast<double>(n) * 4;
  for (DynVariant& v : vars) {
    ctx.progress("smem-dynamic: " + v.name);
    MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v.blocks_per_sm, fn, kStencilBlock,
                                                               static_cast<std::size_t>(v.smem)));
    if (arch) {
      model::LaunchResources lr;
      lr.block_threads = kStencilBlock;
      lr.regs_per_thread = attr.numRegs;
      lr.static_smem_bytes = static_smem;
      lr.dynamic_smem_bytes = v.smem;
      try {
        v.model_blocks = model::occupancy(*arch, lr).blocks_per_sm;
      } catch (const model::OccupancyError&) {
        v.model_blocks = -1;
      }
    }
    v.tiles = (n + v.tile - 1) / v.tile;
    const int grid = static_cast<int>(std::min<long long>(
        v.tiles, static_cast<long long>(std::max(v.blocks_per_sm, 1)) * dev.sm_count));
    auto launch = [&](cudaStream_t s) {
      stencil_tiled<<<grid, kStencilBlock, v.smem, s>>>(in.data(), out.data(), n, v.tile);
      MEMHIER_CHECK_LAUNCH();
    };

    // Verify before timing: poison, run once, every output finite, sampled float64 check.
    out.poison();
    launch(nullptr);
    MEMHIER_CUDA(cudaDeviceSynchronize());
    if (v.smem > default_limit) optin_ran = true;
    const std::vector<float> got = out.download();
    bool finite = true;
    for (float f : got) finite = finite && std::isfinite(f);
    double err_sq = 0, err_max = 0;
    for (std::size_t k = 0; k < samples.size(); ++k) {
      const double d =
          std::fabs(static_cast<double>(got[static_cast<std::size_t>(samples[k])]) - ref[k]);
      err_sq += d * d;
      err_max = std::max(err_max, d);
    }
    v.max_rel = finite && ref_rms > 0 ? err_max / ref_rms : INFINITY;
    v.rel_l2 = finite && ref_sq > 0 ? std::sqrt(err_sq / ref_sq) : INFINITY;

    core::TimingOptions opt;
    opt.name = "smem-dynamic " + v.name;
    opt.warmup = 2;
    opt.min_reps = 5;
    opt.max_reps = 200;
    opt.min_total_ms = ctx.quick ? 3.0 : 10.0;
    v.ms = core::time_it(launch, opt).median_ms;
    v.gbps = gbps(bytes, v.ms);
  }

  Result res;
  report::Section& s = res.section;
  s.id = "smem-dynamic";
  s.title = "Dynamic shared memory: run-time tiles above 48 KiB";
  s.paragraphs.push_back(
      "A 1D stencil (" + std::to_string(kTaps) + " taps, weights in constant memory) over " +
      std::to_string(n) + " random floats. Each " + std::to_string(kStencilBlock) +
      "-thread block stages a tile and its " + std::to_string(2 * kRadius) +
      "-value halo in dynamic shared memory; the tile is computed at run time from the "
      "device's limits: the default 48 KiB per block, and, after "
      "cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize), half and all of the "
      "opt-in maximum (" +
      std::to_string(dev.smem_per_block_optin) +
      " B on this card). "
      "Outputs are checked against a float64 CPU reference on " +
      std::to_string(samples.size()) +
      " sampled outputs (every tile edge included) and every output must be written. GB/s "
      "counts the compulsory traffic: the input once and the output once.");

  report::Table t;
  t.id = "smem-dynamic";
  t.title = "Tile size chosen at run time";
  t.caption =
      "max rel. error = largest |GPU - CPU float64| over the samples, divided by the "
      "reference's RMS; rel. L2 = ||GPU - CPU|| / ||CPU|| over the same samples. The "
      "tiles are shared out over blocks/SM x SMs resident blocks, so a large tile also "
      "pays for a partly idle last round.";
  t.columns = {{"variant", "", "variant"},
               {"tile (outputs)", "B", "tile_bytes"},
               {"dynamic shared memory", "B/block", "smem_bytes"},
               {"blocks/SM (CUDA)", "", "blocks_per_sm"},
               {"blocks/SM (model)", "", "model_blocks_per_sm"},
               {"tiles", "", "tiles"},
               {"time", "ms", "ms"},
               {"throughput", "GB/s", "gbps"},
               {"max rel. error", "", "max_rel_err"},
               {"rel. L2 error", "", "rel_l2_err"}};
  for (const DynVariant& v : vars)
    t.rows.push_back({Value::str(v.name), Value::integer(static_cast<long long>(v.tile) * 4),
                      Value::integer(v.smem), Value::integer(v.blocks_per_sm),
                      v.model_blocks >= 0 ? Value::integer(v.model_blocks) : Value::num(NAN),
                      Value::integer(v.tiles), Value::num(v.ms, 3), Value::num(v.gbps, 0),
                      Value::num(v.max_rel, 9), Value::num(v.rel_l2, 9)});
  if (dev.smem_per_block_optin <= 48 * kKiB)
    t.notes.push_back("This card allows no more than " + std::to_string(dev.smem_per_block_optin) +
                      " B per block, so there is no opt-in tile above 48 KiB to compare.");
  for (const DynVariant& v : vars)
    if (!(v.rel_l2 < 1e-5))
      t.notes.push_back("VERIFICATION FAILED for " + v.name + ": its time is not a valid figure.");
  if (!arch) t.notes.push_back("memhier's model has no table for this compute capability.");
  s.tables.push_back(t);

  report::Chart c;
  c.id = "smem-dynamic-gbps";
  c.title = "Stencil throughput per tile size";
  c.kind = report::Chart::Kind::bar;
  c.x_label = "tile";
  c.y_label = "throughput";
  c.y_unit = "GB/s";
  report::Series ser;
  ser.name = "GB/s";
  for (const DynVariant& v : vars) {
    c.categories.push_back(v.name + " (" + strf("%.1f KiB", v.smem / 1024.0) + ", " +
                           std::to_string(v.blocks_per_sm) + " blocks/SM)");
    ser.y.push_back(v.gbps);
  }
  c.series.push_back(ser);
  s.charts.push_back(c);

  // ---- Claims
  std::vector<ClaimRow> claims;
  {
    ClaimRow r{"smem-optin-above-48kb"_claim, "", ""};
    if (!optin_tested) {
      r.measured = "opt-in maximum " + std::to_string(dev.smem_per_block_optin) + " B";
      r.verdict = "not measurable here: this card allows no more than 48 KiB per block";
    } else {
      r.measured = std::to_string(max_smem) + " B without the opt-in: " + no_optin_result +
                   "; with it: " + (optin_ran ? "ran and verified" : "did not run");
      r.verdict = no_optin_failed && optin_ran ? "reproduced"
                  : !no_optin_failed           ? "refuted: the limit allowed it without the opt-in"
                                               : "differs: the opted-in launch did not run";
    }
    claims.push_back(r);
  }
  {
    // The seed's table of the per-block maximum, KB, by compute capability.
    struct SeedRow {
      int major, minor, kb;
    };
    const SeedRow seed_rows[] = {{7, 0, 96}, {7, 5, 64}, {8, 0, 163}, {8, 9, 99}, {9, 0, 227}};
    ClaimRow r{"smem-per-block-by-arch"_claim,
               strf("%.1f KiB per block (opt-in)", dev.smem_per_block_optin / 1024.0), ""};
    int seed_kb = -1;
    for (const SeedRow& sr : seed_rows)
      if (sr.major == dev.cc_major && sr.minor == dev.cc_minor) seed_kb = sr.kb;
    r.verdict = seed_kb < 0
                    ? "not measurable here: the seed lists no figure for compute capability " +
                          std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor)
                : dev.smem_per_block_optin == seed_kb * kKiB
                    ? "reproduced"
                    : "differs: the seed says " + std::to_string(seed_kb) + " KB";
    claims.push_back(r);
  }
  {
    ClaimRow r{"smem-more-per-block-fewer-blocks"_claim, "", ""};
    std::string m;
    bool non_increasing = true;
    for (std::size_t i = 0; i < vars.size(); ++i) {
      m += (i ? "; " : "") + strf("%.1f KiB: ", vars[i].smem / 1024.0) +
           std::to_string(vars[i].blocks_per_sm) + " blocks/SM";
      if (i && vars[i].blocks_per_sm > vars[i - 1].blocks_per_sm) non_increasing = false;
    }
    r.measured = m;
    const bool dropped = vars.size() > 1 && vars.back().blocks_per_sm < vars.front().blocks_per_sm;
    r.verdict = vars.size() < 2             ? "not measurable here: only one tile size fits"
                : non_increasing && dropped ? "reproduced"
                : non_increasing            ? "differs: the blocks per SM did not drop"
                                            : "refuted: a larger tile fitted more blocks";
    claims.push_back(r);
  }
  {
    // 000: "228KB / 32KB = 7 blocks": per-SM shared memory divided by the per-block need.
    ClaimRow r{"smem-blocks-per-sm-formula"_claim, "", ""};
    const int warp_limit = dev.max_threads_per_sm / kStencilBlock;
    std::string m, off;
    for (const DynVariant& v : vars) {
      const int napkin = std::min(warp_limit, dev.smem_per_sm / (v.smem + static_smem));
      m += (m.empty() ? "" : "; ") + strf("%.1f KiB: ", v.smem / 1024.0) + "formula " +
           std::to_string(napkin) + ", CUDA " + std::to_string(v.blocks_per_sm);
      if (napkin != v.blocks_per_sm)
        off += (off.empty() ? "" : ", ") + strf("%.1f KiB", v.smem / 1024.0);
    }
    r.measured = m;
    r.verdict = off.empty()
                    ? "reproduced"
                    : "differs at " + off +
                          ": the driver reserves shared memory per block (1 KiB from cc 8.0)";
    claims.push_back(r);
  }
  {
    ClaimRow r{"smem-larger-tiles-lower-occupancy"_claim, "", ""};
    const DynVariant& small = vars.front();
    const DynVariant& large = vars.back();
    if (vars.size() < 2 || !(small.ms > 0) || !(large.ms > 0)) {
      r.measured = "one tile size only";
      r.verdict = "not measurable here: no larger tile";
    } else {
      const double ratio = large.ms / small.ms;
      r.measured = large.name + " (" + std::to_string(large.blocks_per_sm) + " blocks/SM) took " +
                   strf("%.2fx", ratio) + " the time of " + small.name + " (" +
                   std::to_string(small.blocks_per_sm) + " blocks/SM)";
      // Tolerance: 5% either way counts as no difference.
      r.verdict = ratio > 1.05   ? "reproduced: the larger tile was slower"
                  : ratio < 0.95 ? "differs: the larger tile was faster despite fewer blocks"
                                 : "differs: within 5%, the tile size did not matter here";
    }
    claims.push_back(r);
  }
  s.tables.push_back(claims_table("smem-dynamic", claims));

  TierFigure shared;
  shared.tier = "shared";
  shared.size = std::to_string(dev.smem_per_sm / kKiB) + " KiB/SM";
  res.tiers.push_back(shared);
  return res;
}

// ---------------------------------------------------------------------------------------
// smem-carveout: L1 reuse under each carveout preference

constexpr int kReuseBlock = 1024;

__device__ __forceinline__ float4 ld_ca_f4(const float4* p) {
  float4 v;
  // ld.global.ca: cache in L1 explicitly, so reuse depends only on L1 capacity.
  asm volatile("ld.global.ca.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p));
  return v;
}

// Every block re-reads the window that belongs to its SM (by %smid), so the per-SM
// footprint is one window however many blocks share the SM. The shared-memory need is
// small (one float per warp) but real: the block's sum goes through it.
__global__ void __launch_bounds__(kReuseBlock)
    l1_window_reuse(const float4* __restrict__ windows, int window_vec4, int sm_slots, int passes,
                    float* __restrict__ out) {
  extern __shared__ float warp_sums[];
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  const float4* w =
      windows + static_cast<std::size_t>(smid % static_cast<unsigned>(sm_slots)) * window_vec4;
  float acc = 0.f;
  for (int p = 0; p < passes; ++p) {
#pragma unroll 4
    for (int i = threadIdx.x; i < window_vec4; i += kReuseBlock) {
      const float4 v = ld_ca_f4(w + i);
      acc += (v.x + v.y) + (v.z + v.w);
    }
  }
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float sum = 0.f;
    for (int i = 0; i < kReuseBlock / 32; ++i) sum += warp_sums[i];
    out[blockIdx.x] = sum;  // one slot per block: the loads cannot be dropped
  }
}

// Puts the carveout preference back to the default on every path.
struct CarveoutGuard {
  const void* fn;
  ~CarveoutGuard() {
    if (cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutDefault) != cudaSuccess)
      cudaGetLastError();  // a destructor must not throw; clear the error for later calls
  }
};

struct CarveRow {
  int pct = -1;  ///< -1: the driver's default
  int blocks_per_sm = 0;
  int smem_kb = -1, l1_kb = -1;  ///< the model's split; -1 when unknown
  std::string fits = "n/a";
  double ms = NAN, gbps = NAN;
};

Result run_smem_carveout(Context& ctx) {
  using report::Value;
  const core::DeviceInfo& dev = ctx.device;
  const void* fn = reinterpret_cast<const void*>(l1_window_reuse);
  ctx.progress("smem-carveout: setup");
  CarveoutGuard guard{fn};
  const model::ArchSpec* arch = model::find_arch(dev.cc_major, dev.cc_minor);

  // The unified L1 + shared pool per SM; without a model table the largest shared size
  // stands in for it (the window then sits a little lower in the pool).
  const int pool_kb = arch ? arch->l1_plus_smem_kb : dev.smem_per_sm / kKiB;
  // A window of 3/8 of the pool (96 KiB on H100) fits L1 when little goes to shared memory
  // and does not once most of the pool is shared memory.
  const int window_kb = std::max(16, pool_kb * 3 / 8 / 16 * 16);
  const int window_vec4 = window_kb * kKiB / 16;
  const int sm_slots = std::max(dev.sm_count, 1);
  const std::size_t dyn_smem = sizeof(float) * (kReuseBlock / 32);

  cudaFuncAttributes attr{};
  MEMHIER_CUDA(cudaFuncGetAttributes(&attr, fn));
  const int blocks_by_threads = std::max(1, dev.max_threads_per_sm / kReuseBlock);
  const int grid = sm_slots * blocks_by_threads;  // fixed, so every carveout moves the same bytes

  core::DeviceBuffer<float4> windows(static_cast<std::size_t>(sm_slots) * window_vec4);
  core::DeviceBuffer<float> out(static_cast<std::size_t>(grid));
  fill_random(reinterpret_cast<float*>(windows.data()), windows.size() * 4, 0xca7e0u);
  MEMHIER_CUDA(cudaDeviceSynchronize());

  const double target_bytes = ctx.quick ? 3e9 : 8e9;
  const double per_pass = static_cast<double>(grid) * window_kb * kKiB;
  const int passes = std::max(8, static_cast<int>(target_bytes / per_pass));
  const double bytes = per_pass * passes;

  std::vector<CarveRow> rows;
  for (int pct : {0, 25, 50, 75, 100, -1}) {
    ctx.progress("smem-carveout: " +
                 (pct < 0 ? std::string("default") : std::to_string(pct) + "%"));
    CarveRow r;
    r.pct = pct;
    MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      pct < 0 ? cudaSharedmemCarveoutDefault : pct));
    MEMHIER_CUDA(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.blocks_per_sm, fn, kReuseBlock, dyn_smem));
    if (arch && pct >= 0) {
      model::LaunchResources lr;
      lr.block_threads = kReuseBlock;
      lr.regs_per_thread = attr.numRegs;
      lr.static_smem_bytes = static_cast<int>(attr.sharedSizeBytes);
      lr.dynamic_smem_bytes = static_cast<int>(dyn_smem);
      lr.carveout_percent = pct;
      try {
        const model::OccupancyResult o = model::occupancy(*arch, lr);
        r.smem_kb = o.smem_carveout_bytes / kKiB;
        r.l1_kb = arch->l1_plus_smem_kb - r.smem_kb;
        // Tolerance: "yes" leaves a quarter of L1 spare; "no" is a window larger than all of
        // L1; in between (marginal) the replacement policy decides, so no verdict uses it.
        r.fits = window_kb <= 0.75 * r.l1_kb ? "yes" : window_kb > r.l1_kb ? "no" : "marginal";
      } catch (const model::OccupancyError&) {
      }
    }
    core::TimingOptions opt;
    opt.name = "smem-carveout " + std::to_string(pct);
    opt.warmup = 1;
    opt.min_reps = 5;
    opt.max_reps = 100;
    opt.min_total_ms = ctx.quick ? 3.0 : 8.0;
    r.ms = core::time_it(
               [&](cudaStream_t s) {
                 l1_window_reuse<<<grid, kReuseBlock, dyn_smem, s>>>(windows.data(), window_vec4,
                                                                     sm_slots, passes, out.data());
                 MEMHIER_CHECK_LAUNCH();
               },
               opt)
               .median_ms;
    r.gbps = gbps(bytes, r.ms);
    rows.push_back(r);
  }
  // The sums must be written (and finite): the loads really happened.
  {
    const std::vector<float> sums = out.download();
    for (float f : sums)
      if (!std::isfinite(f))
        throw core::CudaError(cudaErrorUnknown, "smem-carveout: a block wrote a non-finite sum");
  }
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutDefault));

  const double base_ms = rows.front().ms;  // 0%: the most L1
  Result res;
  report::Section& s = res.section;
  s.id = "smem-carveout";
  s.title = "Shared-memory carveout: L1 traded for shared memory";
  s.paragraphs.push_back(
      "Each block (" + std::to_string(kReuseBlock) + " threads, " + std::to_string(dyn_smem) +
      " B of dynamic shared memory) re-reads, " + std::to_string(passes) + " times, a " +
      std::to_string(window_kb) +
      " KiB window of global memory that belongs "
      "to its SM (chosen by %smid), with ld.global.ca 16-byte loads. The kernel's "
      "cudaFuncAttributePreferredSharedMemoryCarveout is set to each percentage in turn and "
      "restored to the default afterwards. Where the carveout leaves L1 room for the window, "
      "the reads hit L1; where it does not, they go to L2. GB/s counts every byte read. The "
      "shared/L1 split is memhier's model of the driver's rounding (cuda_occupancy.h rules) "
      "on a " +
      std::to_string(pool_kb) + " KiB pool.");

  report::Table t;
  t.id = "smem-carveout";
  t.title = "Window re-reads per carveout preference";
  t.caption =
      "relative = time / time at 0% (all of the pool that shared memory does not need "
      "goes to L1). fits: the window against the model's L1 size (yes: at most 75% of it; "
      "no: larger than all of it).";
  t.columns = {{"carveout", "%", "carveout_pct"},
               {"shared (model)", "KiB/SM", "smem_kb"},
               {"L1 (model)", "KiB/SM", "l1_kb"},
               {"window fits L1", "", "fits"},
               {"blocks/SM (CUDA)", "", "blocks_per_sm"},
               {"time", "ms", "ms"},
               {"throughput", "GB/s", "gbps"},
               {"relative", "x", "relative"}};
  for (const CarveRow& r : rows)
    t.rows.push_back({r.pct < 0 ? Value::str("default") : Value::integer(r.pct),
                      r.smem_kb >= 0 ? Value::integer(r.smem_kb) : Value::num(NAN),
                      r.l1_kb >= 0 ? Value::integer(r.l1_kb) : Value::num(NAN), Value::str(r.fits),
                      Value::integer(r.blocks_per_sm), Value::num(r.ms, 3), Value::num(r.gbps, 0),
                      Value::num(base_ms > 0 ? r.ms / base_ms : NAN, 2)});
  t.notes.push_back(
      "The carveout is a preference: the driver rounds it up to a supported "
      "split and may override it; the default row shows what the driver chose "
      "by itself, judged by its speed (its split is not reported by CUDA).");
  if (!arch)
    t.notes.push_back(
        "memhier's model has no table for this compute capability: the split "
        "columns are n/a and the window size uses the shared-memory maximum.");
  s.tables.push_back(t);

  report::Chart c;
  c.id = "smem-carveout-gbps";
  c.title = "L1 re-read throughput per carveout";
  c.kind = report::Chart::Kind::bar;
  c.x_label = "carveout";
  c.x_unit = "%";
  c.y_label = "throughput";
  c.y_unit = "GB/s";
  report::Series ser;
  ser.name = "GB/s";
  for (const CarveRow& r : rows) {
    c.categories.push_back(r.pct < 0 ? std::string("default") : std::to_string(r.pct) + "%");
    ser.y.push_back(r.gbps);
  }
  c.series.push_back(ser);
  s.charts.push_back(c);

  // ---- Claims
  std::vector<ClaimRow> claims;
  const CarveRow& max_l1 = rows[0];    // 0%
  const CarveRow& max_smem = rows[4];  // 100%
  const CarveRow& def = rows[5];
  {
    ClaimRow r{"carveout-trades-l1-for-shared"_claim, "", ""};
    // Judge the two ends (largest L1 against largest shared memory), and say where the
    // speed actually stepped: the model's split does not have to predict it.
    const double ratio = max_l1.gbps / max_smem.gbps;
    std::string step = "no step over 20% between neighbouring settings";
    for (int i = 0; i + 1 < 5; ++i)
      if (rows[i].gbps > 1.2 * rows[i + 1].gbps) {
        step = "the speed steps down between " + std::to_string(rows[i].pct) + "% and " +
               std::to_string(rows[i + 1].pct) + "% (model: window " +
               (rows[i + 1].fits == "yes" ? "still fits" : "no longer fits") + " the L1 left at " +
               std::to_string(rows[i + 1].pct) + "%)";
        break;
      }
    r.measured = "0%: " + strf("%.0f GB/s", max_l1.gbps) + ", 100%: " +
                 strf("%.0f GB/s", max_smem.gbps) + "; " + step;
    // Tolerance: the largest L1 must re-read the window at least 20% faster.
    r.verdict = ratio > 1.2    ? "reproduced (" + strf("%.2fx", ratio) + ")"
                : ratio < 1.05 ? "refuted: the carveout did not change the re-read speed"
                               : "differs: the gap is under 20% (" + strf("%.2fx", ratio) + ")";
    claims.push_back(r);
  }
  {
    ClaimRow r{"carveout-default-large-l1"_claim, "", ""};
    const double ratio = def.gbps / max_l1.gbps;
    r.measured = "default: " + strf("%.0f GB/s", def.gbps) + " (" + strf("%.2fx", ratio) +
                 " of the 0% carveout)";
    // Tolerance: within 10% of the largest-L1 setting counts as "a large L1".
    r.verdict = ratio >= 0.9
                    ? "reproduced"
                    : "differs: the default re-read the window slower than the 0% carveout";
    claims.push_back(r);
  }
  {
    ClaimRow r{"smem-228kb-per-sm"_claim, std::to_string(dev.smem_per_sm / kKiB) + " KiB per SM",
               ""};
    r.verdict = (dev.cc_major == 9 && dev.cc_minor == 0)
                    ? (dev.smem_per_sm == 228 * kKiB ? "reproduced" : "differs")
                    : "not measurable here: the figure is for H100 (cc 9.0)";
    claims.push_back(r);
  }
  s.tables.push_back(claims_table("smem-carveout", claims));

  TierFigure l1;
  l1.tier = "L1";
  l1.size = std::to_string(pool_kb) + " KiB/SM (with shared)";
  res.tiers.push_back(l1);
  return res;
}

}  // namespace

std::vector<RegistryEntry> smem_config_probes() {
  RegistryEntry dyn;
  dyn.kind = "probe";
  dyn.family = "smem_config";
  dyn.name = "smem-dynamic";
  dyn.technique =
      "tiled stencil with the tile sized at run time: 48 KiB default against the opt-in "
      "maximum (cudaFuncAttributeMaxDynamicSharedMemorySize), verified in float64";
  dyn.claim = {"002 §Shared Memory Capacity",
               "more than 48 KB of shared memory per block requires the opt-in"};
  dyn.run_probe = run_smem_dynamic;

  RegistryEntry carve;
  carve.kind = "probe";
  carve.family = "smem_config";
  carve.name = "smem-carveout";
  carve.technique =
      "a per-SM window re-read through L1 at carveout 0/25/50/75/100% and the default";
  carve.claim = {"001 §Shared Memory / L1 Cache Configurations",
                 "the carveout trades L1 capacity for shared memory"};
  carve.run_probe = run_smem_carveout;
  return {dyn, carve};
}

}  // namespace memhier::probe
