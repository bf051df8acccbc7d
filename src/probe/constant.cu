// Probe "constant": the constant cache's broadcast. A 16 KiB __constant__ table read
// by every thread in a loop with a warp-uniform index (one address per warp: a
// broadcast) and with a divergent index (32 addresses per warp: serialized), against
// the same table in global memory through the read-only path (__ldg), and against a
// loop that makes the value in registers. Plus the latency of a dependent chain
// through constant memory, for the summary's "constant" tier.

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/model/access.hpp"

namespace memhier::probe {
namespace {

constexpr int kTableWords = 4096;  // 16 KiB of floats
constexpr int kDivergentStride = 129;  // words between lanes: 32 distinct addresses, distinct lines
constexpr int kRingSlots = 256;    // 1 KiB ring: stays in the constant cache
constexpr int kBlock = 256;

__constant__ float c_table[kTableWords];
__constant__ std::uint32_t c_ring[kRingSlots];  // byte offsets of the next slot

enum class Memory { constant_bank, global_ldg, registers };

/// The word a lane reads in iteration `iter`: the same for all lanes (uniform) or
/// 129 words apart per lane (divergent). Shared by the kernel and the model.
__host__ __device__ inline int table_index(int iter, int lane, bool divergent, int base) {
  return (iter + base + (divergent ? lane * kDivergentStride : 0)) & (kTableWords - 1);
}

template <Memory M, bool Divergent>
__global__ void table_read(const float* __restrict__ gtable, float* out, int iters, int base) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  float acc0 = 0.f, acc1 = 0.f;  // two chains so the FADD latency never limits the loop
#pragma unroll 4
  for (int it = 0; it < iters; it += 2) {
    const int i0 = table_index(it, lane, Divergent, base);
    const int i1 = table_index(it + 1, lane, Divergent, base);
    if constexpr (M == Memory::constant_bank) {
      acc0 += c_table[i0];
      acc1 += c_table[i1];
    } else if constexpr (M == Memory::global_ldg) {
      acc0 += __ldg(gtable + i0);
      acc1 += __ldg(gtable + i1);
    } else {
      // The value made from the index in registers: the loop with no memory access.
      acc0 += __int_as_float((i0 & 0x7fff) | 0x3f800000);
      acc1 += __int_as_float((i1 & 0x7fff) | 0x3f800000);
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc0 + acc1;  // every thread writes: no load is dead
}

/// One thread walks the ring: each load's address is the previous load's value.
__global__ void constant_chase(int steps, std::uint32_t* out) {
  std::uint32_t off = 0;
  for (int s = 0; s < steps; ++s)
    off = *reinterpret_cast<const std::uint32_t*>(reinterpret_cast<const char*>(c_ring) + off);
  out[0] = off;
}



/// Distinct 4-byte words one warp instruction reads: what the constant cache serializes on.
int distinct_words(bool divergent) {
  model::WarpAccess w;
  for (int lane = 0; lane < model::kWarpSize; ++lane)
    w.address[lane] = static_cast<std::uint64_t>(table_index(0, lane, divergent, 0)) * 4;
  return model::global_cost(w).bytes_needed / 4;
}

struct Row {
  Memory memory;
  bool divergent;
  std::string memory_name, pattern;
  double ms = NAN, gloads = NAN, gbps = NAN, relative = NAN;
};

template <Memory M, bool D>
void launch_read(unsigned grid, const float* g, float* out, int iters, cudaStream_t s) {
  table_read<M, D><<<grid, kBlock, 0, s>>>(g, out, iters, 7);
  MEMHIER_CHECK_LAUNCH();
}

Result run_constant(Context& ctx) {
  Result result;
  report::Section& s = result.section;
  s.id = "constant";
  s.title = "Constant memory: broadcast against divergent reads";

  ctx.progress("constant: filling the table");
  std::vector<float> host(kTableWords);
  std::mt19937 rng(0xc0457u);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (float& v : host) v = dist(rng);
  MEMHIER_CUDA(cudaMemcpyToSymbol(c_table, host.data(), sizeof(float) * kTableWords));
  core::DeviceBuffer<float> gtable(kTableWords);
  gtable.upload(host);

  int per_sm = 0;
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, table_read<Memory::constant_bank, true>, kBlock, 0));
  const unsigned grid = static_cast<unsigned>((per_sm > 0 ? per_sm : 1) * ctx.device.sm_count);
  const int iters = ctx.quick ? 4096 : 16384;  // even: the kernel reads two per step
  core::DeviceBuffer<float> out(static_cast<std::size_t>(grid) * kBlock);
  const double loads = static_cast<double>(grid) * kBlock * iters;

  std::vector<Row> rows = {
      {Memory::constant_bank, false, "constant", "uniform"},
      {Memory::constant_bank, true, "constant", "divergent"},
      {Memory::global_ldg, false, "global (__ldg)", "uniform"},
      {Memory::global_ldg, true, "global (__ldg)", "divergent"},
      {Memory::registers, false, "registers (no load)", "uniform"},
  };
  const float* g = gtable.data();
  float* o = out.data();
  for (Row& r : rows) {
    ctx.progress("constant: " + r.memory_name + " " + r.pattern);
    std::function<void(cudaStream_t)> launch;
    if (r.memory == Memory::constant_bank && r.divergent)
      launch = [=](cudaStream_t st) { launch_read<Memory::constant_bank, true>(grid, g, o, iters, st); };
    else if (r.memory == Memory::constant_bank)
      launch = [=](cudaStream_t st) { launch_read<Memory::constant_bank, false>(grid, g, o, iters, st); };
    else if (r.memory == Memory::global_ldg && r.divergent)
      launch = [=](cudaStream_t st) { launch_read<Memory::global_ldg, true>(grid, g, o, iters, st); };
    else if (r.memory == Memory::global_ldg)
      launch = [=](cudaStream_t st) { launch_read<Memory::global_ldg, false>(grid, g, o, iters, st); };
    else
      launch = [=](cudaStream_t st) { launch_read<Memory::registers, false>(grid, g, o, iters, st); };
    r.ms = core::time_it(launch, probe_timing(ctx, "constant/" + r.memory_name + "/" + r.pattern)).median_ms;
    r.gloads = loads / (r.ms * 1e6);
    r.gbps = gbps(4.0 * loads, r.ms);
  }
  for (Row& r : rows) r.relative = rows[0].ms / r.ms;

  // Latency: a dependent chain through a 1 KiB ring in constant memory.
  ctx.progress("constant: latency chain");
  const std::vector<std::uint32_t> ring = make_ring(kRingSlots, 4, 0xc0de5u);
  MEMHIER_CUDA(cudaMemcpyToSymbol(c_ring, ring.data(), sizeof(std::uint32_t) * kRingSlots));
  core::DeviceBuffer<std::uint32_t> sink(1);
  const int steps = ctx.quick ? 20000 : 100000;
  std::uint32_t* sp = sink.data();
  const double chase_ms = core::time_it(
                              [=](cudaStream_t st) {
                                constant_chase<<<1, 1, 0, st>>>(steps, sp);
                                MEMHIER_CHECK_LAUNCH();
                              },
                              probe_timing(ctx, "constant/latency"))
                              .median_ms;
  const double latency_cycles =
      ctx.sm_clock_mhz > 0 ? chase_ms * 1e3 * ctx.sm_clock_mhz / steps : NAN;

  int const_bytes = 0;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&const_bytes, cudaDevAttrTotalConstantMemory, ctx.device.ordinal));

  s.paragraphs.push_back(strf(
      "%u blocks of %d threads (every SM full) each read a %d KiB table %d times per thread. "
      "Uniform: all 32 lanes of a warp read the same word (%d distinct word per warp instruction); "
      "divergent: lanes read words %d apart (%d distinct words). The constant cache serves one "
      "address per pass, so the model predicts divergent reads cost up to %dx; __ldg reads the "
      "same table from global memory through the L1/read-only path. 'registers' runs the same "
      "loop with the value made from the index in registers: the floor a free read would reach. "
      "Bandwidth counts 4 bytes per thread-load. Latency: one thread follows a random %d-slot "
      "ring in constant memory (each address is the previous load's value), at the measured SM "
      "clock of %.0f MHz.",
      grid, kBlock, kTableWords * 4 / 1024, iters, distinct_words(false), kDivergentStride,
      distinct_words(true), distinct_words(true), kRingSlots, ctx.sm_clock_mhz));

  report::Table t;
  t.id = "constant";
  t.title = "Table reads by memory space and index pattern";
  t.columns = {{"memory", "", "memory"},
               {"pattern", "", "pattern"},
               {"time", "ms", "ms"},
               {"thread-loads", "G/s", "gloads_per_s"},
               {"bandwidth", "GB/s", "gbps"},
               {"relative speed", "x", "relative"},
               {"distinct words per warp (model)", "", "distinct_per_warp"}};
  using report::Value;
  for (const Row& r : rows)
    t.rows.push_back({Value::str(r.memory_name), Value::str(r.pattern), Value::num(r.ms, 4),
                      Value::num(r.gloads, 0), Value::num(r.gbps, 0), Value::num(r.relative, 3),
                      r.memory == Memory::registers ? Value::none()
                                                    : Value::integer(distinct_words(r.divergent))});
  t.notes.push_back("relative speed: time of constant/uniform over this row's time (above 1 is faster).");
  t.notes.push_back("The registers row moves no data: its 'bandwidth' is the rate a free read would have.");

  report::Table lat;
  lat.id = "constant-latency";
  lat.title = "Constant-cache latency (dependent chain, cache-resident)";
  lat.columns = {{"ring", "B", "ring_bytes"},
                 {"steps", "", "steps"},
                 {"latency", "cycles", "latency_cycles"},
                 {"latency", "ns", "latency_ns"}};
  lat.rows.push_back({Value::integer(kRingSlots * 4), Value::integer(steps), Value::num(latency_cycles, 1),
                      Value::num(std::isnan(latency_cycles) ? NAN : ctx.cycles_to_ns(latency_cycles), 1)});
  if (std::isnan(latency_cycles)) lat.notes.push_back("No SM clock was measured, so cycles are n/a.");
  lat.notes.push_back("Includes the loop's own cycles per step and one launch (under 1% of the chain).");

  // Claims.
  const Row& cu = rows[0];
  const Row& cd = rows[1];
  const Row& gu = rows[2];
  const Row& gd = rows[3];
  const Row& reg = rows[4];
  std::vector<ClaimRow> claims;
  {
    const double cost = cu.ms / reg.ms;  // broadcast loop against the no-load loop
    std::string v;
    if (!std::isfinite(cost)) v = "not measurable here: the timing failed";
    else if (cost <= 1.5) v = "reproduced (tolerance: within 1.5x of the no-load loop)";
    else if (cost > 3.0) v = strf("refuted: broadcast reads make the loop %.1fx slower", cost);
    else v = strf("differs: the broadcast loop takes %.2fx the no-load loop", cost);
    claims.push_back({"constant-broadcast-one-cycle"_claim,
                      strf("uniform constant loop %.4f ms against %.4f ms with no load (%.2fx)",
                           cu.ms, reg.ms, cost),
                      v});
  }
  {
    const double slow = cd.ms / cu.ms;
    std::string v;
    if (!std::isfinite(slow)) v = "not measurable here: the timing failed";
    else if (slow >= 8.0 && slow <= 48.0) v = "reproduced (tolerance: 8x..48x)";
    else if (slow < 2.0) v = strf("refuted: divergent reads only %.2fx slower", slow);
    else v = strf("differs: %.1fx, outside 8x..48x", slow);
    claims.push_back({"constant-divergent-serializes"_claim,
                      strf("divergent/uniform time %.1fx (model: %d distinct words per warp)", slow,
                           distinct_words(true)),
                      v});
  }
  {
    const double ratio = cd.ms / gd.ms;
    std::string v;
    if (!std::isfinite(ratio)) v = "not measurable here: the timing failed";
    else if (ratio > 1.1) v = "reproduced (tolerance: constant slower by more than 10%)";
    else if (ratio < 0.9) v = strf("refuted: divergent constant reads are %.2fx faster than __ldg", 1 / ratio);
    else v = "differs: about equal (within 10%)";
    claims.push_back({"constant-divergent-slower-than-global"_claim,
                      strf("divergent: constant %.4f ms, __ldg %.4f ms (constant %.2fx the time)",
                           cd.ms, gd.ms, ratio),
                      v});
  }
  {
    const double ratio = gu.ms / cu.ms;
    std::string v;
    if (!std::isfinite(ratio)) v = "not measurable here: the timing failed";
    else if (ratio >= 16.0 && ratio <= 48.0) v = "reproduced (tolerance: 16x..48x)";
    else if (ratio < 2.0) v = strf("refuted: __ldg broadcast is within %.2fx of constant", ratio);
    else v = strf("differs: %.1fx, outside 16x..48x", ratio);
    claims.push_back(
        {"constant-broadcast-32x-global"_claim,
         strf("uniform: __ldg %.4f ms against constant %.4f ms (%.2fx)", gu.ms, cu.ms, ratio), v});
  }
  {
    std::string v;
    if (!std::isfinite(latency_cycles)) v = "not measurable here: no SM clock";
    else if (latency_cycles >= 20 && latency_cycles <= 80) v = "reproduced (tolerance: 20..80 cycles)";
    else v = strf("differs: %.0f cycles, outside 20..80", latency_cycles);
    claims.push_back(
        {"latency-constant-40-cycles"_claim,
         strf("%.0f cycles for a cache-resident dependent load; %d KiB of __constant__ space",
              latency_cycles, const_bytes / 1024),
         v});
  }

  report::Chart chart;
  chart.id = "constant-loads";
  chart.title = "Thread-loads per second by memory and pattern";
  chart.kind = report::Chart::Kind::bar;
  chart.x_label = "memory / pattern";
  chart.y_label = "thread-loads";
  chart.y_unit = "G/s";
  chart.log_y = true;  // divergent constant reads are an order of magnitude below the rest
  report::Series series;
  series.name = "thread-loads";
  for (const Row& r : rows) {
    chart.categories.push_back(r.memory_name + " / " + r.pattern);
    series.y.push_back(r.gloads);
  }
  chart.series.push_back(std::move(series));

  s.tables.push_back(std::move(t));
  s.tables.push_back(std::move(lat));
  s.tables.push_back(claims_table("constant", claims));
  s.charts.push_back(std::move(chart));

  probe::TierFigure tier;
  tier.tier = "constant";
  tier.latency_cycles = latency_cycles;
  tier.bandwidth_gbps = cu.gbps;
  tier.size = std::to_string(const_bytes / 1024) + " KiB";
  result.tiers.push_back(tier);
  return result;
}

}  // namespace

std::vector<registry::Entry> constant_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "constant";
  e.name = "constant";
  e.technique = "__constant__ table read with warp-uniform and divergent indices, against __ldg "
                "from global memory; dependent chain for latency";
  e.claim = {"000 §Constant memory; 001 §Constant memory",
             "broadcast reads are essentially free; divergent reads serialize (up to 32x)"};
  e.run_probe = run_constant;
  return {std::move(e)};
}

}  // namespace memhier::probe
