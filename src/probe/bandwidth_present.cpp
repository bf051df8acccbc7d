// The bandwidth probe's section from its measurement: the tiers table, the copy ratios,
// the claims judged against the figures, the chart and the summary's figures. No CUDA.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/bandwidth.hpp"

namespace memhier::probe {
namespace {

using report::Value;

std::string tbps(double gbps_value) {
  return fixed(gbps_value / 1000.0, 2) + " TB/s";
}
/// A bandwidth for the judge: zero means the tier was not timed.
double timed(double gbps_value) {
  return gbps_value > 0 ? gbps_value : NAN;
}

// Bytes per clock per SM at the measured clock.
double per_sm_clk(const BandwidthResult& m, double g) {
  return g * 1e3 / (static_cast<double>(m.device.sm_count) * m.sm_clock_mhz);
}

report::Table tiers_table(const BandwidthResult& m) {
  const double clk_mhz = m.sm_clock_mhz;
  report::Table t;
  t.id = "bandwidth-tiers";
  t.title = "Bandwidth per tier, every SM busy";
  t.caption = "Median of repeated launches (CUDA events). GB/s = 10^9 bytes per second.";
  t.columns = {{"tier", "", "tier"},
               {"access", "", "access"},
               {"bandwidth", "GB/s", "gbps"},
               {"per SM per clock", "B/clk/SM", "bytes_per_clk_per_sm"}};
  for (const TierBandwidth& r : m.tiers) {
    const bool per_sm = r.on_chip && clk_mhz > 0 && m.device.sm_count > 0;
    t.rows.push_back({Value::str(r.tier), Value::str(r.access), Value::num(r.gbps, 0),
                      per_sm ? Value::num(per_sm_clk(m, r.gbps), 1) : Value::none()});
  }
  t.notes.push_back("Per SM per clock uses the measured SM clock (" + fixed(clk_mhz, 0) +
                    " MHz) and " + std::to_string(m.device.sm_count) +
                    " SMs; it is left empty for DRAM, which the SM clock does not pace.");
  t.notes.push_back(
      "Copy and cudaMemcpy count bytes read + bytes written; triad counts 3 streams.");
  t.notes.push_back(
      "Constant counts 4 bytes per lane per load (bytes delivered), one broadcast per warp.");
  for (const std::string& n : m.notes) t.notes.push_back(n);
  return t;
}

report::Table ratio_table(const BandwidthResult& m) {
  report::Table ratio;
  ratio.id = "bandwidth-copy-ratio";
  ratio.title = "Copy kernel against the vendor copy";
  ratio.columns = {{"quantity", "", "quantity"}, {"value", "", "value"}};
  ratio.rows.push_back({Value::str("HBM copy / cudaMemcpy"),
                        Value::num(m.memcpy_gbps > 0 ? m.copy_gbps / m.memcpy_gbps : NAN, 2)});
  const double peak = m.device.peak_dram_gbps();
  if (peak > 0) {
    ratio.rows.push_back(
        {Value::str("HBM read / datasheet DRAM"), Value::num(m.read_gbps / peak, 2)});
    ratio.rows.push_back(
        {Value::str("HBM copy / datasheet DRAM"), Value::num(m.copy_gbps / peak, 2)});
    ratio.rows.push_back(
        {Value::str("cudaMemcpy / datasheet DRAM"), Value::num(m.memcpy_gbps / peak, 2)});
  } else {
    ratio.notes.push_back(
        "The runtime reports no memory clock or bus width: no datasheet DRAM figure.");
  }
  return ratio;
}

// Each tier's figure against the published ones.
void tier_claims(const BandwidthResult& m, std::vector<ClaimRow>& claims) {
  const double best_hbm = std::max({m.read_gbps, m.write_gbps, m.copy_gbps, m.triad_gbps});
  claims.push_back({ClaimId::shared_bandwidth_3tbs,
                    tbps(m.best_shared_gbps) + " (best width; the claim taken as 3-6 TB/s)",
                    judged(timed(m.best_shared_gbps), Claimed::range(3000, 6000, "GB/s"),
                           claims::band(ClaimId::shared_bandwidth_3tbs))});
  claims.push_back({ClaimId::shared_bandwidth_19tbs, tbps(m.best_shared_gbps) + " (best width)",
                    judged(timed(m.best_shared_gbps), Claimed::value(19000, "GB/s"),
                           claims::band(ClaimId::shared_bandwidth_19tbs))});
  claims.push_back({ClaimId::l1_bandwidth_2tbs, tbps(m.l1_gbps),
                    judged(timed(m.l1_gbps), Claimed::range(1500, 2000, "GB/s"),
                           claims::band(ClaimId::l1_bandwidth_2tbs))});
  claims.push_back({ClaimId::l1_bandwidth_19tbs, tbps(m.l1_gbps),
                    judged(timed(m.l1_gbps), Claimed::value(19000, "GB/s"),
                           claims::band(ClaimId::l1_bandwidth_19tbs))});
  claims.push_back({ClaimId::l2_bandwidth_12tbs, tbps(m.l2_gbps),
                    judged(timed(m.l2_gbps), Claimed::value(12000, "GB/s"),
                           claims::band(ClaimId::l2_bandwidth_12tbs))});
  claims.push_back({ClaimId::hbm_bandwidth_3350,
                    fixed(best_hbm, 0) + " GB/s (best of read, copy, triad)",
                    judged(timed(best_hbm), Claimed::value(3350, "GB/s"),
                           claims::band(ClaimId::hbm_bandwidth_3350))});
}

// The copy kernel against the datasheet and cudaMemcpy, and the constant broadcast.
void ceiling_claims(const BandwidthResult& m, std::vector<ClaimRow>& claims) {
  const double peak = m.device.peak_dram_gbps();
  if (peak > 0) {
    const double frac = m.copy_gbps / peak;
    claims.push_back(
        {ClaimId::coalesced_88pct_of_peak,
         fixed(100 * frac, 0) + "% of this card's datasheet " + fixed(peak, 0) +
             " GB/s (2 x memory clock x bus width), copy kernel; the claim taken as 73-103%",
         judged(100 * frac, Claimed::range(73, 103, "%"),
                claims::band(ClaimId::coalesced_88pct_of_peak))});
  } else {
    claims.push_back({ClaimId::coalesced_88pct_of_peak, "n/a",
                      not_measurable("the runtime reports no memory clock or bus width")});
  }
  {
    // One warp-wide broadcast per SM clock delivers 32 lanes x 4 bytes = 128 B/clk/SM.
    const double per_clk = m.sm_clock_mhz > 0 ? per_sm_clk(m, m.constant_gbps) / 128.0 : NAN;
    claims.push_back({ClaimId::constant_broadcast_one_cycle,
                      fixed(per_clk, 2) + " warp reads per SM clock (" + tbps(m.constant_gbps) +
                          " delivered; the claim taken as >= 1 warp read per SM clock)",
                      judged(per_clk, Claimed::value(1, "warp reads per SM clock"),
                             Tolerance::at_least(0.8), "no SM clock")});
  }
  const double copy = m.copy_gbps, d2d = m.memcpy_gbps;
  claims.push_back(
      {ClaimId::memhier_copy_vs_memcpy,
       "copy " + fixed(copy, 0) + " GB/s vs cudaMemcpy " + fixed(d2d, 0) + " GB/s (" +
           fixed(d2d > 0 ? copy / d2d : NAN, 2) + "x)",
       judged(d2d > 0 ? copy / d2d : NAN, Claimed::value(1, "x cudaMemcpy"),
              claims::band(ClaimId::memhier_copy_vs_memcpy), "cudaMemcpy was not timed")});
}

report::Chart tiers_chart(const BandwidthResult& m) {
  report::Chart chart;
  chart.id = "bandwidth-tiers";
  chart.title = "Bandwidth per tier";
  chart.kind = report::Chart::Kind::bar;
  chart.x_label = "tier";
  chart.y_label = "bandwidth";
  chart.y_unit = "GB/s";
  chart.log_y = true;
  report::Series series;
  series.name = "measured";
  for (const TierBandwidth& r : m.tiers) {
    chart.categories.push_back(
        r.tier == "shared" ? "shared " + r.access.substr(0, r.access.find('-')) + " B" : r.tier);
    series.y.push_back(r.gbps);
  }
  chart.series.push_back(std::move(series));
  return chart;
}

// The summary tier a row of the tiers table measures: every DRAM stream is HBM.
std::string summary_tier(const TierBandwidth& r) {
  return r.tier.rfind("HBM", 0) == 0 || r.tier == "cudaMemcpy D2D" ? "HBM" : r.tier;
}

// Every row of the tiers table as a candidate for its tier's summary figure, named by its
// method: the merge keeps the fastest of each tier (the best shared width, the fastest HBM
// stream or cudaMemcpy).
std::vector<TierFigure> tier_figures(const BandwidthResult& m) {
  const core::DeviceInfo& dev = m.device;
  std::vector<TierFigure> out;
  for (const TierBandwidth& r : m.tiers) {
    TierFigure f;
    f.tier = summary_tier(r);
    f.bandwidth_gbps = r.gbps;
    f.bandwidth_method = "probe bandwidth: " + r.tier + " (" + r.access + ")";
    if (r.tier == "HBM copy" || r.tier == "cudaMemcpy D2D") f.copy_gbps = r.gbps;
    const auto sized = [&f](double bytes, std::string text) {
      f.size = std::move(text);
      f.size_bytes = bytes;
    };
    if (f.tier == "shared")
      sized(dev.smem_per_sm, kib(static_cast<double>(dev.smem_per_sm)) + "/SM");
    if (f.tier == "L2") sized(dev.l2_bytes, mib(static_cast<double>(dev.l2_bytes)));
    if (f.tier == "HBM")
      sized(static_cast<double>(dev.global_mem_bytes),
            gib(static_cast<double>(dev.global_mem_bytes)));
    if (f.tier == "constant") sized(65536.0, "64 KiB");
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

Result present_bandwidth(const BandwidthResult& m) {
  const core::DeviceInfo& dev = m.device;
  Result result;
  report::Section& sec = result.section;
  sec.id = "bandwidth";
  sec.title = "Bandwidth per tier, every SM busy";
  const double Sd = m.array_bytes;
  const std::size_t l2 = static_cast<std::size_t>(std::max(dev.l2_bytes, 1));
  sec.paragraphs.push_back(
      "Every tier read (or written) by a grid that fills every SM, timed as the median of repeated "
      "launches. Shared memory: each thread reads its own conflict-free words with ld.shared of 4, "
      "8 "
      "or 16 bytes in an unrolled loop, folding them into one word per thread. L1: each block "
      "re-reads "
      "its own 32 KiB chunk with ld.global.ca (at most two blocks per SM, carveout set to the "
      "largest "
      "L1). L2 with ld.global.cg, so nothing is served from L1: each block streams a 512 KiB "
      "chunk of a working set of L2/16, L2/8 or L2/5 once, consecutive blocks taking consecutive "
      "chunks (every SM reads the whole set), and, for comparison, each thread re-reads its own "
      "16-byte words of an L2/8 set. HBM: float4 streams over arrays of " +
      mib(Sd) + " (" + fixed(Sd / static_cast<double>(l2), 0) +
      "x L2): read and write by a resident grid striding over the arrays and by one float4 per "
      "thread with no loop, triad a = b + s*c by the striding grid, copy by one 16 KiB tile per "
      "block (all four loads of a thread before its stores), and "
      "cudaMemcpy device-to-device on the same arrays as the ceiling. Constant: every lane of a "
      "warp reads the same __constant__ word (ld.const), "
      "advancing together through a 1 KiB table.");
  sec.tables.push_back(tiers_table(m));
  sec.tables.push_back(ratio_table(m));
  std::vector<ClaimRow> claims;
  tier_claims(m, claims);
  ceiling_claims(m, claims);
  add_claims(sec, "bandwidth", claims);
  sec.charts.push_back(tiers_chart(m));

  result.tiers = tier_figures(m);
  return result;
}

}  // namespace memhier::probe
