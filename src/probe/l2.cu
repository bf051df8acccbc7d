// L2: read bandwidth with every SM busy against working set (the capacity knee), the same
// sweep with random 32-byte reads, and the persisting access-policy window against
// streaming traffic that evicts. Probes "l2-working-set", "l2-random" and "l2-persisting".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/core/hash.cuh"
#include "memhier/probe/l2.hpp"

namespace memhier::probe {
namespace {

constexpr int kBlock = 256;

// Next index of a thread that strides the buffer cyclically: every thread stays busy
// even when the buffer holds fewer 16-byte vectors than the grid has threads.
__host__ __device__ inline std::uint64_t wrap_add(std::uint64_t i, std::uint64_t step,
                                                  std::uint64_t n) {
  i += step;  // i < n and step < n: no overflow, one subtraction wraps
  return i >= n ? i - n : i;
}

// ld.global.cg: cached in L2 only, so a small working set cannot hide in L1.
__device__ __forceinline__ uint4 load_cg(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

__device__ __forceinline__ std::uint32_t fold(uint4 v) {
  return v.x ^ v.y ^ v.z ^ v.w;
}

// Thread t reads vectors t, t+T, t+2T, ... (mod n), `iters` of them, four in flight;
// the per-thread XOR is written out so no load can be dropped.
__global__ void __launch_bounds__(kBlock)
    l2_read_kernel(const uint4* __restrict__ buf, std::uint64_t n, std::uint64_t step, int iters,
                   std::uint32_t* out) {
  const std::uint64_t tid = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  std::uint64_t i = tid % n;
  std::uint32_t acc = 0;
  int k = 0;
  for (; k + 4 <= iters; k += 4) {
    const std::uint64_t i1 = wrap_add(i, step, n), i2 = wrap_add(i1, step, n),
                        i3 = wrap_add(i2, step, n);
    const uint4 a = load_cg(buf + i), b = load_cg(buf + i1), c = load_cg(buf + i2),
                d = load_cg(buf + i3);
    acc ^= fold(a) ^ fold(b) ^ fold(c) ^ fold(d);
    i = wrap_add(i3, step, n);
  }
  for (; k < iters; ++k) {
    acc ^= fold(load_cg(buf + i));
    i = wrap_add(i, step, n);
  }
  out[tid] = acc;
}

// Random 32-byte reads: lanes 2p and 2p+1 read the two 16-byte halves of one sector, drawn
// at random from the set's `sector_mask` + 1 sectors (a power of two) for each of the pair's
// `iters` reads, four in flight; `seed` changes the draw from launch to launch.
__global__ void __launch_bounds__(kBlock)
    l2_random_kernel(const uint4* __restrict__ buf, std::uint32_t sector_mask, int iters,
                     std::uint32_t seed, std::uint32_t* out) {
  const std::uint64_t tid = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  const std::uint32_t first =
      static_cast<std::uint32_t>(tid >> 1) * static_cast<std::uint32_t>(iters);
  const uint4* half = buf + (tid & 1);
  const std::uint32_t salt = seed * 0x9e3779b9u;
  auto sector = [&](int k) {
    return static_cast<std::uint64_t>(core::hash32((first + static_cast<std::uint32_t>(k)) ^ salt) &
                                      sector_mask);
  };
  std::uint32_t acc = 0;
  for (int k = 0; k < iters; k += 4) {  // iters is a multiple of 4
    const uint4 a = load_cg(half + 2 * sector(k)), b = load_cg(half + 2 * sector(k + 1)),
                c = load_cg(half + 2 * sector(k + 2)), d = load_cg(half + 2 * sector(k + 3));
    acc ^= fold(a) ^ fold(b) ^ fold(c) ^ fold(d);
  }
  out[tid] = acc;
}

struct ReadPlan {
  unsigned grid = 0;
  std::uint64_t threads = 0, n = 0, step = 0;
  int iters = 0;
  double bytes = 0;  ///< bytes one launch reads: iters * threads * 16, exactly
};

// One launch reads at least `target` bytes (and the whole working set at least once).
ReadPlan plan_read(const Context& ctx, std::uint64_t ws_bytes, std::uint64_t target) {
  ReadPlan p;
  p.grid = static_cast<unsigned>(full_grid(l2_read_kernel, kBlock, ctx));
  p.threads = std::uint64_t(p.grid) * kBlock;
  p.n = ws_bytes / sizeof(uint4);
  p.step = p.threads % p.n;
  const std::uint64_t want = std::max(target, ws_bytes);
  const std::uint64_t per_iter = p.threads * sizeof(uint4);
  p.iters = static_cast<int>(std::max<std::uint64_t>(1, (want + per_iter - 1) / per_iter));
  p.bytes = static_cast<double>(p.iters) * static_cast<double>(per_iter);
  return p;
}

void launch_read(const ReadPlan& p, const uint4* buf, std::uint32_t* out, cudaStream_t s) {
  l2_read_kernel<<<p.grid, kBlock, 0, s>>>(buf, p.n, p.step, p.iters, out);
  MEMHIER_CHECK_LAUNCH();
}

std::uint64_t round_down(std::uint64_t v, std::uint64_t to) {
  return v / to * to;
}

// Powers of two plus points around the L2 size (and at 0.1x, 0.5x, 1x, 5x L2, where
// seed 001's A100 table has its rows), capped by free memory.
std::vector<std::uint64_t> sweep_sizes(const Context& ctx, std::uint64_t cap) {
  const double l2 = std::max(ctx.device.l2_bytes, 1 << 20);
  std::vector<std::uint64_t> s;
  const std::uint64_t top = ctx.quick ? 512 * MiB : 4 * GiB;
  if (ctx.quick) {
    s = {MiB, 4 * MiB, 16 * MiB, 256 * MiB, 512 * MiB};
    for (double f : {0.1, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 5.0})
      s.push_back(static_cast<std::uint64_t>(l2 * f));
  } else {
    for (std::uint64_t b = MiB; b <= top; b *= 2) s.push_back(b);
    for (double f : {0.1, 0.5, 0.625, 0.75, 0.875, 1.0, 1.125, 1.25, 1.5, 5.0})
      s.push_back(static_cast<std::uint64_t>(l2 * f));
  }
  for (std::uint64_t& b : s) b = std::max(MiB, round_down(b, 64 * KiB));
  std::sort(s.begin(), s.end());
  std::vector<std::uint64_t> kept;
  for (std::uint64_t b : s) {
    if (b > cap || b > top) continue;
    if (!kept.empty() && static_cast<double>(b) < 1.04 * static_cast<double>(kept.back())) continue;
    kept.push_back(b);
  }
  return kept;
}

Result run_l2_working_set(Context& ctx) {
  return present_l2_working_set(measure_l2_working_set(ctx));
}

// ---------------------------------------------------------------------------------
// Probe "l2-random"
// ---------------------------------------------------------------------------------

// Powers of two from 1 MiB to 4 GiB (--quick: five of them, up to the claim's 2 GiB),
// those above `cap` left out.
std::vector<std::uint64_t> random_sizes(const Context& ctx, std::uint64_t cap) {
  std::vector<std::uint64_t> s;
  if (ctx.quick)
    s = {MiB, 4 * MiB, 16 * MiB, 256 * MiB, 2 * GiB};
  else
    for (std::uint64_t b = MiB; b <= 4 * GiB; b *= 2) s.push_back(b);
  s.erase(std::remove_if(s.begin(), s.end(), [&](std::uint64_t b) { return b > cap; }), s.end());
  return s;
}

Result run_l2_random(Context& ctx) {
  return present_l2_random(measure_l2_random(ctx));
}

// ---------------------------------------------------------------------------------
// Probe "l2-persisting"
// ---------------------------------------------------------------------------------

struct OwnedStream {
  cudaStream_t s = nullptr;
  OwnedStream() { MEMHIER_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~OwnedStream() {
    if (s) cudaStreamDestroy(s);
  }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
};

// Sets the persisting set-aside and a stream's access-policy window; undoes both on
// every path (window cleared, persisting lines dropped, previous limit restored).
class PersistingL2Guard {
 public:
  explicit PersistingL2Guard(cudaStream_t s) : stream_(s) {
    MEMHIER_CUDA(cudaDeviceGetLimit(&previous_limit_, cudaLimitPersistingL2CacheSize));
  }
  PersistingL2Guard(const PersistingL2Guard&) = delete;
  PersistingL2Guard& operator=(const PersistingL2Guard&) = delete;

  void set_limit(std::size_t bytes) {
    MEMHIER_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, bytes));
  }
  void set_window(void* base, std::size_t bytes) {
    cudaStreamAttrValue attr{};
    attr.accessPolicyWindow.base_ptr = base;
    attr.accessPolicyWindow.num_bytes = bytes;
    attr.accessPolicyWindow.hitRatio = 1.0f;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    window_set_ = true;
    MEMHIER_CUDA(cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &attr));
  }
  ~PersistingL2Guard() {
    // Destructors must not throw: each step is attempted and its error dropped.
    cudaStreamSynchronize(stream_);
    if (window_set_) {
      cudaStreamAttrValue attr{};
      attr.accessPolicyWindow.num_bytes = 0;  // a zero-byte window disables the policy
      cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &attr);
    }
    try {
      core::reset_persisting_l2();
    } catch (...) {
    }
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, previous_limit_);
    cudaGetLastError();
  }

 private:
  cudaStream_t stream_;
  std::size_t previous_limit_ = 0;
  bool window_set_ = false;
};

// The hot buffer's size, or why it cannot be measured (`why` set).
std::size_t hot_buffer_bytes(const Context& ctx, std::string& why) {
  const std::size_t pmax =
      static_cast<std::size_t>(std::max(ctx.device.persisting_l2_max_bytes, 0));
  int window_max = 0;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&window_max, cudaDevAttrMaxAccessPolicyWindowSize,
                                      ctx.device.ordinal));
  // Half the set-aside, in whole grid-wide passes so one launch reads each byte once.
  const std::uint64_t per_pass = plan_read(ctx, MiB, 0).threads * sizeof(uint4);
  std::size_t hot = std::min(pmax / 2, static_cast<std::size_t>(std::max(window_max, 0)));
  hot = hot >= per_pass ? round_down(hot, per_pass) : round_down(hot, 64 * KiB);
  if (pmax == 0)
    why = "this device reports no persisting L2 (persistingL2CacheMaxSize is 0)";
  else if (window_max <= 0)
    why = "this device reports no access-policy window (accessPolicyMaxWindowSize is 0)";
  else if (hot < MiB)
    why = "the persisting set-aside is too small for a 1 MiB hot buffer";
  return hot;
}

// Times the hot buffer: in L2, evicted, evicted with the window (NaN if it cannot be set).
void time_hot_buffer(L2PersistingResult& m, Context& ctx) {
  const std::size_t pmax =
      static_cast<std::size_t>(std::max(ctx.device.persisting_l2_max_bytes, 0));
  const std::size_t hot = m.hot_bytes;
  core::DeviceBuffer<uint4> hotbuf(hot / sizeof(uint4));
  fill_random_bits(reinterpret_cast<std::uint32_t*>(hotbuf.data()), hotbuf.bytes() / 4, 0x9e57);
  const ReadPlan p = plan_read(ctx, hot, 0);  // one pass over the hot buffer per launch
  core::DeviceBuffer<std::uint32_t> out(p.threads);
  OwnedStream stream;
  MEMHIER_CUDA(cudaDeviceSynchronize());
  core::reset_persisting_l2();  // no persisting lines left over from elsewhere
  m.bytes_per_read = p.bytes;
  auto time_hot = [&](const char* name, bool evict) {
    // With evict, the harness reads a buffer of twice the L2 size before every timed read:
    // the streaming traffic that pushes normal lines out.
    return core::time_it([&](cudaStream_t s) { launch_read(p, hotbuf.data(), out.data(), s); },
                         fewest_if_smallest(ctx, core::TimingOptions{name, 2, ctx.quick ? 15 : 30,
                                                                     200, 0.0, evict, stream.s}))
        .median_ms;
  };
  ctx.progress("l2-persisting: in-L2 reference");
  m.reference_ms = time_hot("l2-persisting-ref", false);
  ctx.progress("l2-persisting: evicted, no window");
  m.evicted_ms = time_hot("l2-persisting-evicted", true);
  ctx.progress("l2-persisting: evicted, persisting window");
  try {
    PersistingL2Guard guard(stream.s);
    guard.set_limit(pmax);
    guard.set_window(hotbuf.data(), hot);
    m.window_ms = time_hot("l2-persisting-window", true);
  } catch (const core::CudaError& e) {
    m.unmeasured = std::string("the persisting window could not be set: ") + e.what();
    m.window_ms = NAN;
  }
}

Result run_l2_persisting(Context& ctx) {
  return present_l2_persisting(measure_l2_persisting(ctx));
}

}  // namespace

L2WorkingSetResult measure_l2_working_set(Context& ctx) {
  const bool quick = ctx.quick;
  L2WorkingSetResult m;
  m.l2_bytes = static_cast<std::uint64_t>(std::max(ctx.device.l2_bytes, 1 << 20));
  m.launch_bytes = quick ? 256 * MiB : 512 * MiB;
  m.sweep_top_bytes = quick ? 512 * MiB : 4 * GiB;
  const std::vector<std::uint64_t> sizes = sweep_sizes(ctx, free_device_bytes() / 2);
  if (sizes.empty())
    throw std::runtime_error("l2-working-set: not enough free device memory for 1 MiB");

  ctx.progress("l2-working-set: filling " + fmt_mib(static_cast<double>(sizes.back())));
  core::DeviceBuffer<uint4> buf(sizes.back() / sizeof(uint4));
  fill_random_bits(reinterpret_cast<std::uint32_t*>(buf.data()), buf.bytes() / 4, 0x12c0ffee);
  const ReadPlan probe_plan = plan_read(ctx, sizes.front(), m.launch_bytes);
  core::DeviceBuffer<std::uint32_t> out(probe_plan.threads);
  MEMHIER_CUDA(cudaDeviceSynchronize());

  for (std::uint64_t w : sizes) {
    ctx.progress("l2-working-set: " + fmt_mib(static_cast<double>(w)));
    const ReadPlan p = plan_read(ctx, w, m.launch_bytes);
    // No L2 flush: the warm-up launches leave a set that fits resident in L2.
    const core::Timing t = core::time_it(
        [&](cudaStream_t s) { launch_read(p, buf.data(), out.data(), s); },
        fewest_if_smallest(ctx, core::TimingOptions{"l2-working-set", 2, quick ? 3 : 5, 100,
                                                    quick ? 1.0 : 3.0, false, nullptr}));
    m.points.push_back({w, gbps(p.bytes, t.median_ms)});
  }
  m.plateaus = find_l2_plateaus(m.points, m.l2_bytes);
  return m;
}

L2RandomResult measure_l2_random(Context& ctx) {
  L2RandomResult m;
  m.l2_bytes = static_cast<std::uint64_t>(std::max(ctx.device.l2_bytes, 1 << 20));
  m.launch_bytes = ctx.quick ? 64 * MiB : 256 * MiB;
  m.sweep_top_bytes = ctx.quick ? 2 * GiB : 4 * GiB;
  const std::uint64_t cap = free_device_bytes() / 2;
  const std::vector<std::uint64_t> sizes = random_sizes(ctx, cap);
  if (sizes.empty()) throw std::runtime_error("l2-random: not enough free device memory for 1 MiB");
  // The seed's baseline is a sequential read of 5x its L2 ("the 200 MB set" of a 40 MB L2).
  const std::uint64_t seq = std::max(MiB, round_down(5 * m.l2_bytes, 64 * KiB));
  m.sequential_bytes = seq <= cap ? seq : 0;

  const std::uint64_t top = std::max(sizes.back(), m.sequential_bytes);
  ctx.progress("l2-random: filling " + fmt_mib(static_cast<double>(top)));
  core::DeviceBuffer<uint4> buf(top / sizeof(uint4));
  fill_random_bits(reinterpret_cast<std::uint32_t*>(buf.data()), buf.bytes() / 4, 0x5eed2u);
  const unsigned grid = static_cast<unsigned>(full_grid(l2_random_kernel, kBlock, ctx));
  const std::uint64_t threads = std::uint64_t(grid) * kBlock;
  const std::uint64_t per_iter = threads * sizeof(uint4);  // each thread reads 16 bytes a read
  const int iters = static_cast<int>((m.launch_bytes + 4 * per_iter - 1) / (4 * per_iter) * 4);
  const double bytes = static_cast<double>(iters) * static_cast<double>(per_iter);
  const ReadPlan seq_plan = plan_read(ctx, std::max(MiB, m.sequential_bytes), m.launch_bytes);
  core::DeviceBuffer<std::uint32_t> out(std::max(threads, seq_plan.threads));
  MEMHIER_CUDA(cudaDeviceSynchronize());

  // No L2 flush, as in the sequential sweep: the warm-up leaves a set that fits resident.
  const core::TimingOptions o =
      fewest_if_smallest(ctx, core::TimingOptions{"l2-random", 2, ctx.quick ? 3 : 5, 100,
                                                  ctx.quick ? 1.0 : 3.0, false, nullptr});
  std::uint32_t seed = 0;  // a fresh draw of sectors every launch
  for (std::uint64_t w : sizes) {
    ctx.progress("l2-random: " + fmt_mib(static_cast<double>(w)));
    const auto mask = static_cast<std::uint32_t>(w / 32 - 1);
    const core::Timing t = core::time_it(
        [&](cudaStream_t s) {
          l2_random_kernel<<<grid, kBlock, 0, s>>>(buf.data(), mask, iters, ++seed, out.data());
          MEMHIER_CHECK_LAUNCH();
        },
        o);
    m.points.push_back({w, gbps(bytes, t.median_ms)});
  }
  if (m.sequential_bytes > 0) {
    ctx.progress("l2-random: sequential baseline " +
                 fmt_mib(static_cast<double>(m.sequential_bytes)));
    const core::Timing t =
        core::time_it([&](cudaStream_t s) { launch_read(seq_plan, buf.data(), out.data(), s); }, o);
    m.sequential_gbps = gbps(seq_plan.bytes, t.median_ms);
  }
  m.plateaus = find_l2_plateaus(m.points, m.l2_bytes);
  return m;
}

L2PersistingResult measure_l2_persisting(Context& ctx) {
  L2PersistingResult m;
  m.hot_bytes = hot_buffer_bytes(ctx, m.unmeasured);
  if (m.unmeasured.empty()) time_hot_buffer(m, ctx);
  return m;
}

std::vector<registry::Entry> l2_probes() {
  std::vector<registry::Entry> v;
  registry::Entry ws;
  ws.kind = "probe";
  ws.family = "l2";
  ws.name = "l2-working-set";
  ws.technique =
      "all-SM ld.cg re-reads of one buffer from 1 MiB to 4 GiB without L2 flush; the effective "
      "capacity is the halfway point between the in-L2 and HBM plateaus";
  ws.claim = {"001 §L2 Cache (working-set table)",
              "a working set that fits in L2 reads 2.2-2.8x faster than one far outside it; 1.4x "
              "at the L2 size"};
  ws.run_probe = run_l2_working_set;
  v.push_back(std::move(ws));

  registry::Entry rnd;
  rnd.kind = "probe";
  rnd.family = "l2";
  rnd.name = "l2-random";
  rnd.technique =
      "all-SM random 32-byte reads (ld.cg, a lane pair per sector) of one buffer from 1 MiB to "
      "4 GiB without L2 flush: the L2-hit and HBM-bound plateaus, against a sequential read of "
      "5x the L2";
  rnd.claim = {"001 §L2 Cache Impact by Working Set Size (A100, streaming read kernel)",
               "2 GB read at random (~1% hits): ~300 GB/s, 0.17x the 200 MB set"};
  rnd.run_probe = run_l2_random;
  v.push_back(std::move(rnd));

  registry::Entry pers;
  pers.kind = "probe";
  pers.family = "l2";
  pers.name = "l2-persisting";
  pers.technique =
      "hot-buffer reads after streaming eviction, with and without a persisting access-policy "
      "window";
  pers.claim = {"001 §L2 Residency Control (Ampere and Hopper)",
                "a persisting window keeps hot data in L2 against streaming traffic"};
  pers.run_probe = run_l2_persisting;
  v.push_back(std::move(pers));
  return v;
}

}  // namespace memhier::probe
