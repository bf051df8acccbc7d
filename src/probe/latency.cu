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

#include "common.cuh"
#include "families.hpp"
#include "memhier/core/hash.cuh"

namespace memhier::probe {
namespace {

constexpr std::uint64_t kLine = 128;            // L1/L2 line: one slot per line in the sweep
constexpr std::uint64_t kPageTouch = 64 << 10;  // TLB warm: one load per 64 KiB (<= any GPU page)
constexpr std::uint64_t kBigPage = 2 << 20;     // cudaMalloc's large page on current GPUs
constexpr int kChaseBlock = 1024;               // threads that warm; thread 0 chases
constexpr int kConstWords = 256;                // 1 KiB constant ring: fits the constant cache
constexpr int kLocalWords = 256;                // 1 KiB per-thread local array

// ---------------------------------------------------------------------------------
// The ring: a random cyclic order over `slots` slots, computed by a bijective hash
// (4-round Feistel network with cycle walking), so a GB-sized ring is built on the
// device in parallel with no permutation table. Shared by the kernels and the host.
// ---------------------------------------------------------------------------------
struct RingLayout {
  std::uint64_t slots = 0;   ///< slots in the ring (a multiple of group)
  std::uint64_t stride = 0;  ///< bytes from one slot's region to the next
  std::uint64_t group = 1;   ///< hops that stay inside one group of adjacent slots (page-friendly)
  std::uint32_t outer_bits = 1, inner_bits = 1;  ///< Feistel half widths over groups / in a group
  std::uint32_t outer_key = 0, inner_key = 0;
  std::uint32_t jitter_lines = 1;  ///< a slot sits at a random 128-byte line of its region
};

// A bijection on [0, 4^half_bits): balanced Feistel rounds are invertible by construction.
__host__ __device__ inline std::uint64_t ring_feistel(std::uint64_t x, std::uint32_t half_bits,
                                                      std::uint32_t key) {
  const std::uint64_t mask = (std::uint64_t{1} << half_bits) - 1;
  std::uint64_t l = x >> half_bits, r = x & mask;
  for (std::uint32_t round = 0; round < 4; ++round) {
    const std::uint64_t f =
        core::hash32(static_cast<std::uint32_t>(r) ^ (key + round * 0x9e3779b9U)) & mask;
    const std::uint64_t next_l = r;
    r = l ^ f;
    l = next_l;
  }
  return (l << half_bits) | r;
}

// A bijection on [0, n): walk the Feistel cycle until it lands below n (at most ~4 steps).
__host__ __device__ inline std::uint64_t ring_perm(std::uint64_t k, std::uint64_t n,
                                                   std::uint32_t half_bits, std::uint32_t key) {
  std::uint64_t x = k;
  do x = ring_feistel(x, half_bits, key);
  while (x >= n);
  return x;
}

/// The slot visited at position k of the cycle.
__host__ __device__ inline std::uint64_t ring_slot(const RingLayout& lay, std::uint64_t k) {
  if (lay.group <= 1) return ring_perm(k, lay.slots, lay.outer_bits, lay.outer_key);
  const std::uint64_t groups = lay.slots / lay.group;
  return ring_perm(k / lay.group, groups, lay.outer_bits, lay.outer_key) * lay.group +
         ring_perm(k % lay.group, lay.group, lay.inner_bits, lay.inner_key);
}

/// Byte offset of a slot from the ring's base.
__host__ __device__ inline std::uint64_t ring_offset(const RingLayout& lay, std::uint64_t slot) {
  std::uint64_t off = slot * lay.stride;
  if (lay.jitter_lines > 1)
    off += (core::hash32(static_cast<std::uint32_t>(slot ^ (slot >> 32)) ^ lay.inner_key) %
            lay.jitter_lines) *
           kLine;
  return off;
}

std::uint32_t half_bits_for(std::uint64_t n) {
  std::uint32_t h = 1;
  while ((std::uint64_t{1} << (2 * h)) < n) ++h;
  return h;
}

RingLayout make_layout(std::uint64_t slots, std::uint64_t stride, std::uint64_t group,
                       std::uint32_t seed) {
  if (slots < 2 || stride < 8 || stride % 8 != 0 || group < 1 || slots % group != 0)
    throw std::invalid_argument("latency: bad ring layout (" + std::to_string(slots) +
                                " slots, stride " + std::to_string(stride) + ", group " +
                                std::to_string(group) + ")");
  RingLayout lay;
  lay.slots = slots;
  lay.stride = stride;
  lay.group = group;
  lay.outer_bits = half_bits_for(slots / group);
  lay.inner_bits = half_bits_for(group);
  lay.outer_key = core::hash32(seed * 2654435761U + 1);
  lay.inner_key = core::hash32(seed ^ 0x5bd1e995U);
  lay.jitter_lines = stride >= 2 * kLine ? static_cast<std::uint32_t>(stride / kLine) : 1;
  return lay;
}

// Host check of the order function: every slot exactly once per cycle.
void check_layout(const RingLayout& lay) {
  if (lay.slots > (std::uint64_t{1} << 20)) return;  // checked on the small rings; same code path
  std::vector<char> seen(lay.slots, 0);
  for (std::uint64_t k = 0; k < lay.slots; ++k) {
    const std::uint64_t s = ring_slot(lay, k);
    if (s >= lay.slots || seen[s])
      throw std::logic_error("latency: ring order is not a permutation");
    seen[s] = 1;
  }
}

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

std::string fmt_bytes(double b) {
  if (!std::isfinite(b)) return "n/a";
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (b >= 1024.0 && u < 3) {
    b /= 1024.0;
    ++u;
  }
  return fmt(b, b == std::floor(b) ? 0 : 1) + " " + units[u];
}

double to_ns(const Context& ctx, double cycles) {
  return ctx.sm_clock_mhz > 0 && std::isfinite(cycles) ? ctx.cycles_to_ns(cycles) : NAN;
}

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
// Claims: a figure reproduces a claimed range when it lies within [0.5 lo, 1.5 hi].
// ---------------------------------------------------------------------------------
struct LatencyClaim {
  const char* tier;
  claims::Id id;  // text and source in the claims catalogue
  double lo, hi;
};

const LatencyClaim kClaims[] = {
    {"shared", "latency-shared-20-30-cycles"_claim, 20, 30},
    {"shared", "latency-shared-32-cycles"_claim, 32, 32},
    {"L1", "latency-l1-30-40-cycles"_claim, 30, 40},
    {"L1", "latency-l1-40-cycles"_claim, 40, 40},
    {"L1", "latency-l1-33-cycles-published"_claim, 33, 33},
    {"L2", "latency-l2-200-cycles"_claim, 200, 200},
    {"L2", "latency-l2-265-530-cycles-published"_claim, 265, 530},
    {"HBM", "latency-hbm-400-600-cycles"_claim, 400, 600},
    {"HBM", "latency-hbm-400-cycles"_claim, 400, 400},
    {"HBM", "latency-hbm-650-690-cycles-published"_claim, 650, 690},
    {"constant", "latency-constant-40-cycles"_claim, 40, 40},
    {"local", "latency-local-400-cycles"_claim, 400, 400},
    {"local", "latency-spill-400-600-cycles"_claim, 400, 600},
};

constexpr const char* kNoFigure = "no figure on this card (see notes)";

// ---------------------------------------------------------------------------------
// Probe "latency": one figure per tier
// ---------------------------------------------------------------------------------
Result run_latency_tiers(Context& ctx) {
  const bool quick = ctx.quick;
  const int steps = quick ? 1024 : 4096;
  const int reps = quick ? 3 : 5;
  core::DeviceBuffer<std::uint64_t> sink(2);

  struct Row {
    std::string tier, method;
    double cycles = NAN;
    std::string size;
  };
  std::vector<Row> rows;
  std::vector<std::string> notes;

  // Shared memory: 16 KiB ring, 128-byte spacing, one pass of warm-up.
  ctx.progress("latency: shared memory");
  {
    const RingLayout lay = make_layout(128, kLine, 1, 11);
    check_layout(lay);
    const std::size_t smem = lay.slots * lay.stride;
    const double c =
        chase_cycles("latency-shared", steps, 1, reps, false, [&](cudaStream_t s, long long* out) {
          chase_shared_kernel<<<1, 256, smem, s>>>(lay, static_cast<int>(lay.slots), steps, out,
                                                   sink.data());
          MEMHIER_CHECK_LAUNCH();
        });
    rows.push_back({"shared",
                    "ld.shared.u32 chase, 16 KiB ring in dynamic shared memory, 128 B spacing", c,
                    fmt(ctx.device.smem_per_sm / 1024.0) + " KiB/SM"});
  }

  // Global rings share one buffer: the largest is the HBM ring.
  const std::size_t free_b = free_device_bytes();
  const std::uint64_t l2 = static_cast<std::uint64_t>(std::max(ctx.device.l2_bytes, 1 << 20));
  const std::uint64_t l2_ring =
      std::max<std::uint64_t>(64 * KiB, std::min<std::uint64_t>(4 * MiB, l2 / 4) / kLine * kLine);
  // At least 8x the L2, so a card with a large L2 still gets a ring L2 cannot hold.
  std::uint64_t hbm_bytes = std::max<std::uint64_t>(quick ? 256 * MiB : 1 * GiB, 8 * l2);
  hbm_bytes = std::min<std::uint64_t>(hbm_bytes, free_b / 2) / kBigPage * kBigPage;
  const bool hbm_ok = hbm_bytes >= 4 * l2 && hbm_bytes >= 8 * kBigPage;
  core::DeviceBuffer<char> buf(std::max<std::uint64_t>(hbm_ok ? hbm_bytes : 0, l2_ring));

  // L1: 16 KiB ring, ld.ca, warmed by the block and one full pass.
  ctx.progress("latency: L1");
  {
    const RingLayout lay = make_layout(16 * KiB / kLine, kLine, 1, 12);
    build_ring(buf.data(), lay, ctx);
    verify_ring(buf.data(), lay);
    GlobalChasePlan plan;
    plan.cg = false;
    plan.block_warm_bytes = 16 * KiB;
    plan.warm_steps = static_cast<int>(lay.slots);
    plan.steps = steps;
    plan.warmup = 1;
    plan.reps = reps;
    const double c = chase_global("latency-l1", buf.data(), lay, plan, sink.data(), ctx);
    rows.push_back({"L1", "ld.global.ca.u64 chase, 16 KiB ring, 128 B spacing, warmed", c, ""});
  }

  // L2: a few MiB (below L2), ld.cg so L1 is bypassed.
  ctx.progress("latency: L2");
  {
    const RingLayout lay = make_layout(l2_ring / kLine, kLine, 1, 13);
    build_ring(buf.data(), lay, ctx);
    if (l2_ring <= 8 * MiB) verify_ring(buf.data(), lay);
    GlobalChasePlan plan;
    plan.cg = true;
    plan.warm_steps = static_cast<int>(std::min<std::uint64_t>(lay.slots, 1024));
    plan.steps = steps;
    plan.warmup = 1;
    plan.reps = reps;
    const double c = chase_global("latency-l2", buf.data(), lay, plan, sink.data(), ctx);
    rows.push_back({"L2",
                    "ld.global.cg.u64 chase, " + fmt_bytes(static_cast<double>(l2_ring)) +
                        " ring (L2 is " + fmt_bytes(static_cast<double>(l2)) +
                        "), 128 B spacing, warmed",
                    c, fmt_bytes(static_cast<double>(l2))});
  }

  // HBM: ring far above L2, L2 flushed before each repetition, no L2 warm; the TLB is
  // warmed by touching every 64 KiB. Page-friendly: 512 hops inside one 2 MiB page
  // before moving on; TLB-missing: every hop to a random page.
  ctx.progress("latency: HBM");
  double hbm_page = NAN, hbm_tlb = NAN;
  const std::uint64_t hbm_stride = 4 * KiB;
  if (hbm_ok) {
    GlobalChasePlan plan;
    plan.cg = true;
    plan.warm_l2 = false;
    plan.warm_steps = 64;
    plan.steps = steps;
    plan.warmup = 0;
    plan.reps = reps;
    plan.flush_l2 = true;
    const RingLayout friendly =
        make_layout(hbm_bytes / hbm_stride, hbm_stride, kBigPage / hbm_stride, 14);
    build_ring(buf.data(), friendly, ctx);
    hbm_page = chase_global("latency-hbm-page", buf.data(), friendly, plan, sink.data(), ctx);
    const RingLayout missing = make_layout(hbm_bytes / hbm_stride, hbm_stride, 1, 15);
    build_ring(buf.data(), missing, ctx);
    hbm_tlb = chase_global("latency-hbm-tlb", buf.data(), missing, plan, sink.data(), ctx);
  } else {
    notes.push_back("HBM: not enough free device memory for a ring of at least 4x the L2 size (" +
                    fmt_bytes(static_cast<double>(free_b)) + " free).");
  }
  const std::string hbm_desc =
      fmt_bytes(static_cast<double>(hbm_bytes)) + " ring, 4 KiB spacing, L2 flushed";
  rows.push_back(
      {"HBM", "ld.global.cg.u64 chase, " + hbm_desc + ", page-friendly (512 hops per 2 MiB page)",
       hbm_page, fmt(static_cast<double>(ctx.device.global_mem_bytes) / GiB, 0) + " GiB"});
  rows.push_back({"HBM (TLB-missing)",
                  "ld.global.cg.u64 chase, " + hbm_desc + ", a random page on every hop", hbm_tlb,
                  ""});

  // Constant: 1 KiB ring (16 slots, 64 B apart) in a __constant__ array.
  ctx.progress("latency: constant");
  {
    const std::vector<std::uint32_t> ring = make_ring(kConstWords * 4 / 64, 64, 16);
    MEMHIER_CUDA(cudaMemcpyToSymbol(c_ring, ring.data(), ring.size() * sizeof(std::uint32_t)));
    const double c = chase_cycles(
        "latency-constant", steps, 1, reps, false, [&](cudaStream_t s, long long* out) {
          chase_constant_kernel<<<1, 1, 0, s>>>(16, steps, out, sink.data());
          MEMHIER_CHECK_LAUNCH();
        });
    rows.push_back({"constant",
                    "indexed ld.const chase, 1 KiB ring in a __constant__ array, 64 B spacing", c,
                    "64 KiB"});
  }

  // Local: a 1 KiB per-thread array chased with run-time offsets (lives in L1 once warm).
  ctx.progress("latency: local");
  {
    cudaFuncAttributes attr{};
    MEMHIER_CUDA(cudaFuncGetAttributes(&attr, chase_local_kernel));
    double c = NAN;
    if (attr.localSizeBytes >= kLocalWords * sizeof(std::uint32_t)) {
      const std::vector<std::uint32_t> ring = make_ring(kLocalWords * 4 / 64, 64, 17);
      core::DeviceBuffer<std::uint32_t> dring(ring.size());
      dring.upload(ring);
      c = chase_cycles("latency-local", steps, 1, reps, false, [&](cudaStream_t s, long long* out) {
        chase_local_kernel<<<1, 1, 0, s>>>(dring.data(), 16, steps, out, sink.data());
        MEMHIER_CHECK_LAUNCH();
      });
    } else {
      notes.push_back(
          "local: the compiler kept the chased array out of local memory (stack frame " +
          std::to_string(attr.localSizeBytes) + " B), so there is no local figure.");
    }
    rows.push_back({"local",
                    "ld.local chase, 1 KiB per-thread array with run-time offsets (stack frame " +
                        std::to_string(attr.localSizeBytes) + " B)",
                    c, "per thread, in device memory"});
  }

  // Tables.
  Result res;
  res.section.id = "latency";
  res.section.title = "Latency per tier (pointer chasing)";
  res.section.paragraphs.push_back(
      "One thread follows a random cyclic ring of pointers, each load's address being the previous "
      "load's "
      "value, so the loads form one dependent chain. clock64() is read inside the kernel around " +
      std::to_string(steps) +
      " hops after a warm-up pass; the figure is cycles per hop (median of " +
      std::to_string(reps) + " launches) and nanoseconds at the measured SM clock of " +
      fmt(ctx.sm_clock_mhz) +
      " MHz. ld.ca keeps L1 in the path, ld.cg bypasses it to isolate L2; the HBM ring is far "
      "larger than L2 "
      "and L2 is flushed before each launch.");
  report::Table t;
  t.id = "latency-tiers";
  t.title = "Load-to-use latency per tier";
  t.columns = {{"tier", "", "tier"},
               {"method", "", "method"},
               {"latency", "cycles", "cycles"},
               {"latency", "ns", "ns"}};
  for (const Row& r : rows)
    t.rows.push_back({report::Value::str(r.tier), report::Value::str(r.method),
                      report::Value::num(r.cycles, 1),
                      report::Value::num(to_ns(ctx, r.cycles), 1)});
  t.notes = notes;
  t.notes.push_back(
      "The HBM row keeps 512 hops inside one 2 MiB page (address translation hits); the "
      "TLB-missing row jumps to a random page every hop, adding the page-table cache miss.");
  t.notes.push_back(
      "The local-memory array is small and warm, so it is served by L1: this is the cost of "
      "local memory that hits, not of a spill that misses both caches.");
  res.section.tables.push_back(std::move(t));

  auto cycles_of = [&](const std::string& tier) {
    for (const Row& r : rows)
      if (r.tier == tier) return r.cycles;
    return double(NAN);
  };
  std::vector<ClaimRow> claims;
  for (const LatencyClaim& c : kClaims) {
    const double m = cycles_of(c.tier);
    claims.push_back(
        {c.id,
         std::string(c.tier) + ": " + fmt(m, 1) + " cycles (" + fmt(to_ns(ctx, m), 1) + " ns)",
         judged(m, Claimed::range(c.lo, c.hi, "cycles"), Tolerance::within_percent(50),
                kNoFigure)});
  }
  {
    // 000: 32 against 400 cycles, "12x faster"; judged as the ratio of this card's two.
    const double x = cycles_of("HBM") / cycles_of("shared");
    claims.push_back(
        {"shared-12x-faster-than-global"_claim,
         "HBM " + fmt(cycles_of("HBM"), 1) + " cycles / shared " + fmt(cycles_of("shared"), 1) +
             " cycles = " + fmt(x, 1) + "x",
         judged(x, Claimed::value(12, "x"), Tolerance::within_percent(50), kNoFigure)});
  }
  res.section.tables.push_back(claims_table("latency", claims));

  for (const Row& r : rows) {
    if (r.tier == "HBM (TLB-missing)") continue;
    TierFigure f;
    f.tier = r.tier;
    f.latency_cycles = r.cycles;
    f.size = r.size;
    res.tiers.push_back(f);
  }
  return res;
}

// ---------------------------------------------------------------------------------
// Probe "latency-working-set": latency against ring size, ld.ca and ld.cg
// ---------------------------------------------------------------------------------
struct Knee {
  std::size_t index = 0;
  double before = NAN, after = NAN;
};

// A point whose latency exceeds the current tier's median by more than 1.4x starts a
// new tier; the transition runs while later points keep rising by more than 10%, and
// its last point is the new tier's first level.
std::vector<Knee> find_knees(const std::vector<double>& y) {
  std::vector<Knee> knees;
  std::size_t tier_start = 0;
  std::size_t i = 1;
  while (i < y.size()) {
    const double ref =
        median(std::vector<double>(y.begin() + static_cast<std::ptrdiff_t>(tier_start),
                                   y.begin() + static_cast<std::ptrdiff_t>(i)));
    if (std::isfinite(y[i]) && std::isfinite(ref) && y[i] > 1.4 * ref) {
      std::size_t j = i;
      while (j + 1 < y.size() && std::isfinite(y[j + 1]) && y[j + 1] > 1.1 * y[j]) ++j;
      knees.push_back({i, ref, y[j]});
      tier_start = j;
      i = j + 1;
    } else {
      ++i;
    }
  }
  return knees;
}

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

const char* knee_class(std::uint64_t bytes, std::uint64_t l2) {
  if (bytes <= MiB) return "L1";
  if (bytes <= 4 * l2) return "L2";
  return "TLB";
}

Result run_latency_working_set(Context& ctx) {
  const bool quick = ctx.quick;
  const int steps = quick ? 512 : 2048;
  const int pass_cap = quick ? 1024 : 4096;
  const int reps = quick ? 2 : 3;
  const std::uint64_t l2 = static_cast<std::uint64_t>(std::max(ctx.device.l2_bytes, 1 << 20));

  std::uint64_t cap = free_device_bytes() / 2;
  const std::vector<std::uint64_t> sizes = sweep_sizes(ctx, cap);
  if (sizes.empty()) throw std::runtime_error("latency-working-set: no device memory for any ring");
  core::DeviceBuffer<char> buf(sizes.back());
  core::DeviceBuffer<std::uint64_t> sink(2);

  std::vector<double> xs, ca, cg;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::uint64_t w = sizes[i];
    ctx.progress("latency-working-set: " + fmt_bytes(static_cast<double>(w)));
    const RingLayout lay = make_layout(w / kLine, kLine, 1, 100 + static_cast<std::uint32_t>(i));
    build_ring(buf.data(), lay, ctx);
    GlobalChasePlan plan;
    plan.block_warm_bytes = 2 * MiB;
    plan.warm_steps =
        static_cast<int>(std::min<std::uint64_t>(lay.slots, static_cast<std::uint64_t>(pass_cap)));
    plan.steps = steps;
    plan.warmup = 0;
    plan.reps = reps;
    plan.cg = false;
    const double a = chase_global("latency-ws-ca", buf.data(), lay, plan, sink.data(), ctx);
    plan.cg = true;
    const double b = chase_global("latency-ws-cg", buf.data(), lay, plan, sink.data(), ctx);
    xs.push_back(static_cast<double>(w));
    ca.push_back(a);
    cg.push_back(b);
  }

  Result res;
  res.section.id = "latency-working-set";
  res.section.title = "Latency against working set";
  res.section.paragraphs.push_back(
      "Pointer chasing by one thread over random rings from " + fmt_bytes(xs.front()) + " to " +
      fmt_bytes(xs.back()) +
      " (one slot per 128-byte line), with ld.ca (through L1) and ld.cg (L2 and beyond). Before "
      "each launch a "
      "full-grid pass reads every slot (the ring sits in L2 as far as it fits), the chase block "
      "touches every "
      "64 KiB (a warm TLB) and, for rings up to 2 MiB, reads every slot itself (a warm L1); then " +
      std::to_string(steps) + " dependent hops are timed with clock64() (median of " +
      std::to_string(reps) + " launches; ns at the measured SM clock of " + fmt(ctx.sm_clock_mhz) +
      " MHz). Latency steps up where the ring outgrows a cache: the knees.");

  report::Table t;
  t.id = "latency-working-set";
  t.title = "Latency against ring size";
  t.columns = {{"working set", "B", "working_set_bytes"},
               {"ld.ca", "cycles", "ca_cycles"},
               {"ld.cg", "cycles", "cg_cycles"},
               {"ld.ca", "ns", "ca_ns"},
               {"ld.cg", "ns", "cg_ns"}};
  for (std::size_t i = 0; i < xs.size(); ++i)
    t.rows.push_back({report::Value::integer(static_cast<std::int64_t>(xs[i])),
                      report::Value::num(ca[i], 1), report::Value::num(cg[i], 1),
                      report::Value::num(to_ns(ctx, ca[i]), 1),
                      report::Value::num(to_ns(ctx, cg[i]), 1)});
  if (sizes.back() < (quick ? 256 * MiB : 4 * GiB))
    t.notes.push_back("The sweep stops at " + fmt_bytes(xs.back()) +
                      ": half the free device memory.");
  res.section.tables.push_back(std::move(t));

  // Knees on both series.
  report::Table k;
  k.id = "latency-knees";
  k.title = "Knees: where latency steps up";
  k.caption =
      "A point more than 1.4x the current tier's median starts a new tier. The class follows the "
      "size: "
      "up to 1 MiB L1, up to 4x the L2 size L2, beyond that the reach of the address-translation "
      "caches.";
  k.columns = {{"knee", "", "knee"},
               {"working set", "B", "working_set_bytes"},
               {"before", "cycles", "before_cycles"},
               {"after", "cycles", "after_cycles"}};
  struct Found {
    std::string label;
    std::uint64_t bytes, prev_bytes;
    double before, after;
  };
  std::vector<Found> found;
  for (int series = 0; series < 2; ++series) {
    const std::vector<double>& y = series == 0 ? ca : cg;
    const char* op = series == 0 ? "ld.ca" : "ld.cg";
    std::vector<std::string> used;
    for (const Knee& kn : find_knees(y)) {
      std::string label = std::string(knee_class(sizes[kn.index], l2)) + " (" + op + ")";
      const auto repeats = std::count(used.begin(), used.end(), label);
      used.push_back(label);
      if (repeats > 0) label += " step " + std::to_string(repeats + 1);
      found.push_back({label, sizes[kn.index], kn.index > 0 ? sizes[kn.index - 1] : sizes[kn.index],
                       kn.before, kn.after});
      k.rows.push_back({report::Value::str(label),
                        report::Value::integer(static_cast<std::int64_t>(sizes[kn.index])),
                        report::Value::num(kn.before, 1), report::Value::num(kn.after, 1)});
    }
  }
  if (k.rows.empty()) k.notes.push_back("No point rose 1.4x above its tier: no knee found.");
  res.section.tables.push_back(std::move(k));

  report::Chart ch;
  ch.id = "latency-working-set-chart";
  ch.title = "Pointer-chase latency against working set";
  ch.kind = report::Chart::Kind::line;
  ch.x_label = "working set";
  ch.x_unit = "B";
  ch.y_label = "latency";
  ch.y_unit = "cycles";
  ch.log_x = true;
  ch.series = {{"ld.ca", xs, ca}, {"ld.cg", xs, cg}};
  res.section.charts.push_back(std::move(ch));

  // Claims: capacities from the knee brackets (the cache ends between the last point
  // below the knee and the knee), latency far beyond L2.
  auto first_knee = [&](const std::string& label) -> const Found* {
    for (const Found& f : found)
      if (f.label == label) return &f;
    return nullptr;
  };
  // The knee lies between two ring sizes; it reproduces a size claim when that step meets
  // the claimed size ±50% (sizes in `unit_bytes`, the claim's own unit).
  auto capacity_row = [&](claims::Id id, const std::string& prefix, const Found* f,
                          const Claimed& claimed, double unit_bytes) {
    if (!f)
      return ClaimRow{id, prefix + "no knee found",
                      claims::judge_interval(NAN, NAN, claimed, Tolerance::within_percent(50),
                                             "the curve shows no step there")
                          .text};
    const std::string measured = prefix + "latency rises between " +
                                 fmt_bytes(static_cast<double>(f->prev_bytes)) + " and " +
                                 fmt_bytes(static_cast<double>(f->bytes)) + " (" + fmt(f->before) +
                                 " -> " + fmt(f->after) + " cycles)";
    return ClaimRow{id, measured,
                    claims::judge_interval(static_cast<double>(f->prev_bytes) / unit_bytes,
                                           static_cast<double>(f->bytes) / unit_bytes, claimed,
                                           Tolerance::within_percent(50))
                        .text};
  };
  std::vector<ClaimRow> claims;
  claims.push_back(capacity_row("l1-size-128-256kb"_claim, "ld.ca knee: ", first_knee("L1 (ld.ca)"),
                                Claimed::range(128, 256, "KiB"), KiB));
  claims.push_back(capacity_row(
      "l2-size-50mb"_claim,
      "ld.cg knee (this card's properties say " + fmt_bytes(static_cast<double>(l2)) + "): ",
      first_knee("L2 (ld.cg)"), Claimed::value(50, "MB"), 1e6));
  {
    const double far = cg.back();
    claims.push_back({"latency-hbm-400-600-cycles"_claim,
                      "ld.cg, largest ring: " + fmt(far, 1) + " cycles at " + fmt_bytes(xs.back()),
                      judged(far, Claimed::range(400, 600, "cycles"), Tolerance::within_percent(50),
                             kNoFigure)});
  }
  res.section.tables.push_back(claims_table("latency-working-set", claims));
  return res;
}

}  // namespace

std::vector<RegistryEntry> latency_probes() {
  std::vector<RegistryEntry> v;
  RegistryEntry tiers;
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

  RegistryEntry ws;
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
