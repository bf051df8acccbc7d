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
#include "memhier/probe/smem_config.hpp"

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

// Tiles: the default 48 KiB budget, half the opt-in maximum (about two blocks per SM),
// and the whole opt-in maximum; duplicates (cards without a larger opt-in) are dropped.
std::vector<DynamicTile> plan_tiles(int default_limit, int optin_limit) {
  std::vector<DynamicTile> vars;
  auto add = [&](const std::string& name, int budget) {
    const int tile = stencil_tile_for(budget);
    if (tile <= 0) return;
    for (const DynamicTile& v : vars)
      if (v.tile_outputs == tile) return;
    DynamicTile v;
    v.name = name;
    v.tile_outputs = tile;
    v.smem_bytes = stencil_smem_bytes(tile);
    vars.push_back(v);
  };
  add("default-48k", default_limit);
  if (optin_limit / 2 > default_limit) add("optin-half", optin_limit / 2);
  if (optin_limit > default_limit) add("optin-max", optin_limit);
  if (vars.empty()) throw core::CudaError(cudaErrorInvalidValue, "smem-dynamic: no tile fits");
  return vars;
}

// The float64 reference at the sampled outputs.
struct Reference {
  std::vector<long long> samples;
  std::vector<double> values;
  double sum_sq = 0, rms = 0;
};

Reference stencil_reference(const std::vector<float>& host_in, const std::vector<float>& taps,
                            long long n, const std::vector<DynamicTile>& vars) {
  std::vector<int> tile_list;
  for (const DynamicTile& v : vars) tile_list.push_back(v.tile_outputs);
  Reference ref;
  ref.samples = sample_indices(n, tile_list, 0x5a3917u);
  ref.values.resize(ref.samples.size());
  for (std::size_t k = 0; k < ref.samples.size(); ++k) {
    double acc = 0;
    for (int j = 0; j < kTaps; ++j)
      acc += static_cast<double>(taps[j]) * host_in[static_cast<std::size_t>(ref.samples[k] + j)];
    ref.values[k] = acc;
    ref.sum_sq += acc * acc;
  }
  ref.rms = std::sqrt(ref.sum_sq / static_cast<double>(ref.samples.size()));
  return ref;
}

// Random input and taps (positive, summing to about 1: outputs O(0.1)); returns the taps.
std::vector<float> fill_stencil_inputs(core::DeviceBuffer<float>& in) {
  fill_random(in.data(), in.size(), 0xd1a11u);
  std::vector<float> taps(kTaps);
  std::mt19937 rng(0x7a95u);
  std::uniform_real_distribution<float> w(0.5f, 1.5f);
  for (float& x : taps) x = w(rng) / kTaps;
  MEMHIER_CUDA(cudaMemcpyToSymbol(c_stencil_taps, taps.data(), sizeof(float) * kTaps));
  MEMHIER_CUDA(cudaDeviceSynchronize());
  return taps;
}

// The claim itself: until the opt-in, the kernel's dynamic limit stays at the default.
// (Read from the attribute rather than by a launch that must fail: a failing launch
// would be an API error under compute-sanitizer.)
int limit_without_optin(const void* fn, int default_limit) {
  MEMHIER_CUDA(
      cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, default_limit));
  cudaFuncAttributes fa{};
  MEMHIER_CUDA(cudaFuncGetAttributes(&fa, fn));
  return fa.maxDynamicSharedSizeBytes;
}

// Occupancy (CUDA's and the model's), one verified run, then the timing of one tile.
void run_tile(DynamicTile& v, const SmemDynamicResult& m, const model::ArchSpec* arch,
              const cudaFuncAttributes& attr, core::DeviceBuffer<float>& in,
              core::DeviceBuffer<float>& out, const Reference& ref, Context& ctx) {
  const void* fn = reinterpret_cast<const void*>(stencil_tiled);
  const long long n = m.outputs;
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &v.blocks_per_sm, fn, kStencilBlock, static_cast<std::size_t>(v.smem_bytes)));
  if (arch) {
    model::LaunchResources lr;
    lr.block_threads = kStencilBlock;
    lr.regs_per_thread = attr.numRegs;
    lr.static_smem_bytes = m.static_smem_bytes;
    lr.dynamic_smem_bytes = v.smem_bytes;
    try {
      v.model_blocks_per_sm = model::occupancy(*arch, lr).blocks_per_sm;
    } catch (const model::OccupancyError&) {
      v.model_blocks_per_sm = -1;
    }
  }
  v.tiles = (n + v.tile_outputs - 1) / v.tile_outputs;
  const int grid = static_cast<int>(std::min<long long>(
      v.tiles, static_cast<long long>(std::max(v.blocks_per_sm, 1)) * m.device.sm_count));
  auto launch = [&](cudaStream_t s) {
    stencil_tiled<<<grid, kStencilBlock, v.smem_bytes, s>>>(in.data(), out.data(), n,
                                                            v.tile_outputs);
    MEMHIER_CHECK_LAUNCH();
  };

  // Verify before timing: poison, run once, every output finite, sampled float64 check.
  out.poison();
  launch(nullptr);
  MEMHIER_CUDA(cudaDeviceSynchronize());
  const std::vector<float> got = out.download();
  bool finite = true;
  for (float f : got) finite = finite && std::isfinite(f);
  double err_sq = 0, err_max = 0;
  for (std::size_t k = 0; k < ref.samples.size(); ++k) {
    const double d = std::fabs(static_cast<double>(got[static_cast<std::size_t>(ref.samples[k])]) -
                               ref.values[k]);
    err_sq += d * d;
    err_max = std::max(err_max, d);
  }
  v.max_rel_err = finite && ref.rms > 0 ? err_max / ref.rms : INFINITY;
  v.rel_l2_err = finite && ref.sum_sq > 0 ? std::sqrt(err_sq / ref.sum_sq) : INFINITY;

  core::TimingOptions opt;
  opt.name = "smem-dynamic " + v.name;
  opt.warmup = 2;
  opt.min_reps = 5;
  opt.max_reps = 200;
  opt.min_total_ms = ctx.quick ? 3.0 : 10.0;
  v.ms = core::time_it(launch, fewest_if_smallest(ctx, opt)).median_ms;
  const double bytes = static_cast<double>(n + 2 * kRadius) * 4 + static_cast<double>(n) * 4;
  v.gbps = gbps(bytes, v.ms);
}

Result run_smem_dynamic(Context& ctx) {
  return present_smem_dynamic(measure_smem_dynamic(ctx));
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

// The model's shared/L1 split at `pct` and whether the window fits the L1 left.
void model_split(CarveoutSetting& r, const model::ArchSpec& arch, const cudaFuncAttributes& attr,
                 std::size_t dyn_smem, int window_kb) {
  model::LaunchResources lr;
  lr.block_threads = kReuseBlock;
  lr.regs_per_thread = attr.numRegs;
  lr.static_smem_bytes = static_cast<int>(attr.sharedSizeBytes);
  lr.dynamic_smem_bytes = static_cast<int>(dyn_smem);
  lr.carveout_percent = r.pct;
  try {
    const model::OccupancyResult o = model::occupancy(arch, lr);
    r.smem_kb = o.smem_carveout_bytes / kKiB;
    r.l1_kb = arch.l1_plus_smem_kb - r.smem_kb;
    // Tolerance: "yes" leaves a quarter of L1 spare; "no" is a window larger than all of
    // L1; in between (marginal) the replacement policy decides, so no verdict uses it.
    r.fits = window_kb <= 0.75 * r.l1_kb ? "yes" : window_kb > r.l1_kb ? "no" : "marginal";
  } catch (const model::OccupancyError&) {
  }
}

Result run_smem_carveout(Context& ctx) {
  return present_smem_carveout(measure_smem_carveout(ctx));
}

}  // namespace

SmemDynamicResult measure_smem_dynamic(Context& ctx) {
  SmemDynamicResult m;
  m.device = ctx.device;
  m.taps = kTaps;
  m.block_threads = kStencilBlock;
  m.halo = 2 * kRadius;
  const core::DeviceInfo& dev = ctx.device;
  const void* fn = reinterpret_cast<const void*>(stencil_tiled);
  ctx.progress("smem-dynamic: setup");

  cudaFuncAttributes attr{};
  MEMHIER_CUDA(cudaFuncGetAttributes(&attr, fn));
  m.static_smem_bytes = static_cast<int>(attr.sharedSizeBytes);
  MaxDynamicSmemGuard guard{fn, attr.maxDynamicSharedSizeBytes};
  const model::ArchSpec* arch = model::find_arch(dev.cc_major, dev.cc_minor);
  m.has_model = arch != nullptr;

  m.default_limit_bytes = std::min(dev.smem_per_block, 48 * kKiB) - m.static_smem_bytes;
  const int optin_limit =
      std::max(dev.smem_per_block_optin, dev.smem_per_block) - m.static_smem_bytes;
  m.tiles = plan_tiles(m.default_limit_bytes, optin_limit);
  const int max_smem = m.tiles.back().smem_bytes;

  // Sizes: 16M outputs (8M quick), halved until input and output take under half the free memory.
  long long n = ctx.quick ? (8ll << 20) : (16ll << 20);
  const std::size_t free_b = free_device_bytes();
  while (n > (1 << 20) &&
         static_cast<double>(2 * n + 2 * kRadius) * 4 > static_cast<double>(free_b) / 2.0)
    n /= 2;
  m.outputs = n;

  core::DeviceBuffer<float> in(static_cast<std::size_t>(n + 2 * kRadius));
  core::DeviceBuffer<float> out(static_cast<std::size_t>(n));
  const std::vector<float> taps = fill_stencil_inputs(in);
  const std::vector<float> host_in = in.download();

  if (max_smem > m.default_limit_bytes) {
    ctx.progress("smem-dynamic: the kernel's limit without the opt-in");
    m.optin_tested = true;
    m.no_optin_limit_bytes = limit_without_optin(fn, m.default_limit_bytes);
  }
  // Opt in for the largest tile (one attribute covers every smaller launch).
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));

  const Reference ref = stencil_reference(host_in, taps, n, m.tiles);
  m.samples = ref.samples.size();
  for (DynamicTile& v : m.tiles) {
    ctx.progress("smem-dynamic: " + v.name);
    run_tile(v, m, arch, attr, in, out, ref, ctx);
    if (v.smem_bytes > m.default_limit_bytes) m.optin_ran = true;
  }
  return m;
}

SmemCarveoutResult measure_smem_carveout(Context& ctx) {
  SmemCarveoutResult m;
  m.device = ctx.device;
  const core::DeviceInfo& dev = ctx.device;
  const void* fn = reinterpret_cast<const void*>(l1_window_reuse);
  ctx.progress("smem-carveout: setup");
  CarveoutGuard guard{fn};
  const model::ArchSpec* arch = model::find_arch(dev.cc_major, dev.cc_minor);
  m.has_model = arch != nullptr;

  // The unified L1 + shared pool per SM; without a model table the largest shared size
  // stands in for it (the window then sits a little lower in the pool).
  m.pool_kb = arch ? arch->l1_plus_smem_kb : dev.smem_per_sm / kKiB;
  // A window of 3/8 of the pool (96 KiB on H100) fits L1 when little goes to shared memory
  // and does not once most of the pool is shared memory.
  m.window_kb = std::max(16, m.pool_kb * 3 / 8 / 16 * 16);
  const int window_vec4 = m.window_kb * kKiB / 16;
  const int sm_slots = std::max(dev.sm_count, 1);
  m.block_threads = kReuseBlock;
  m.dyn_smem_bytes = sizeof(float) * (kReuseBlock / 32);

  cudaFuncAttributes attr{};
  MEMHIER_CUDA(cudaFuncGetAttributes(&attr, fn));
  const int blocks_by_threads = std::max(1, dev.max_threads_per_sm / kReuseBlock);
  const int grid = sm_slots * blocks_by_threads;  // fixed, so every carveout moves the same bytes

  core::DeviceBuffer<float4> windows(static_cast<std::size_t>(sm_slots) * window_vec4);
  core::DeviceBuffer<float> out(static_cast<std::size_t>(grid));
  fill_random(reinterpret_cast<float*>(windows.data()), windows.size() * 4, 0xca7e0u);
  MEMHIER_CUDA(cudaDeviceSynchronize());

  const double target_bytes = ctx.quick ? 3e9 : 8e9;
  const double per_pass = static_cast<double>(grid) * m.window_kb * kKiB;
  m.passes = std::max(8, static_cast<int>(target_bytes / per_pass));
  const double bytes = per_pass * m.passes;

  for (int pct : {0, 25, 50, 75, 100, -1}) {
    ctx.progress("smem-carveout: " +
                 (pct < 0 ? std::string("default") : std::to_string(pct) + "%"));
    CarveoutSetting r;
    r.pct = pct;
    MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      pct < 0 ? cudaSharedmemCarveoutDefault : pct));
    MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.blocks_per_sm, fn, kReuseBlock,
                                                               m.dyn_smem_bytes));
    if (arch && pct >= 0) model_split(r, *arch, attr, m.dyn_smem_bytes, m.window_kb);
    core::TimingOptions opt;
    opt.name = "smem-carveout " + std::to_string(pct);
    opt.warmup = 1;
    opt.min_reps = 5;
    opt.max_reps = 100;
    opt.min_total_ms = ctx.quick ? 3.0 : 8.0;
    opt = fewest_if_smallest(ctx, opt);
    r.ms = core::time_it(
               [&](cudaStream_t s) {
                 l1_window_reuse<<<grid, kReuseBlock, m.dyn_smem_bytes, s>>>(
                     windows.data(), window_vec4, sm_slots, m.passes, out.data());
                 MEMHIER_CHECK_LAUNCH();
               },
               opt)
               .median_ms;
    r.gbps = gbps(bytes, r.ms);
    m.settings.push_back(r);
  }
  // The sums must be written (and finite): the loads really happened.
  for (float f : out.download())
    if (!std::isfinite(f))
      throw core::CudaError(cudaErrorUnknown, "smem-carveout: a block wrote a non-finite sum");
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutDefault));
  return m;
}

std::vector<registry::Entry> smem_config_probes() {
  registry::Entry dyn;
  dyn.kind = "probe";
  dyn.family = "smem_config";
  dyn.name = "smem-dynamic";
  dyn.technique =
      "tiled stencil with the tile sized at run time: 48 KiB default against the opt-in "
      "maximum (cudaFuncAttributeMaxDynamicSharedMemorySize), verified in float64";
  dyn.claim = {"002 §Shared Memory Capacity",
               "more than 48 KB of shared memory per block requires the opt-in"};
  dyn.run_probe = run_smem_dynamic;

  registry::Entry carve;
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
