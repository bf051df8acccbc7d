// Probe "bandwidth": the bandwidth of every tier with every SM busy. Shared memory
// (4-, 8-, 16-byte loads), L1 (ld.ca re-reads), L2 (ld.cg re-reads of a working set
// well inside L2), HBM (read, write, copy, triad, and cudaMemcpy on the same
// buffers as the ceiling), and constant-cache broadcast.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/probe/bandwidth.hpp"

namespace memhier::probe {
namespace {

constexpr int kSharedBlock = 256;
constexpr int kSharedUnroll = 8;  // rows of the shared buffer each thread reads per pass
constexpr int kL1Block = 1024;    // at most 2 blocks per SM: 64 KiB resident, well inside L1
constexpr int kL1ChunkBytes = 32 * 1024;
constexpr int kL1PerThread = kL1ChunkBytes / 16 / kL1Block;
constexpr int kStreamBlock = 256;
constexpr int kCopyUnroll = 4;  // 16-byte vectors per thread of the HBM copy's tile
constexpr int kL2Block = 256;
constexpr int kChunkBlock = 1024;  // an L2 chunk: 1024 threads x 32 float4 = 512 KiB a block
constexpr int kChunkLoads = 32;
constexpr std::size_t kChunkBytes = std::size_t(kChunkBlock) * kChunkLoads * 16;
constexpr int kConstBlock = 256;
constexpr int kConstWords = 256;  // 1 KiB: fits the smallest per-SM constant cache
constexpr int kConstUnroll = 8;

static_assert(kL1PerThread >= 1, "L1 chunk must give every thread at least one float4");

__constant__ std::uint32_t c_words[kConstWords];

// ---------------------------------------------------------------------------------
// Loads through inline PTX: asm volatile so the front end keeps every counted load
// with the cache operator we name. Shared loads are also .volatile so ptxas cannot
// merge them; global and constant re-reads step their address by a run-time zero
// each pass (`pass_step`), so ptxas cannot prove them loop-invariant and hoist them.

__device__ __forceinline__ std::uint32_t ldg_ca_fold(const uint4* p) {
  std::uint32_t a, b, c, d;
  asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "l"(p)
               : "memory");
  return a ^ b ^ c ^ d;
}

__device__ __forceinline__ std::uint32_t ldg_cg_fold(const uint4* p) {
  std::uint32_t a, b, c, d;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "l"(p)
               : "memory");
  return a ^ b ^ c ^ d;
}

__device__ __forceinline__ std::uint32_t ldc(std::uint64_t const_addr) {
  std::uint32_t a;
  asm volatile("ld.const.u32 %0, [%1];" : "=r"(a) : "l"(const_addr) : "memory");
  return a;
}

__device__ __forceinline__ std::uint32_t fold(uint4 v) {
  return v.x ^ v.y ^ v.z ^ v.w;
}

// ---------------------------------------------------------------------------------
// Kernels. Each folds what it loads into one word per thread, written unconditionally.

// Thread t reads element t of each of kSharedUnroll rows: consecutive lanes read
// consecutive elements, so every width is conflict-free (1, 2 or 4 ideal wavefronts).
template <int W>
__global__ void __launch_bounds__(kSharedBlock)
    shared_read_kernel(const std::uint32_t* __restrict__ init, std::uint32_t* __restrict__ out,
                       int passes) {
  constexpr int kWords = kSharedUnroll * kSharedBlock * W / 4;
  __shared__ __align__(16) std::uint32_t buf[kWords];
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) buf[i] = init[i];
  __syncthreads();
  const std::uint32_t base =
      static_cast<std::uint32_t>(__cvta_generic_to_shared(buf)) + threadIdx.x * W;
  std::uint32_t acc = threadIdx.x;
  for (int p = 0; p < passes; ++p) {
#pragma unroll
    for (int k = 0; k < kSharedUnroll; ++k) acc ^= lds_fold<W>(base + k * kSharedBlock * W);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Each block re-reads its own 32 KiB chunk with ld.ca: after the first pass it is L1-resident.
__global__ void __launch_bounds__(kL1Block)
    l1_read_kernel(const uint4* __restrict__ buf, std::uint32_t* __restrict__ out, int passes,
                   int pass_step) {
  const uint4* chunk =
      buf + static_cast<std::size_t>(blockIdx.x) * (kL1ChunkBytes / 16) + threadIdx.x;
  std::uint32_t acc = threadIdx.x;
#pragma unroll 2
  for (int p = 0; p < passes; ++p) {
#pragma unroll
    for (int k = 0; k < kL1PerThread; ++k) acc ^= ldg_ca_fold(chunk + k * kL1Block);
    chunk += pass_step;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Thread t owns elements t + k*T (T = all threads): distinct data per SM, re-read with
// ld.cg (L2 only) on every pass.
__global__ void __launch_bounds__(kL2Block)
    l2_read_kernel(const uint4* __restrict__ buf, int per_thread, std::uint32_t* __restrict__ out,
                   int passes, int pass_step) {
  const std::size_t T = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint4* mine = buf + tid;
  std::uint32_t acc = static_cast<std::uint32_t>(tid);
  for (int p = 0; p < passes; ++p) {
#pragma unroll 8
    for (int k = 0; k < per_thread; ++k) acc ^= ldg_cg_fold(mine + k * T);
    mine += pass_step;
  }
  out[tid] = acc;
}

// Block b streams chunk b % chunks of the working set once with ld.cg, every load of a thread
// in flight at once: consecutive blocks take consecutive chunks, so every SM reads the whole
// set and each line is read by many SMs in turn. On an H200 this pattern read L2 at 10.0-10.4
// TB/s where per-thread re-reads of the same set stayed at 8.2-8.6 (one process, paired).
__global__ void __launch_bounds__(kChunkBlock)
    l2_chunk_kernel(const uint4* __restrict__ buf, int chunks, std::uint32_t* __restrict__ out) {
  const uint4* chunk =
      buf + static_cast<std::size_t>(blockIdx.x % static_cast<unsigned>(chunks)) * kChunkBlock *
                kChunkLoads;
  std::uint32_t acc = 0;
#pragma unroll
  for (int k = 0; k < kChunkLoads; ++k) acc ^= ldg_cg_fold(chunk + k * kChunkBlock + threadIdx.x);
  if (acc == 0x9e3779b9u) out[threadIdx.x] = acc;  // data-dependent: no load is dead
}

// One 16-byte access per thread and no loop (a block per 4 KiB): on an H200 this read and
// wrote HBM faster than a resident grid striding over the array (4.67 / 4.68 against 4.61 /
// 4.33 TB/s), the write most.
__global__ void __launch_bounds__(kStreamBlock)
    hbm_read_once_kernel(const uint4* __restrict__ in, std::size_t n4,
                         std::uint32_t* __restrict__ out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  const std::uint32_t v = fold(in[i]);
  if (v == 0x9e3779b9u) out[threadIdx.x] = v;
}

__global__ void __launch_bounds__(kStreamBlock)
    hbm_write_once_kernel(uint4* __restrict__ dst, std::size_t n4) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  const std::uint32_t v = 0x3f800000u | (static_cast<std::uint32_t>(i) & 0x7fffffu);  // 1.x
  dst[i] = make_uint4(v, v ^ 1u, v ^ 2u, v ^ 3u);
}

// Grid-stride streaming kernels, U independent 16-byte accesses in flight per thread: a
// faster DRAM needs more bytes in flight (latency x bandwidth), so the probe runs several U
// and the tier keeps the best.
template <int U>
__global__ void __launch_bounds__(kStreamBlock)
    hbm_read_kernel(const uint4* __restrict__ in, std::size_t n4, std::uint32_t* __restrict__ out) {
  const std::size_t T = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::uint32_t acc = 0;
  std::size_t i = tid;
  for (; i + (U - 1) * T < n4; i += U * T) {
    uint4 v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = in[i + k * T];
#pragma unroll
    for (int k = 0; k < U; ++k) acc ^= fold(v[k]);
  }
  for (; i < n4; i += T) acc ^= fold(in[i]);
  out[tid] = acc;
}

template <int U>
__global__ void __launch_bounds__(kStreamBlock)
    hbm_write_kernel(uint4* __restrict__ dst, std::size_t n4) {
  const std::size_t T = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint32_t v =
      0x3f800000u | (static_cast<std::uint32_t>(tid) & 0x7fffffu);  // 1.x, never 0
  const uint4 val = make_uint4(v, v ^ 1u, v ^ 2u, v ^ 3u);
  std::size_t i = tid;
  for (; i + (U - 1) * T < n4; i += U * T) {
#pragma unroll
    for (int k = 0; k < U; ++k) dst[i + k * T] = val;
  }
  for (; i < n4; i += T) dst[i] = val;
}

// Block b copies the contiguous tile of kCopyUnroll x kStreamBlock vectors at b * tile, every
// load issued before the first store; one tile per block, no grid-stride loop. This is the
// elementwise ladder's float4_unroll4 shape, which matches cudaMemcpy on an H100 where a
// resident grid striding over the arrays reached 0.94x of it.
__global__ void __launch_bounds__(kStreamBlock)
    hbm_copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t n4) {
  constexpr std::size_t kTile = static_cast<std::size_t>(kCopyUnroll) * kStreamBlock;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kTile + threadIdx.x;
  uint4 v[kCopyUnroll];
  if (base - threadIdx.x + kTile <= n4) {  // a full tile: no bounds checks
#pragma unroll
    for (int k = 0; k < kCopyUnroll; ++k) v[k] = src[base + k * kStreamBlock];
#pragma unroll
    for (int k = 0; k < kCopyUnroll; ++k) dst[base + k * kStreamBlock] = v[k];
    return;
  }
#pragma unroll
  for (int k = 0; k < kCopyUnroll; ++k)
    if (base + k * kStreamBlock < n4) v[k] = src[base + k * kStreamBlock];
#pragma unroll
  for (int k = 0; k < kCopyUnroll; ++k)
    if (base + k * kStreamBlock < n4) dst[base + k * kStreamBlock] = v[k];
}

__device__ __forceinline__ float4 triad(float4 b, float4 c, float s) {
  return make_float4(b.x + s * c.x, b.y + s * c.y, b.z + s * c.z, b.w + s * c.w);
}

__global__ void __launch_bounds__(kStreamBlock)
    hbm_triad_kernel(float4* __restrict__ a, const float4* __restrict__ b,
                     const float4* __restrict__ c, float s, std::size_t n4) {
  const std::size_t T = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * T < n4; i += 4 * T) {
    const float4 b0 = b[i], b1 = b[i + T], b2 = b[i + 2 * T], b3 = b[i + 3 * T];
    const float4 c0 = c[i], c1 = c[i + T], c2 = c[i + 2 * T], c3 = c[i + 3 * T];
    a[i] = triad(b0, c0, s);
    a[i + T] = triad(b1, c1, s);
    a[i + 2 * T] = triad(b2, c2, s);
    a[i + 3 * T] = triad(b3, c3, s);
  }
  for (; i < n4; i += T) a[i] = triad(b[i], c[i], s);
}

// Every lane reads the same word (the address depends only on the loop counters),
// advancing through the table together: one broadcast per load.
__global__ void __launch_bounds__(kConstBlock)
    constant_read_kernel(std::uint32_t* __restrict__ out, int passes, int pass_step) {
  std::uint64_t base = static_cast<std::uint64_t>(__cvta_generic_to_constant(c_words));
  std::uint32_t acc = threadIdx.x;
  for (int p = 0; p < passes; ++p) {
#pragma unroll 1
    for (int j = 0; j < kConstWords; j += kConstUnroll) {
#pragma unroll
      for (int k = 0; k < kConstUnroll; ++k)
        acc ^= ldc(base + 4u * static_cast<std::uint32_t>(j + k));
    }
    base += static_cast<std::uint64_t>(pass_step);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// ---------------------------------------------------------------------------------
// Host side.

core::TimingOptions timing(const std::string& name, const Context& ctx) {
  core::TimingOptions o;
  o.name = name;
  o.warmup = 2;
  o.min_reps = 5;
  o.max_reps = 200;
  o.min_total_ms = ctx.quick ? 3.0 : 10.0;
  return fewest_if_smallest(ctx, o);
}

// What every tier's timing shares: the context, the launch length and the output words.
struct BandwidthRun {
  Context& ctx;
  BandwidthResult& m;
  double target_ms;
  std::uint32_t* out;
};

// Times `launch` at calibrated passes; returns GB/s for `bytes_per_pass` a pass.
double time_passes(const BandwidthRun& run, const std::string& name, double bytes_per_pass,
                   const std::function<void(cudaStream_t, int)>& launch) {
  const int passes = calibrate_passes("bandwidth: calibrate", launch, run.target_ms);
  const core::Timing t =
      core::time_it([&](cudaStream_t s) { launch(s, passes); }, timing(name, run.ctx));
  return gbps(bytes_per_pass * passes, t.median_ms);
}

// Shared memory: one width of conflict-free loads.
template <typename Kernel>
void shared_tier(const BandwidthRun& run, Kernel kernel, int grid, int width,
                 const std::uint32_t* init) {
  const double g = time_passes(run, "bandwidth: shared",
                               static_cast<double>(grid) * kSharedBlock * kSharedUnroll * width,
                               [&](cudaStream_t s, int passes) {
                                 kernel<<<grid, kSharedBlock, 0, s>>>(init, run.out, passes);
                                 MEMHIER_CHECK_LAUNCH();
                               });
  run.m.tiers.push_back({"shared", std::to_string(width) + "-byte loads, conflict-free", g, true});
  if (!(run.m.best_shared_gbps >= g)) run.m.best_shared_gbps = g;
}

// L1: ld.ca re-reads of a 32 KiB chunk per block.
void l1_tier(const BandwidthRun& run, const float* c, std::size_t nf) {
  run.ctx.progress("bandwidth: L1");
  // Prefer the largest L1 for this kernel, and put the default back however we leave.
  MEMHIER_CUDA(cudaFuncSetAttribute(l1_read_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxL1));
  struct CarveoutReset {
    ~CarveoutReset() {
      // A destructor cannot throw: on failure, clear the error so no later check misreports it.
      if (cudaFuncSetAttribute(l1_read_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutDefault) != cudaSuccess)
        (void)cudaGetLastError();
    }
  } carveout_reset;
  const int grid_l1 =
      std::min(full_grid(l1_read_kernel, kL1Block, run.ctx), run.ctx.device.sm_count * 2);
  const std::size_t chunk_floats = static_cast<std::size_t>(kL1ChunkBytes) / 4;
  if (static_cast<std::size_t>(grid_l1) * chunk_floats > nf)
    throw core::CudaError(cudaErrorMemoryAllocation, "bandwidth: L1 chunks do not fit the buffer");
  run.m.l1_gbps = time_passes(run, "bandwidth: L1", static_cast<double>(grid_l1) * kL1ChunkBytes,
                              [&](cudaStream_t s, int passes) {
                                l1_read_kernel<<<grid_l1, kL1Block, 0, s>>>(
                                    reinterpret_cast<const uint4*>(c), run.out, passes, 0);
                                MEMHIER_CHECK_LAUNCH();
                              });
  run.m.tiers.push_back({"L1", "ld.ca re-reads, 32 KiB per block", run.m.l1_gbps, true});
}

// L2 with ld.cg: every block streaming a 512 KiB chunk of working sets of L2/16, L2/8 and L2/5,
// and each thread re-reading its own words of the L2/8 set (a line homed in the far partition
// is also cached near the SM while the set leaves room, so smaller sets read faster). The
// tier keeps the best row.
void l2_tier(const BandwidthRun& run, const float* c, std::size_t S, std::size_t l2, int grid_l2) {
  const auto keep = [&](const std::string& access, double g, std::size_t working) {
    run.m.tiers.push_back({"L2", access, g, true});
    if (!(run.m.l2_gbps >= g)) run.m.l2_gbps = g;
    if (working * 2 > l2)
      run.m.notes.push_back("An L2 working set is over half of L2: its row may include DRAM "
                            "traffic.");
  };
  for (const std::size_t fraction : {16, 8, 5}) {
    const int chunks = static_cast<int>(std::max<std::size_t>(1, l2 / fraction / kChunkBytes));
    const std::size_t working = static_cast<std::size_t>(chunks) * kChunkBytes;
    if (working > S)
      throw core::CudaError(cudaErrorMemoryAllocation, "bandwidth: L2 working set too large");
    const std::string set = mib(static_cast<double>(working)) + " working set";
    run.ctx.progress("bandwidth: L2, " + set);
    const double g = time_passes(
        run, "bandwidth: L2", static_cast<double>(working), [&](cudaStream_t s, int passes) {
          // A pass reads every chunk once; passes of blocks, not loops, so blocks stay short.
          l2_chunk_kernel<<<chunks * passes, kChunkBlock, 0, s>>>(
              reinterpret_cast<const uint4*>(c), chunks, run.out);
          MEMHIER_CHECK_LAUNCH();
        });
    keep("ld.cg, a 512 KiB chunk per block, all SMs over " + set, g, working);
  }
  const std::size_t threads = static_cast<std::size_t>(grid_l2) * kL2Block;
  const int per_thread = static_cast<int>(std::max<std::size_t>(1, l2 / 8 / 16 / threads));
  const std::size_t working = threads * static_cast<std::size_t>(per_thread) * 16;
  if (working > S)
    throw core::CudaError(cudaErrorMemoryAllocation, "bandwidth: L2 working set too large");
  const std::string set = mib(static_cast<double>(working)) + " working set";
  run.ctx.progress("bandwidth: L2, " + set + ", per-thread re-reads");
  const double g = time_passes(
      run, "bandwidth: L2", static_cast<double>(working), [&](cudaStream_t s, int passes) {
        l2_read_kernel<<<grid_l2, kL2Block, 0, s>>>(reinterpret_cast<const uint4*>(c), per_thread,
                                                    run.out, passes, 0);
        MEMHIER_CHECK_LAUNCH();
      });
  keep("ld.cg re-reads of each thread's own words, " + set, g, working);
}

// HBM: read, write, copy, triad and cudaMemcpy over arrays of S bytes.
void hbm_tiers(const BandwidthRun& run, float* a, const float* b, const float* c, std::size_t S) {
  Context& ctx = run.ctx;
  const std::size_t n4 = S / 16;
  constexpr std::size_t copy_tile = static_cast<std::size_t>(kCopyUnroll) * kStreamBlock;
  const unsigned grid_copy = static_cast<unsigned>((n4 + copy_tile - 1) / copy_tile);
  const int grid_triad = full_grid(hbm_triad_kernel, kStreamBlock, ctx);
  const double Sd = static_cast<double>(S);
  auto stream_row = [&](const std::string& tier, const std::string& access, double bytes,
                        const std::function<void(cudaStream_t)>& launch) {
    ctx.progress("bandwidth: " + tier);
    const core::Timing t = core::time_it(launch, timing("bandwidth: " + tier, ctx));
    const double g = gbps(bytes, t.median_ms);
    run.m.tiers.push_back({tier, access, g, false});
    return g;
  };
  const std::string size_text = mib(Sd) + " per array";
  const uint4* b4c = reinterpret_cast<const uint4*>(b);
  uint4* a4 = reinterpret_cast<uint4*>(a);
  const auto read = [&](auto kernel, int in_flight) {
    const int grid = full_grid(kernel, kStreamBlock, ctx);
    const double g = stream_row(
        "HBM read", "float4 loads, grid-stride, " + std::to_string(in_flight) +
                        " in flight per thread, " + size_text,
        Sd, [&](cudaStream_t s) {
          kernel<<<grid, kStreamBlock, 0, s>>>(b4c, n4, run.out);
          MEMHIER_CHECK_LAUNCH();
        });
    if (!(run.m.read_gbps >= g)) run.m.read_gbps = g;
  };
  read(hbm_read_kernel<4>, 4);
  read(hbm_read_kernel<8>, 8);
  const unsigned grid_once = static_cast<unsigned>((n4 + kStreamBlock - 1) / kStreamBlock);
  const double once = stream_row(
      "HBM read", "float4 loads, one per thread, no loop, " + size_text, Sd,
      [&](cudaStream_t s) {
        hbm_read_once_kernel<<<grid_once, kStreamBlock, 0, s>>>(b4c, n4, run.out);
        MEMHIER_CHECK_LAUNCH();
      });
  if (!(run.m.read_gbps >= once)) run.m.read_gbps = once;
  const auto write = [&](auto kernel, int in_flight) {
    const int grid = full_grid(kernel, kStreamBlock, ctx);
    const double g = stream_row(
        "HBM write", "float4 stores, grid-stride, " + std::to_string(in_flight) +
                         " per thread a round, " + size_text,
        Sd, [&](cudaStream_t s) {
          kernel<<<grid, kStreamBlock, 0, s>>>(a4, n4);
          MEMHIER_CHECK_LAUNCH();
        });
    if (!(run.m.write_gbps >= g)) run.m.write_gbps = g;
  };
  write(hbm_write_kernel<4>, 4);
  const double wonce = stream_row(
      "HBM write", "float4 stores, one per thread, no loop, " + size_text, Sd,
      [&](cudaStream_t s) {
        hbm_write_once_kernel<<<grid_once, kStreamBlock, 0, s>>>(a4, n4);
        MEMHIER_CHECK_LAUNCH();
      });
  if (!(run.m.write_gbps >= wonce)) run.m.write_gbps = wonce;
  run.m.copy_gbps =
      stream_row("HBM copy", "a = b, a 16 KiB tile per block, bytes read + written, " + size_text,
                 2 * Sd, [&](cudaStream_t s) {
                   hbm_copy_kernel<<<grid_copy, kStreamBlock, 0, s>>>(b4c, a4, n4);
                   MEMHIER_CHECK_LAUNCH();
                 });
  run.m.triad_gbps =
      stream_row("HBM triad", "a = b + s*c, 3 streams, " + size_text, 3 * Sd, [&](cudaStream_t s) {
        hbm_triad_kernel<<<grid_triad, kStreamBlock, 0, s>>>(
            reinterpret_cast<float4*>(a), reinterpret_cast<const float4*>(b),
            reinterpret_cast<const float4*>(c), 1.5f, n4);
        MEMHIER_CHECK_LAUNCH();
      });
  run.m.memcpy_gbps = stream_row(
      "cudaMemcpy D2D", "cudaMemcpyAsync a <- b, bytes read + written, " + size_text, 2 * Sd,
      [&](cudaStream_t s) { MEMHIER_CUDA(cudaMemcpyAsync(a, b, S, cudaMemcpyDeviceToDevice, s)); });
}

// Constant: warp-uniform reads of a 1 KiB __constant__ table.
void constant_tier(const BandwidthRun& run, int grid_c) {
  run.ctx.progress("bandwidth: constant");
  std::vector<std::uint32_t> host(kConstWords);
  std::mt19937 rng(505u);
  for (std::uint32_t& w : host) w = static_cast<std::uint32_t>(rng());
  MEMHIER_CUDA(cudaMemcpyToSymbol(c_words, host.data(), sizeof(std::uint32_t) * kConstWords));
  // Bytes delivered to threads: 4 per lane per load, although the cache reads the word once per
  // warp.
  run.m.constant_gbps = time_passes(
      run, "bandwidth: constant", static_cast<double>(grid_c) * kConstBlock * kConstWords * 4.0,
      [&](cudaStream_t s, int passes) {
        constant_read_kernel<<<grid_c, kConstBlock, 0, s>>>(run.out, passes, 0);
        MEMHIER_CHECK_LAUNCH();
      });
  run.m.tiers.push_back({"constant",
                         "warp-uniform 4-byte reads, 1 KiB table (bytes delivered to lanes)",
                         run.m.constant_gbps, true});
}

Result run_bandwidth(Context& ctx) {
  return present_bandwidth(measure_bandwidth(ctx));
}

}  // namespace

BandwidthResult measure_bandwidth(Context& ctx) {
  const core::DeviceInfo& dev = ctx.device;
  BandwidthResult m;
  m.device = dev;
  m.sm_clock_mhz = ctx.sm_clock_mhz;

  // HBM arrays: three of S bytes each, S >> L2, capped by free memory. 4 GiB rather than 2: on
  // the lent H200 one read pass of 1/2/4/8 GiB read 4592/4645/4671/4691 GB/s (the launch's
  // ramp and tail weigh less in a longer pass).
  const std::size_t free_b = free_device_bytes();
  const std::size_t want = (ctx.quick ? std::size_t(512) : std::size_t(4096)) << 20;
  std::size_t S = std::min(want, static_cast<std::size_t>(static_cast<double>(free_b) * 0.6 / 3.0));
  S = S / (std::size_t(1) << 20) * (std::size_t(1) << 20);  // whole MiB: float4-aligned
  const std::size_t l2 = static_cast<std::size_t>(std::max(dev.l2_bytes, 1));
  if (S < (std::size_t(4) << 20))
    throw core::CudaError(cudaErrorMemoryAllocation,
                          "bandwidth: less than 12 MiB of device memory free");
  if (S < 4 * l2)
    m.notes.push_back("Only " + mib(static_cast<double>(S)) +
                      " per HBM array could be allocated (< 4x L2): "
                      "the HBM rows may include L2 hits.");
  m.array_bytes = static_cast<double>(S);
  const std::size_t nf = S / 4;
  core::DeviceBuffer<float> a(nf), b(nf), c(nf);
  fill_random(a.data(), nf, 101u);
  fill_random(b.data(), nf, 202u);
  fill_random(c.data(), nf, 303u);

  const int grid_s4 = full_grid(shared_read_kernel<4>, kSharedBlock, ctx);
  const int grid_s8 = full_grid(shared_read_kernel<8>, kSharedBlock, ctx);
  const int grid_s16 = full_grid(shared_read_kernel<16>, kSharedBlock, ctx);
  const int grid_l2 = full_grid(l2_read_kernel, kL2Block, ctx);
  const int grid_c = full_grid(constant_read_kernel, kConstBlock, ctx);
  std::size_t out_n =
      static_cast<std::size_t>(std::max({full_grid(hbm_read_kernel<4>, kStreamBlock, ctx),
                                         full_grid(hbm_read_kernel<8>, kStreamBlock, ctx)})) *
      kStreamBlock;
  out_n = std::max(out_n, static_cast<std::size_t>(kChunkBlock));
  for (int g : {grid_s4, grid_s8, grid_s16})
    out_n = std::max(out_n, static_cast<std::size_t>(g) * kSharedBlock);
  out_n = std::max(out_n, static_cast<std::size_t>(grid_l2) * kL2Block);
  out_n = std::max(out_n, static_cast<std::size_t>(grid_c) * kConstBlock);
  // L1 grid is sized later (after the carveout is set); its blocks are at most 2 per SM.
  out_n = std::max(out_n, static_cast<std::size_t>(dev.sm_count) * 2 * kL1Block);
  core::DeviceBuffer<std::uint32_t> out(out_n);
  const BandwidthRun run{ctx, m, ctx.quick ? 0.3 : 1.0, out.data()};

  ctx.progress("bandwidth: shared memory");
  const int kInitWords = kSharedUnroll * kSharedBlock * 16 / 4;
  core::DeviceBuffer<std::uint32_t> init(kInitWords);
  fill_random_bits(init.data(), init.size(), 404u);
  shared_tier(run, shared_read_kernel<4>, grid_s4, 4, init.data());
  shared_tier(run, shared_read_kernel<8>, grid_s8, 8, init.data());
  shared_tier(run, shared_read_kernel<16>, grid_s16, 16, init.data());
  l1_tier(run, c.data(), nf);
  l2_tier(run, c.data(), S, l2, grid_l2);
  hbm_tiers(run, a.data(), b.data(), c.data(), S);
  constant_tier(run, grid_c);
  return m;
}

std::vector<registry::Entry> bandwidth_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "bandwidth";
  e.name = "bandwidth";
  e.technique =
      "every tier with every SM busy: shared (4/8/16 B), L1 ld.ca, L2 ld.cg, HBM "
      "read/write/copy/triad "
      "against cudaMemcpy, constant broadcast";
  e.claim = {"001 §GPU memory hierarchy; 000 §The five memory spaces",
             "H100: shared ~3+ (GPU Memory Hierarchy) or ~19 (Global, Shared, and Register Memory) "
             "TB/s, L2 ~12 TB/s, HBM3 3,350 GB/s"};
  e.run_probe = run_bandwidth;
  return {e};
}

}  // namespace memhier::probe
