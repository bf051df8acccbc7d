// The two L2 partitions (Hopper): L2-hit latency from every SM to every 4 KiB page of a
// region well inside L2, and L2 bandwidth with reads kept to each SM's near pages against
// reads spread over all of them. The region is rewritten (whole lines, so every sector is
// valid in L2) before each round; in a round a few SMs, each on lines no other SM of the
// round touches, time their first ld.global.cg of their lines in every page, so a far line
// is timed before the reader's own half could keep a copy of it. Probe "l2-partitions".
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "chase_ring.cuh"
#include "common.cuh"
#include "families.hpp"
#include "memhier/core/hash.cuh"
#include "memhier/probe/l2_partitions.hpp"

namespace memhier::probe {
namespace {

constexpr std::uint64_t kPage = 4096;
constexpr int kSlots = static_cast<int>(kPage / kLine);  // 32 lines of 128 B per page
constexpr int kTouchSlot = kSlots - 1;                   // warms TLB and code; never timed
constexpr int kReadThreads = 1024;
constexpr int kVecsPerPage = static_cast<int>(kPage / 16);

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ std::uint64_t load_cg(std::uint64_t p) {
  std::uint64_t q;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(q) : "l"(p) : "memory");
  return q;
}

// Which block runs on which SM.
__global__ void smid_kernel(unsigned* ids) {
  if (threadIdx.x == 0) ids[blockIdx.x] = sm_id();
}

// Every line of the region written whole by one warp: words 0-1 the address of the same
// slot in the next page of the ring, the rest a pattern. Dirty lines are L2 hits.
__global__ void rewrite_kernel(char* base, const int* next_page, int pages) {
  const int lane = threadIdx.x & 31;
  const int warps = static_cast<int>(gridDim.x * blockDim.x / 32);
  for (int line = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
       line < pages * kSlots; line += warps) {
    const int page = line / kSlots, slot = line % kSlots;
    const std::uint64_t next = reinterpret_cast<std::uint64_t>(base) +
                               static_cast<std::uint64_t>(next_page[page]) * kPage +
                               static_cast<std::uint64_t>(slot) * kLine;
    unsigned word = core::hash32(static_cast<unsigned>(line * 32 + lane));
    if (lane == 0) word = static_cast<unsigned>(next);
    if (lane == 1) word = static_cast<unsigned>(next >> 32);
    reinterpret_cast<unsigned*>(base + static_cast<std::uint64_t>(line) * kLine)[lane] = word;
  }
}

struct MapArgs {
  const char* base = nullptr;
  int first_page = 0;  ///< the ring's start
  int pages = 0;
  int rounds = 1, round = 0;
  int lines = 1;               ///< lines per SM per page
  int rows = 0;                ///< SM ids below this are recorded
  unsigned* first = nullptr;   ///< [smid][line][page]: cycles of the first read
  unsigned* reread = nullptr;  ///< [smid][page]: cycles of the same SM's second read
};

// One hop: the load, a shared store that needs its value (so the clock below is read after
// the load returns), the clock. Returns the cycles since `prev`, which it advances.
__device__ __forceinline__ unsigned hop(std::uint64_t& p, long long& prev, unsigned sink) {
  p = load_cg(p);
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(sink), "r"(static_cast<unsigned>(p)) : "memory");
  const long long now = clock64();
  const unsigned dt = static_cast<unsigned>(now - prev);
  prev = now;
  return dt;
}

// Thread 0 of the block on an SM whose turn it is chases its slots through every page: the
// touch slot untimed, then its lines (first reads), then its first line again (rereads).
__global__ void map_kernel(MapArgs a) {
  extern __shared__ unsigned lat[];  // [lines + 1][pages], then the sink
  const unsigned sm = sm_id();
  if (threadIdx.x != 0 || static_cast<int>(sm) >= a.rows ||
      static_cast<int>(sm) % a.rounds != a.round)
    return;
  const int group = static_cast<int>(sm) / a.rounds;
  const unsigned sink =
      static_cast<unsigned>(__cvta_generic_to_shared(lat + (a.lines + 1) * a.pages));
  const std::uint64_t base = reinterpret_cast<std::uint64_t>(a.base);
  auto start = [&](int slot) {
    return base + static_cast<std::uint64_t>(a.first_page) * kPage +
           static_cast<std::uint64_t>(slot) * kLine;
  };
  long long prev = clock64();
  std::uint64_t p = start(kTouchSlot);
  for (int i = 0; i < a.pages; ++i) hop(p, prev, sink);
  for (int k = 0; k <= a.lines; ++k) {  // k == lines: the first line once more
    p = start(group * a.lines + (k < a.lines ? k : 0));
    prev = clock64();
    for (int i = 0; i < a.pages; ++i) {
      const int page = static_cast<int>((p - base) / kPage);
      lat[k * a.pages + page] = hop(p, prev, sink);
    }
  }
  for (int k = 0; k < a.lines; ++k)
    for (int i = 0; i < a.pages; ++i)
      a.first[(static_cast<std::size_t>(sm) * a.lines + k) * a.pages + i] = lat[k * a.pages + i];
  for (int i = 0; i < a.pages; ++i)
    a.reread[static_cast<std::size_t>(sm) * a.pages + i] = lat[a.lines * a.pages + i];
}

// Each warp reads whole pages (ld.global.cg, 16 B a lane, eight loads in flight): its SM's
// near pages (kNear) or all of them, `visits` pages per block whichever it is.
template <bool kNear>
__global__ void __launch_bounds__(kReadThreads)
    pages_read_kernel(const uint4* base, const int* lists, const int* counts, int rows, int pages,
                      int visits, unsigned* out) {
  const unsigned sm = sm_id();
  const bool own = kNear && static_cast<int>(sm) < rows && counts[sm] > 0;
  const int* list = own ? lists + static_cast<std::size_t>(sm) * pages : nullptr;
  const int count = own ? counts[sm] : pages;
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  const int first = static_cast<int>(core::hash32(blockIdx.x) % static_cast<unsigned>(count));
  unsigned acc = 0;
  for (int v = warp; v < visits; v += kReadThreads / 32) {
    const int i = (first + v) % count;
    const uint4* q = base + static_cast<std::size_t>(list ? list[i] : i) * kVecsPerPage + lane;
    uint4 x[8];
#pragma unroll
    for (int u = 0; u < 8; ++u)
      asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(x[u].x), "=r"(x[u].y), "=r"(x[u].z), "=r"(x[u].w)
                   : "l"(q + u * 32));
#pragma unroll
    for (int u = 0; u < 8; ++u) acc ^= x[u].x ^ x[u].y ^ x[u].z ^ x[u].w;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// ---------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------

std::vector<unsigned> sm_ids(const Context& ctx, std::size_t smem) {
  core::DeviceBuffer<unsigned> ids(static_cast<std::size_t>(ctx.device.sm_count));
  ids.poison();
  smid_kernel<<<ctx.device.sm_count, 32, smem>>>(ids.data());
  MEMHIER_CHECK_LAUNCH();
  MEMHIER_CUDA(cudaDeviceSynchronize());
  std::vector<unsigned> v = ids.download();
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// The map: rounds of rewrite + turn, then each cell the median of its lines.
void measure_map(L2PartitionsResult& m, char* region, const std::vector<int>& next_page,
                 int first_page, std::size_t smem, Context& ctx) {
  const int rows = m.smids.back() + 1;
  const int per_round = (kSlots - 1) / m.lines_per_cell;
  m.rounds = (rows + per_round - 1) / per_round;
  core::DeviceBuffer<int> next(next_page.size());
  next.upload(next_page);
  core::DeviceBuffer<unsigned> first(static_cast<std::size_t>(rows) * m.lines_per_cell * m.pages);
  core::DeviceBuffer<unsigned> reread(static_cast<std::size_t>(rows) * m.pages);
  MEMHIER_CUDA(cudaMemset(first.data(), 0, first.bytes()));
  MEMHIER_CUDA(cudaMemset(reread.data(), 0, reread.bytes()));
  MapArgs a;
  a.base = region;
  a.first_page = first_page;
  a.pages = m.pages;
  a.rounds = m.rounds;
  a.lines = m.lines_per_cell;
  a.rows = rows;
  a.first = first.data();
  a.reread = reread.data();
  for (int r = 0; r < m.rounds; ++r) {
    ctx.progress("l2-partitions: map, round " + std::to_string(r + 1) + " of " +
                 std::to_string(m.rounds));
    rewrite_kernel<<<ctx.device.sm_count * 2, 256>>>(region, next.data(), m.pages);
    MEMHIER_CHECK_LAUNCH();
    a.round = r;
    map_kernel<<<ctx.device.sm_count, 32, smem>>>(a);
    MEMHIER_CHECK_LAUNCH();
  }
  MEMHIER_CUDA(cudaDeviceSynchronize());
  const std::vector<unsigned> f = first.download(), rr = reread.download();
  for (int sm : m.smids)
    for (int q = 0; q < m.pages; ++q) {
      std::vector<double> lines;
      for (int k = 0; k < m.lines_per_cell; ++k) {
        const unsigned c = f[(static_cast<std::size_t>(sm) * m.lines_per_cell + k) * m.pages + q];
        if (c > 0) lines.push_back(c);
      }
      const unsigned again = rr[static_cast<std::size_t>(sm) * m.pages + q];
      m.cycles.push_back(median(lines));
      m.reread_cycles.push_back(again > 0 ? static_cast<double>(again) : NAN);
    }
}

// Near-only against spread reads of the region, the same pages read per block.
void measure_bandwidth(L2PartitionsResult& m, const char* region, Context& ctx) {
  const int rows = m.smids.back() + 1;
  std::vector<int> lists(static_cast<std::size_t>(rows) * m.pages, 0), counts(rows, 0);
  for (std::size_t r = 0; r < m.smids.size() && m.split.split; ++r)
    for (int q = 0; q < m.pages; ++q)
      if (m.split.far[r * m.pages + q] == 0)
        lists[static_cast<std::size_t>(m.smids[r]) * m.pages + counts[m.smids[r]]++] = q;
  const bool near_ok = m.split.split && std::all_of(m.smids.begin(), m.smids.end(),
                                                    [&](int s) { return counts[s] > 0; });
  if (!m.split.split)
    m.near_unmeasured = "the map shows no near and far clusters to keep the reads to";
  else if (!near_ok)
    m.near_unmeasured = "some SM has no page classed near";
  core::DeviceBuffer<int> dlists(lists.size()), dcounts(counts.size());
  dlists.upload(lists);
  dcounts.upload(counts);
  const uint4* base = reinterpret_cast<const uint4*>(region);
  const int grid = full_grid(pages_read_kernel<true>, kReadThreads, ctx);
  const int visits = ctx.smallest ? 32 : ctx.quick ? 32 : 64;
  core::DeviceBuffer<unsigned> out(static_cast<std::size_t>(grid) * kReadThreads);
  m.bytes_per_launch = static_cast<double>(grid) * visits * kPage;
  auto time_mode = [&](bool near, const char* name) {
    ctx.progress(std::string("l2-partitions: bandwidth, ") + name);
    const core::Timing t = core::time_it(
        [&](cudaStream_t s) {
          if (near)
            pages_read_kernel<true><<<grid, kReadThreads, 0, s>>>(
                base, dlists.data(), dcounts.data(), rows, m.pages, visits, out.data());
          else
            pages_read_kernel<false><<<grid, kReadThreads, 0, s>>>(
                base, dlists.data(), dcounts.data(), rows, m.pages, visits, out.data());
          MEMHIER_CHECK_LAUNCH();
        },
        probe_timing(ctx, std::string("l2-partitions-") + name));
    return gbps(m.bytes_per_launch, t.median_ms);
  };
  m.spread_gbps = time_mode(false, "spread");
  if (near_ok) m.near_gbps = time_mode(true, "near");
}

}  // namespace

L2PartitionsResult measure_l2_partitions(Context& ctx) {
  L2PartitionsResult m;
  m.cc_major = ctx.device.cc_major;
  m.cc_minor = ctx.device.cc_minor;
  m.sm_clock_mhz = ctx.sm_clock_mhz;
  m.l2_bytes = static_cast<std::uint64_t>(std::max(ctx.device.l2_bytes, 0));
  if (m.cc_major < 9) {
    m.declined =
        "The L2 partition map is made for Hopper's two L2 halves (compute capability "
        "9.0 or newer); this card is " +
        std::to_string(m.cc_major) + "." + std::to_string(m.cc_minor) + ".";
    return m;
  }
  m.pages = ctx.quick ? 128 : 256;
  m.page_bytes = kPage;
  m.lines_per_cell = ctx.quick ? 1 : 3;
  // One block per SM: the largest dynamic shared memory a block may have.
  const std::size_t smem = static_cast<std::size_t>(ctx.device.smem_per_block_optin);
  MEMHIER_CUDA(cudaFuncSetAttribute(smid_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(smem)));
  MEMHIER_CUDA(cudaFuncSetAttribute(map_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(smem)));
  const std::vector<unsigned> ids = sm_ids(ctx, smem);
  m.smids.assign(ids.begin(), ids.end());
  if (static_cast<std::size_t>((m.lines_per_cell + 2) * m.pages) * 4 > smem)
    throw std::logic_error("l2-partitions: the map's latencies do not fit in shared memory");

  // The ring visits every page once in a random order; its slot-s line points to slot s of
  // the next page.
  const RingLayout lay = make_layout(static_cast<std::uint64_t>(m.pages), kPage, 1, 61);
  check_layout(lay);
  std::vector<int> next_page(static_cast<std::size_t>(m.pages));
  for (int k = 0; k < m.pages; ++k)
    next_page[ring_slot(lay, k)] = static_cast<int>(ring_slot(lay, (k + 1) % m.pages));
  const int first_page = static_cast<int>(ring_slot(lay, 0));
  core::DeviceBuffer<char> region(static_cast<std::size_t>(m.pages) * kPage);
  measure_map(m, region.data(), next_page, first_page, smem, ctx);
  m.split = classify_l2_partitions(m.cycles, static_cast<int>(m.smids.size()), m.pages);
  measure_bandwidth(m, region.data(), ctx);
  return m;
}

std::vector<registry::Entry> l2_partitions_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "l2-partitions";
  e.name = "l2-partitions";
  e.technique =
      "first-read ld.global.cg latency from every SM (%smid) to every 4 KiB page of a 1 MiB "
      "region, split near/far by the gap between two clusters; near-only against spread reads";
  e.claim = {"published figures: H100 L2 partitions",
             "a line in the far L2 half costs about 475 cycles against 265 in the near half"};
  e.run_probe = [](Context& ctx) { return present_l2_partitions(measure_l2_partitions(ctx)); };
  return {e};
}

}  // namespace memhier::probe
