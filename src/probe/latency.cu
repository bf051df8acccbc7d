// Latency per tier by pointer chasing: one thread follows a random cyclic ring of
// pointers, each load's address the previous load's value, timed with clock64()
// inside the kernel. Probes "latency" (one figure per tier) and "latency-working-set"
// (latency against ring size, ld.ca and ld.cg, with the knees found).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "chase_ring.cuh"
#include "common.cuh"
#include "families.hpp"
#include "memhier/core/hash.cuh"
#include "memhier/probe/latency.hpp"

namespace memhier::probe {
namespace {

constexpr std::uint64_t kPageTouch = 64 << 10;  // TLB warm: one load per 64 KiB (<= any GPU page)
constexpr std::uint64_t kBigPage = 2 << 20;     // cudaMalloc's large page on current GPUs
constexpr int kChaseBlock = 1024;               // threads that warm; thread 0 chases
constexpr int kConstWords = 256;                // 1 KiB constant ring: fits the constant cache
constexpr int kLocalWords = 256;                // 1 KiB per-thread local array

// ---------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------

// Slot at cycle position k holds the absolute address of the slot at position k+1.
__global__ void build_ring_kernel(char* base, RingLayout lay) {
  for (std::uint64_t k = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; k < lay.slots;
       k += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t from = ring_slot(lay, k);
    const std::uint64_t to = ring_slot(lay, k + 1 == lay.slots ? 0 : k + 1);
    *reinterpret_cast<std::uint64_t*>(base + ring_offset(lay, from)) =
        reinterpret_cast<std::uint64_t>(base + ring_offset(lay, to));
  }
}

template <bool kCg>
__device__ __forceinline__ std::uint64_t chase_load(std::uint64_t p) {
  std::uint64_t q;
  if constexpr (kCg)
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(q) : "l"(p) : "memory");
  else
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(q) : "l"(p) : "memory");
  return q;
}

// Every slot read once with ld.cg by the whole grid: the ring is in L2 as far as it fits.
__global__ void warm_l2_kernel(const char* base, RingLayout lay, std::uint64_t* sink) {
  std::uint64_t acc = 0;
  for (std::uint64_t s = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; s < lay.slots;
       s += std::uint64_t(gridDim.x) * blockDim.x)
    acc ^= chase_load<true>(reinterpret_cast<std::uint64_t>(base + ring_offset(lay, s)));
  if (acc == 0x9e3779b97f4a7c15ULL) sink[1] = acc;  // data-dependent: keeps the loads
}

struct ChaseArgs {
  const char* base = nullptr;
  RingLayout lay;
  std::uint64_t block_warm_slots =
      0;                          ///< slots [0, n) pre-read by the block with the chase's operator
  std::uint64_t touch_bytes = 0;  ///< [0, n) touched once per 64 KiB: the SM's TLB is warm
  int warm_steps = 0;             ///< dependent hops before the clock starts
  int steps = 0;                  ///< timed hops
  long long* cycles = nullptr;    ///< this launch's cycles for `steps` hops
  std::uint64_t* sink = nullptr;
};

// One block on one SM: the block warms the TLB (and L1 for small rings), then
// thread 0 follows the ring; clock64() brackets a chain of `steps` dependent loads.
template <bool kCg>
__global__ void __launch_bounds__(kChaseBlock) chase_global_kernel(ChaseArgs a) {
  std::uint64_t acc = 0;
  for (std::uint64_t off = threadIdx.x * kPageTouch; off < a.touch_bytes;
       off += kChaseBlock * kPageTouch)
    acc ^= chase_load<true>(reinterpret_cast<std::uint64_t>(a.base + off));
  for (std::uint64_t s = threadIdx.x; s < a.block_warm_slots; s += kChaseBlock)
    acc ^= chase_load<kCg>(reinterpret_cast<std::uint64_t>(a.base + ring_offset(a.lay, s)));
  if (acc == 0x9e3779b97f4a7c15ULL) a.sink[1] = acc;
  __syncthreads();
  if (threadIdx.x != 0) return;

  std::uint64_t p =
      reinterpret_cast<std::uint64_t>(a.base + ring_offset(a.lay, ring_slot(a.lay, 0)));
  for (int i = 0; i < a.warm_steps; ++i) p = chase_load<kCg>(p);
  const long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < a.steps; ++i) p = chase_load<kCg>(p);
  const long long t1 = clock64();
  a.cycles[0] = t1 - t0;
  a.sink[0] = p;
}

// The ring in dynamic shared memory; slots hold 32-bit shared-window addresses, so
// each hop is one LDS whose address is the previous LDS's result.
__global__ void __launch_bounds__(256)
    chase_shared_kernel(RingLayout lay, int warm_steps, int steps, long long* cycles,
                        std::uint64_t* sink) {
  extern __shared__ __align__(16) unsigned char smem[];
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  for (std::uint64_t k = threadIdx.x; k < lay.slots; k += blockDim.x) {
    const std::uint64_t from = ring_slot(lay, k),
                        to = ring_slot(lay, k + 1 == lay.slots ? 0 : k + 1);
    *reinterpret_cast<std::uint32_t*>(smem + ring_offset(lay, from)) =
        base + static_cast<std::uint32_t>(ring_offset(lay, to));
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  std::uint32_t p = base + static_cast<std::uint32_t>(ring_offset(lay, ring_slot(lay, 0)));
  for (int i = 0; i < warm_steps; ++i)
    asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
  const long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
  const long long t1 = clock64();
  cycles[0] = t1 - t0;
  sink[0] = p;
}

// Ring of byte offsets in constant memory; the next offset is the value just loaded,
// so each hop is an indexed constant load (LDC with a register address).
__constant__ std::uint32_t c_ring[kConstWords];

__global__ void chase_constant_kernel(int warm_steps, int steps, long long* cycles,
                                      std::uint64_t* sink) {
  const char* ring = reinterpret_cast<const char*>(c_ring);
  std::uint32_t off = 0;
  for (int i = 0; i < warm_steps; ++i) off = *reinterpret_cast<const std::uint32_t*>(ring + off);
  const long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; ++i) off = *reinterpret_cast<const std::uint32_t*>(ring + off);
  const long long t1 = clock64();
  cycles[0] = t1 - t0;
  sink[0] = off;
}

// A per-thread array indexed with run-time values: the compiler must give it a stack
// frame in local memory (checked at run time with cudaFuncGetAttributes).
__global__ void chase_local_kernel(const std::uint32_t* ring, int warm_steps, int steps,
                                   long long* cycles, std::uint64_t* sink) {
  std::uint32_t lm[kLocalWords];
  for (int i = 0; i < kLocalWords; ++i) lm[i] = ring[i];
  const char* bytes = reinterpret_cast<const char*>(lm);
  std::uint32_t off = 0;
  for (int i = 0; i < warm_steps; ++i) off = *reinterpret_cast<const std::uint32_t*>(bytes + off);
  const long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; ++i) off = *reinterpret_cast<const std::uint32_t*>(bytes + off);
  const long long t1 = clock64();
  cycles[0] = t1 - t0;
  sink[0] = off;
}

// ---------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------

void build_ring(char* base, const RingLayout& lay, const Context& ctx) {
  check_layout(lay);
  const std::uint64_t blocks = std::min<std::uint64_t>(
      (lay.slots + 255) / 256, static_cast<std::uint64_t>(ctx.device.sm_count) * 16);
  build_ring_kernel<<<static_cast<unsigned>(blocks), 256>>>(base, lay);
  MEMHIER_CHECK_LAUNCH();
  MEMHIER_CUDA(cudaDeviceSynchronize());
}

// Follows a small device-built ring on the host: it must visit every slot once and close.
void verify_ring(const char* base, const RingLayout& lay) {
  const std::uint64_t bytes = lay.slots * lay.stride;
  std::vector<char> host(bytes);
  MEMHIER_CUDA(cudaMemcpy(host.data(), base, bytes, cudaMemcpyDeviceToHost));
  const std::uint64_t start = ring_offset(lay, ring_slot(lay, 0));
  std::uint64_t off = start;
  for (std::uint64_t k = 1; k <= lay.slots; ++k) {
    std::uint64_t next = 0;
    std::memcpy(&next, host.data() + off, sizeof next);
    off = next - reinterpret_cast<std::uint64_t>(base);
    const bool closes = off == start;
    if (off > bytes - sizeof next || closes != (k == lay.slots))
      throw std::logic_error("latency: device-built ring is not one cycle over every slot");
  }
}

/// Runs `launch` (which writes one cycle count per call) warmup+reps times through the
/// timing harness and returns the median cycles per hop of the timed repetitions.
double chase_cycles(const std::string& name, int steps, int warmup, int reps, bool flush_l2,
                    const std::function<void(cudaStream_t, long long*)>& launch) {
  const int total = warmup + reps;
  core::DeviceBuffer<long long> out(static_cast<std::size_t>(total));
  out.poison();
  int calls = 0;
  core::time_it(
      [&](cudaStream_t s) {
        launch(s, out.data() + std::min(calls, total - 1));
        ++calls;
      },
      core::TimingOptions{name, warmup, reps, reps, 0.0, flush_l2, nullptr});
  MEMHIER_CUDA(cudaDeviceSynchronize());
  const std::vector<long long> host = out.download();
  std::vector<double> per_hop;
  for (int i = warmup; i < std::min(calls, total); ++i)
    if (host[i] > 0) per_hop.push_back(static_cast<double>(host[i]) / steps);
  return median(per_hop);
}

struct GlobalChasePlan {
  bool cg = true;
  bool warm_l2 = true;                 ///< full-grid ld.cg pass over every slot first
  std::uint64_t block_warm_bytes = 0;  ///< ring bytes the chase block pre-reads (L1)
  bool touch_pages = true;
  int warm_steps = 0;
  int steps = 0;
  int warmup = 0, reps = 3;
  bool flush_l2 = false;
};

double chase_global(const std::string& name, const char* base, const RingLayout& lay,
                    const GlobalChasePlan& plan, std::uint64_t* sink, const Context& ctx) {
  const std::uint64_t ring_bytes = lay.slots * lay.stride;
  ChaseArgs a;
  a.base = base;
  a.lay = lay;
  a.block_warm_slots = plan.block_warm_bytes >= ring_bytes ? lay.slots : 0;
  a.touch_bytes = plan.touch_pages ? ring_bytes : 0;
  a.warm_steps = plan.warm_steps;
  a.steps = plan.steps;
  a.sink = sink;
  const unsigned warm_blocks = static_cast<unsigned>(std::min<std::uint64_t>(
      (lay.slots + 255) / 256, static_cast<std::uint64_t>(ctx.device.sm_count) * 8));
  return chase_cycles(name, plan.steps, plan.warmup, plan.reps, plan.flush_l2,
                      [&](cudaStream_t s, long long* cycles) {
                        if (plan.warm_l2) {
                          warm_l2_kernel<<<warm_blocks, 256, 0, s>>>(base, lay, sink);
                          MEMHIER_CHECK_LAUNCH();
                        }
                        ChaseArgs args = a;
                        args.cycles = cycles;
                        if (plan.cg)
                          chase_global_kernel<true><<<1, kChaseBlock, 0, s>>>(args);
                        else
                          chase_global_kernel<false><<<1, kChaseBlock, 0, s>>>(args);
                        MEMHIER_CHECK_LAUNCH();
                      });
}

// ---------------------------------------------------------------------------------
// Probe "latency": one figure per tier
// ---------------------------------------------------------------------------------

// What every tier's chase shares: hops and launches, a sink, the device.
struct TierRun {
  int steps = 0, reps = 0;
  core::DeviceBuffer<std::uint64_t> sink{2};
};

// Shared memory: 16 KiB ring, 128-byte spacing, one pass of warm-up.
TierLatency chase_shared_tier(TierRun& run, Context& ctx) {
  ctx.progress("latency: shared memory");
  const RingLayout lay = make_layout(128, kLine, 1, 11);
  check_layout(lay);
  const std::size_t smem = lay.slots * lay.stride;
  const double c = chase_cycles(
      "latency-shared", run.steps, 1, run.reps, false, [&](cudaStream_t s, long long* out) {
        chase_shared_kernel<<<1, 256, smem, s>>>(lay, static_cast<int>(lay.slots), run.steps, out,
                                                 run.sink.data());
        MEMHIER_CHECK_LAUNCH();
      });
  return {"shared", "ld.shared.u32 chase, 16 KiB ring in dynamic shared memory, 128 B spacing", c,
          fmt(ctx.device.smem_per_sm / 1024.0) + " KiB/SM",
          static_cast<double>(ctx.device.smem_per_sm)};
}

// L1: 16 KiB ring, ld.ca, warmed by the block and one full pass.
TierLatency chase_l1_tier(TierRun& run, char* buf, Context& ctx) {
  ctx.progress("latency: L1");
  const RingLayout lay = make_layout(16 * KiB / kLine, kLine, 1, 12);
  build_ring(buf, lay, ctx);
  verify_ring(buf, lay);
  GlobalChasePlan plan;
  plan.cg = false;
  plan.block_warm_bytes = 16 * KiB;
  plan.warm_steps = static_cast<int>(lay.slots);
  plan.steps = run.steps;
  plan.warmup = 1;
  plan.reps = run.reps;
  const double c = chase_global("latency-l1", buf, lay, plan, run.sink.data(), ctx);
  return {"L1", "ld.global.ca.u64 chase, 16 KiB ring, 128 B spacing, warmed", c, ""};
}

// L2: a few MiB (below L2), ld.cg so L1 is bypassed.
TierLatency chase_l2_tier(TierRun& run, char* buf, std::uint64_t l2_ring, std::uint64_t l2,
                          Context& ctx) {
  ctx.progress("latency: L2");
  const RingLayout lay = make_layout(l2_ring / kLine, kLine, 1, 13);
  build_ring(buf, lay, ctx);
  if (l2_ring <= 8 * MiB) verify_ring(buf, lay);
  GlobalChasePlan plan;
  plan.cg = true;
  plan.warm_steps = static_cast<int>(std::min<std::uint64_t>(lay.slots, 1024));
  plan.steps = run.steps;
  plan.warmup = 1;
  plan.reps = run.reps;
  const double c = chase_global("latency-l2", buf, lay, plan, run.sink.data(), ctx);
  return {"L2",
          "ld.global.cg.u64 chase, " + fmt_bytes(static_cast<double>(l2_ring)) + " ring (L2 is " +
              fmt_bytes(static_cast<double>(l2)) + "), 128 B spacing, warmed",
          c, fmt_bytes(static_cast<double>(l2)), static_cast<double>(l2)};
}

// HBM: ring far above L2, L2 flushed before each repetition, no L2 warm; the TLB is
// warmed by touching every 64 KiB. Page-friendly: 512 hops inside one 2 MiB page
// before moving on; TLB-missing: every hop to a random page. Not measured (NaN) unless
// `hbm_ok`.
void chase_hbm_tiers(TierRun& run, char* buf, std::uint64_t hbm_bytes, bool hbm_ok,
                     LatencyResult& m, Context& ctx) {
  ctx.progress("latency: HBM");
  double hbm_page = NAN, hbm_tlb = NAN;
  const std::uint64_t hbm_stride = 4 * KiB;
  if (hbm_ok) {
    GlobalChasePlan plan;
    plan.cg = true;
    plan.warm_l2 = false;
    plan.warm_steps = 64;
    plan.steps = run.steps;
    plan.warmup = 0;
    plan.reps = run.reps;
    plan.flush_l2 = true;
    const RingLayout friendly =
        make_layout(hbm_bytes / hbm_stride, hbm_stride, kBigPage / hbm_stride, 14);
    build_ring(buf, friendly, ctx);
    hbm_page = chase_global("latency-hbm-page", buf, friendly, plan, run.sink.data(), ctx);
    const RingLayout missing = make_layout(hbm_bytes / hbm_stride, hbm_stride, 1, 15);
    build_ring(buf, missing, ctx);
    hbm_tlb = chase_global("latency-hbm-tlb", buf, missing, plan, run.sink.data(), ctx);
  }
  const std::string hbm_desc =
      fmt_bytes(static_cast<double>(hbm_bytes)) + " ring, 4 KiB spacing, L2 flushed";
  m.tiers.push_back(
      {"HBM", "ld.global.cg.u64 chase, " + hbm_desc + ", page-friendly (512 hops per 2 MiB page)",
       hbm_page, fmt(static_cast<double>(ctx.device.global_mem_bytes) / GiB, 0) + " GiB",
       static_cast<double>(ctx.device.global_mem_bytes)});
  m.tiers.push_back({"HBM (TLB-missing)",
                     "ld.global.cg.u64 chase, " + hbm_desc + ", a random page on every hop",
                     hbm_tlb, ""});
}

// Constant: 1 KiB ring (16 slots, 64 B apart) in a __constant__ array.
TierLatency chase_constant_tier(TierRun& run, Context& ctx) {
  ctx.progress("latency: constant");
  const std::vector<std::uint32_t> ring = make_ring(kConstWords * 4 / 64, 64, 16);
  MEMHIER_CUDA(cudaMemcpyToSymbol(c_ring, ring.data(), ring.size() * sizeof(std::uint32_t)));
  const double c = chase_cycles(
      "latency-constant", run.steps, 1, run.reps, false, [&](cudaStream_t s, long long* out) {
        chase_constant_kernel<<<1, 1, 0, s>>>(16, run.steps, out, run.sink.data());
        MEMHIER_CHECK_LAUNCH();
      });
  return {"constant", "indexed ld.const chase, 1 KiB ring in a __constant__ array, 64 B spacing", c,
          "64 KiB", 65536.0};
}

// Local: a 1 KiB per-thread array chased with run-time offsets (lives in L1 once warm).
TierLatency chase_local_tier(TierRun& run, LatencyResult& m, Context& ctx) {
  ctx.progress("latency: local");
  cudaFuncAttributes attr{};
  MEMHIER_CUDA(cudaFuncGetAttributes(&attr, chase_local_kernel));
  double c = NAN;
  if (attr.localSizeBytes >= kLocalWords * sizeof(std::uint32_t)) {
    const std::vector<std::uint32_t> ring = make_ring(kLocalWords * 4 / 64, 64, 17);
    core::DeviceBuffer<std::uint32_t> dring(ring.size());
    dring.upload(ring);
    c = chase_cycles(
        "latency-local", run.steps, 1, run.reps, false, [&](cudaStream_t s, long long* out) {
          chase_local_kernel<<<1, 1, 0, s>>>(dring.data(), 16, run.steps, out, run.sink.data());
          MEMHIER_CHECK_LAUNCH();
        });
  } else {
    m.notes.push_back(
        "local: the compiler kept the chased array out of local memory (stack frame " +
        std::to_string(attr.localSizeBytes) + " B), so there is no local figure.");
  }
  return {"local",
          "ld.local chase, 1 KiB per-thread array with run-time offsets (stack frame " +
              std::to_string(attr.localSizeBytes) + " B)",
          c, "per thread, in device memory"};
}

Result run_latency_tiers(Context& ctx) {
  return present_latency(measure_latency(ctx));
}

// ---------------------------------------------------------------------------------
// Probe "latency-working-set": latency against ring size, ld.ca and ld.cg
// ---------------------------------------------------------------------------------
std::vector<std::uint64_t> sweep_sizes(const Context& ctx, std::uint64_t cap) {
  std::vector<std::uint64_t> s;
  const std::uint64_t top = ctx.quick ? 256 * MiB : 4 * GiB;
  for (std::uint64_t b = KiB; b <= top; b *= 2) {
    if (ctx.quick && b < 64 * KiB && b != KiB && b != 4 * KiB && b != 16 * KiB) continue;
    if (ctx.quick && b > MiB && b < 16 * MiB && b != 4 * MiB) continue;
    s.push_back(b);
  }
  const double l2 = std::max(ctx.device.l2_bytes, 1 << 20);
  for (double f : {0.75, 1.25, 1.5})
    s.push_back(static_cast<std::uint64_t>(l2 * f) / (64 * KiB) * (64 * KiB));
  if (!ctx.quick) s.push_back(static_cast<std::uint64_t>(l2 * 0.875) / (64 * KiB) * (64 * KiB));
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  s.erase(std::remove_if(s.begin(), s.end(),
                         [&](std::uint64_t b) { return b > cap || b > top || b < KiB; }),
          s.end());
  return s;
}

Result run_latency_working_set(Context& ctx) {
  return present_latency_working_set(measure_latency_working_set(ctx));
}

}  // namespace

LatencyResult measure_latency(Context& ctx) {
  LatencyResult m;
  m.steps = ctx.quick ? 1024 : 4096;
  m.reps = ctx.smallest ? 1 : ctx.quick ? 3 : 5;
  m.sm_clock_mhz = ctx.sm_clock_mhz;
  TierRun run;
  run.steps = m.steps;
  run.reps = m.reps;
  m.tiers.push_back(chase_shared_tier(run, ctx));

  // Global rings share one buffer: the largest is the HBM ring.
  const std::size_t free_b = free_device_bytes();
  const std::uint64_t l2 = static_cast<std::uint64_t>(std::max(ctx.device.l2_bytes, 1 << 20));
  const std::uint64_t l2_ring =
      std::max<std::uint64_t>(64 * KiB, std::min<std::uint64_t>(4 * MiB, l2 / 4) / kLine * kLine);
  // At least 8x the L2, so a card with a large L2 still gets a ring L2 cannot hold.
  std::uint64_t hbm_bytes = std::max<std::uint64_t>(ctx.quick ? 256 * MiB : 1 * GiB, 8 * l2);
  hbm_bytes = std::min<std::uint64_t>(hbm_bytes, free_b / 2) / kBigPage * kBigPage;
  const bool hbm_ok = hbm_bytes >= 4 * l2 && hbm_bytes >= 8 * kBigPage;
  core::DeviceBuffer<char> buf(std::max<std::uint64_t>(hbm_ok ? hbm_bytes : 0, l2_ring));
  // The TLB-warming loads read between ring slots: defined bytes there (initcheck clean).
  MEMHIER_CUDA(cudaMemset(buf.data(), 0, buf.bytes()));

  m.tiers.push_back(chase_l1_tier(run, buf.data(), ctx));
  m.tiers.push_back(chase_l2_tier(run, buf.data(), l2_ring, l2, ctx));
  if (!hbm_ok)
    m.notes.push_back("HBM: not enough free device memory for a ring of at least 4x the L2 size (" +
                      fmt_bytes(static_cast<double>(free_b)) + " free).");
  chase_hbm_tiers(run, buf.data(), hbm_bytes, hbm_ok, m, ctx);
  m.tiers.push_back(chase_constant_tier(run, ctx));
  m.tiers.push_back(chase_local_tier(run, m, ctx));
  return m;
}

WorkingSetResult measure_latency_working_set(Context& ctx) {
  const int pass_cap = ctx.quick ? 1024 : 4096;
  WorkingSetResult m;
  m.steps = ctx.quick ? 512 : 2048;
  m.reps = ctx.smallest ? 1 : ctx.quick ? 2 : 3;
  m.sm_clock_mhz = ctx.sm_clock_mhz;
  m.l2_bytes = static_cast<std::uint64_t>(std::max(ctx.device.l2_bytes, 1 << 20));
  m.sweep_top_bytes = ctx.quick ? 256 * MiB : 4 * GiB;

  const std::vector<std::uint64_t> sizes = sweep_sizes(ctx, free_device_bytes() / 2);
  if (sizes.empty()) throw std::runtime_error("latency-working-set: no device memory for any ring");
  core::DeviceBuffer<char> buf(sizes.back());
  MEMHIER_CUDA(cudaMemset(buf.data(), 0, buf.bytes()));  // as in measure_latency
  core::DeviceBuffer<std::uint64_t> sink(2);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::uint64_t w = sizes[i];
    ctx.progress("latency-working-set: " + fmt_bytes(static_cast<double>(w)));
    const RingLayout lay = make_layout(w / kLine, kLine, 1, 100 + static_cast<std::uint32_t>(i));
    build_ring(buf.data(), lay, ctx);
    GlobalChasePlan plan;
    plan.block_warm_bytes = 2 * MiB;
    plan.warm_steps =
        static_cast<int>(std::min<std::uint64_t>(lay.slots, static_cast<std::uint64_t>(pass_cap)));
    plan.steps = m.steps;
    plan.warmup = 0;
    plan.reps = m.reps;
    plan.cg = false;
    const double a = chase_global("latency-ws-ca", buf.data(), lay, plan, sink.data(), ctx);
    plan.cg = true;
    const double b = chase_global("latency-ws-cg", buf.data(), lay, plan, sink.data(), ctx);
    m.points.push_back({w, a, b});
  }
  m.knees = find_latency_knees(m.points, m.l2_bytes);
  return m;
}

std::vector<registry::Entry> latency_probes() {
  std::vector<registry::Entry> v;
  registry::Entry tiers;
  tiers.kind = "probe";
  tiers.family = "latency";
  tiers.name = "latency";
  tiers.technique =
      "one-thread pointer chase over a random ring per tier (shared, L1 via ld.ca, L2 via ld.cg, "
      "HBM, constant, local), timed with clock64()";
  tiers.claim = {"001 §GPU Memory Hierarchy Comparison; 000 §The Five Memory Spaces",
                 "shared ~20-30 cycles, L1 ~30-40, L2 ~200, HBM 400-600, constant ~40, local ~400"};
  tiers.run_probe = run_latency_tiers;
  v.push_back(std::move(tiers));

  registry::Entry ws;
  ws.kind = "probe";
  ws.family = "latency";
  ws.name = "latency-working-set";
  ws.technique =
      "pointer-chase latency against ring size (1 KiB to 4 GiB), ld.ca and ld.cg, knees found";
  ws.claim = {"001 §L1 Cache; §L2 Cache",
              "latency steps up where the working set outgrows L1 (128-256 KB) and "
              "L2 (50 MB on H100)"};
  ws.run_probe = run_latency_working_set;
  v.push_back(std::move(ws));
  return v;
}

}  // namespace memhier::probe
