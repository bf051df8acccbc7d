// The constant probe's section from its measurement: the reads and latency tables, the
// claims and the chart. No CUDA.
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/constant.hpp"

namespace memhier::probe {
namespace {

using report::Value;

report::Table reads_table(const ConstantResult& m) {
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
  for (const ConstantRead& r : m.reads)
    t.rows.push_back(
        {Value::str(r.memory), Value::str(r.pattern), Value::num(r.ms, 4),
         Value::num(r.gloads_per_s, 0), Value::num(r.gbps, 0), Value::num(r.relative, 3),
         r.distinct_per_warp < 0 ? Value::none() : Value::integer(r.distinct_per_warp)});
  t.notes.push_back(
      "relative speed: time of constant/uniform over this row's time (above 1 is faster).");
  t.notes.push_back(
      "The registers row moves no data: its 'bandwidth' is the rate a free read would have.");
  return t;
}

report::Table latency_table(const ConstantResult& m) {
  report::Table lat;
  lat.id = "constant-latency";
  lat.title = "Constant-cache latency (dependent chain, cache-resident)";
  lat.columns = {{"ring", "B", "ring_bytes"},
                 {"steps", "", "steps"},
                 {"latency", "cycles", "latency_cycles"},
                 {"latency", "ns", "latency_ns"}};
  lat.rows.push_back(
      {Value::integer(m.ring_slots * 4), Value::integer(m.chase_steps),
       Value::num(m.latency_cycles, 1),
       Value::num(
           std::isnan(m.latency_cycles) ? NAN : cycles_to_ns(m.latency_cycles, m.sm_clock_mhz),
           1)});
  if (std::isnan(m.latency_cycles))
    lat.notes.push_back("No SM clock was measured, so cycles are n/a.");
  lat.notes.push_back(
      "Includes the loop's own cycles per step and one launch (under 1% of the chain).");
  return lat;
}

report::Chart reads_chart(const ConstantResult& m) {
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
  for (const ConstantRead& r : m.reads) {
    chart.categories.push_back(r.memory + " / " + r.pattern);
    series.y.push_back(r.gloads_per_s);
  }
  chart.series.push_back(std::move(series));
  return chart;
}

// The broadcast against no load, and divergent against uniform reads.
void broadcast_claims(const ConstantResult& m, std::vector<ClaimRow>& claims) {
  const ConstantRead& cu = m.reads[0];
  const ConstantRead& cd = m.reads[1];
  const ConstantRead& reg = m.reads[4];
  {
    const double cost = cu.ms / reg.ms;  // broadcast loop against the no-load loop
    claims.push_back({ClaimId::constant_broadcast_one_cycle,
                      strf("uniform constant loop %.4f ms against %.4f ms with no load (%.2fx)",
                           cu.ms, reg.ms, cost),
                      judged(cost, Claimed::value(1, "x the no-load loop"), Tolerance::at_most(1.5),
                             "the timing failed")});
  }
  {
    const double slow = cd.ms / cu.ms;
    claims.push_back(
        {ClaimId::constant_divergent_serializes,
         strf("divergent/uniform time %.1fx (model: %d distinct words per warp)", slow,
              m.reads[1].distinct_per_warp),
         judged(slow, Claimed::range(8, 48, "x"),
                claims::band(ClaimId::constant_divergent_serializes), "the timing failed")});
  }
}

// Constant against __ldg, and the latency of a cache-resident load.
void global_claims(const ConstantResult& m, std::vector<ClaimRow>& claims) {
  const ConstantRead& cu = m.reads[0];
  const ConstantRead& cd = m.reads[1];
  const ConstantRead& gu = m.reads[2];
  const ConstantRead& gd = m.reads[3];
  {
    const double ratio = cd.ms / gd.ms;
    claims.push_back({ClaimId::constant_divergent_slower_than_global,
                      strf("divergent: constant %.4f ms, __ldg %.4f ms (constant %.2fx the time)",
                           cd.ms, gd.ms, ratio),
                      judged(ratio, Claimed::value(1, "x __ldg's time"),
                             claims::band(ClaimId::constant_divergent_slower_than_global),
                             "the timing failed")});
  }
  {
    const double ratio = gu.ms / cu.ms;
    claims.push_back(
        {ClaimId::constant_broadcast_32x_global,
         strf("uniform: __ldg %.4f ms against constant %.4f ms (%.2fx)", gu.ms, cu.ms, ratio),
         judged(ratio, Claimed::range(16, 48, "x"),
                claims::band(ClaimId::constant_broadcast_32x_global), "the timing failed")});
  }
  {
    claims.push_back(
        {ClaimId::latency_constant_40_cycles,
         strf("%.0f cycles for a cache-resident dependent load; %d KiB of __constant__ space",
              m.latency_cycles, m.constant_bytes / 1024),
         judged(m.latency_cycles, Claimed::value(40, "cycles"),
                claims::band(ClaimId::latency_constant_40_cycles), "no SM clock")});
  }
}

}  // namespace

Result present_constant(const ConstantResult& m) {
  Result result;
  report::Section& s = result.section;
  s.id = "constant";
  s.title = "Constant memory: broadcast against divergent reads";
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
      m.grid, m.block_threads, m.table_bytes / 1024, m.iters, m.reads[0].distinct_per_warp,
      m.divergent_stride, m.reads[1].distinct_per_warp, m.reads[1].distinct_per_warp, m.ring_slots,
      m.sm_clock_mhz));

  s.tables.push_back(reads_table(m));
  s.tables.push_back(latency_table(m));
  std::vector<ClaimRow> claims;
  broadcast_claims(m, claims);
  global_claims(m, claims);
  add_claims(s, "constant", claims);
  s.charts.push_back(reads_chart(m));

  TierFigure tier;
  tier.tier = "constant";
  tier.latency_cycles = m.latency_cycles;
  tier.bandwidth_gbps = m.reads[0].gbps;
  tier.bandwidth_method = "probe constant: warp-uniform reads (bytes delivered to lanes)";
  tier.size = std::to_string(m.constant_bytes / 1024) + " KiB";
  tier.size_bytes = static_cast<double>(m.constant_bytes);
  result.tiers.push_back(tier);
  return result;
}

}  // namespace memhier::probe
