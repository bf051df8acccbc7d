// The global-stride probe's section from its measurement: the table, the chart and the
// claims against the seed's coalescing table. No CUDA.
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/global_stride.hpp"

namespace memhier::probe {
namespace {

using report::Value;

/// "1/N" for a fraction, the form the seed's coalescing table reads in.
std::string one_over(double fraction) {
  return std::isfinite(fraction) && fraction > 0 ? "1/" + fixed(1.0 / fraction, 1) : "n/a";
}

report::Table patterns_table(const GlobalStrideResult& m) {
  report::Table t;
  t.id = "global-stride";
  t.title = "Useful global-memory bandwidth against stride";
  t.caption = "Thread-access i reads element i * stride (4-byte floats) of a " +
              fixed(static_cast<double>(m.buffer_bytes) / (1 << 20), 0) +
              " MiB buffer; useful bytes are the 4 each "
              "access asked for; L2 flushed before every launch.";
  t.columns = {{"pattern", "", "pattern"},
               {"useful bandwidth", "GB/s", "gbps"},
               {"relative to stride 1", "x", "relative"},
               {"model sectors", "per request", "predicted_sectors_per_request"},
               {"model relative", "x", "predicted_relative"}};
  for (const StrideBandwidth& r : m.patterns)
    t.rows.push_back({Value::str(r.pattern), Value::num(r.gbps, 0), Value::num(r.relative, 3),
                      Value::num(r.predicted_sectors_per_request, 1),
                      Value::num(r.predicted_relative, 3)});
  t.notes.push_back(
      "Model: src/model/access.cpp over the kernel's own addresses (global_stride_element), "
      "averaged over the first " +
      std::to_string(m.model_warps) +
      " warps; model relative = "
      "bytes asked for / bytes in the 32-byte sectors fetched, against stride 1.");
  t.notes.push_back("The random gather makes n/" + std::to_string(m.random_share) +
                    " accesses at hashed positions: as many requests as stride 32.");
  if (m.buffer_bytes < 4 * m.l2_bytes)
    t.notes.push_back("Only " + fixed(static_cast<double>(m.buffer_bytes) / (1 << 20), 0) +
                      " MiB could be allocated (< 4x L2): the figures may include L2 hits.");
  return t;
}

report::Chart patterns_chart(const GlobalStrideResult& m) {
  report::Chart chart;
  chart.id = "global-stride";
  chart.title = "Useful bandwidth by access pattern";
  chart.kind = report::Chart::Kind::bar;
  chart.x_label = "pattern";
  chart.y_label = "useful bandwidth";
  chart.y_unit = "GB/s";
  chart.log_y = true;
  report::Series measured, modelled;
  measured.name = "measured";
  modelled.name = "model (stride-1 GB/s x sector efficiency)";
  for (const StrideBandwidth& r : m.patterns) {
    chart.categories.push_back(r.pattern);
    measured.y.push_back(r.gbps);
    modelled.y.push_back(m.patterns.front().gbps * r.predicted_relative);
  }
  chart.series.push_back(std::move(measured));
  chart.series.push_back(std::move(modelled));
  return chart;
}

// Strides 2, 4 and 8 against 1/stride.
void small_stride_claims(const GlobalStrideResult& m, std::vector<ClaimRow>& claims) {
  const double tol = m.tolerance;
  auto rel = [&](std::uint32_t s) {
    const StrideBandwidth* r = m.find(s);
    return r ? r->relative : static_cast<double>(NAN);
  };
  claims.push_back(
      {ClaimId::coalescing_stride_2_half, "stride 2: " + one_over(rel(2)) + " of stride 1",
       judged(rel(2), Claimed::value(0.5, "x"), Tolerance::within_percent(100 * tol))});
  claims.push_back({ClaimId::coalescing_stride_4_8,
                    "stride 4: " + one_over(rel(4)) + "; stride 8: " + one_over(rel(8)),
                    judged_all({{"stride 4", rel(4), Claimed::value(0.25, "x").with_decimals(3),
                                 Tolerance::within_percent(100 * tol)},
                                {"stride 8", rel(8), Claimed::value(0.125, "x").with_decimals(3),
                                 Tolerance::within_percent(100 * tol)}})});
}

// Stride 32, the random gather and stride 1 against the datasheet.
void far_claims(const GlobalStrideResult& m, std::vector<ClaimRow>& claims) {
  const double tol = m.tolerance;
  auto rel = [&](std::uint32_t s) {
    const StrideBandwidth* r = m.find(s);
    return r ? r->relative : static_cast<double>(NAN);
  };
  {
    // 001 counts 128-byte lines (1/32); 32-byte sectors give 1/8: accept the span, with tolerance.
    const double r32 = rel(32);
    claims.push_back({ClaimId::coalescing_stride_32, "stride 32: " + one_over(r32) + " of stride 1",
                      judged(r32, Claimed::range(1.0 / 32, 1.0 / 8, "x"),
                             Tolerance::within_percent(100 * tol))});
  }
  {
    // 001: random ~70 GB/s against ~1,800 coalesced: about 25x below; taken as 12.5x-50x.
    const double rr = rel(0);
    const double below = std::isfinite(rr) && rr > 0 ? 1.0 / rr : NAN;
    claims.push_back(
        {ClaimId::coalescing_random_25x,
         "random: " + fixed(below, 1) + "x below stride 1 (the claim taken as 12.5-50x)",
         judged(below, Claimed::value(25, "x"), claims::band(ClaimId::coalescing_random_25x))});
  }
  {
    const double peak = m.peak_dram_gbps;
    const double g1 = m.patterns.front().gbps;
    if (peak > 0) {
      const double frac = g1 / peak;
      claims.push_back({ClaimId::coalesced_88pct_of_peak,
                        "stride 1: " + fixed(g1, 0) + " GB/s = " + fixed(100 * frac, 0) +
                            "% of the datasheet " + fixed(peak, 0) + " GB/s",
                        judged(100 * frac, Claimed::range(73, 103, "%"),
                               claims::band(ClaimId::coalesced_88pct_of_peak))});
    } else {
      claims.push_back({ClaimId::coalesced_88pct_of_peak, fixed(g1, 0) + " GB/s",
                        not_measurable("the runtime reports no memory clock or bus width")});
    }
  }
}

}  // namespace

const StrideBandwidth* GlobalStrideResult::find(std::uint32_t stride) const {
  for (const StrideBandwidth& r : patterns)
    if (r.stride == stride) return &r;
  return nullptr;
}

Result present_global_stride(const GlobalStrideResult& m) {
  Result result;
  report::Section& sec = result.section;
  sec.id = "global-stride";
  sec.title = "Global-memory coalescing against stride";
  sec.paragraphs.push_back(
      "Every SM busy; thread-access i (lane i mod 32 of warp i / 32) reads the 4-byte element i * "
      "stride "
      "of a buffer of " +
      fixed(static_cast<double>(m.buffer_bytes) / (1 << 20), 0) + " MiB (" +
      fixed(static_cast<double>(m.buffer_bytes) / static_cast<double>(m.l2_bytes), 0) +
      "x L2), so each stride sweeps the "
      "whole buffer with n / stride accesses; the random gather reads hashed positions. The L2 is "
      "flushed "
      "before every launch, so the figures are DRAM's. Useful bandwidth counts only the 4 bytes "
      "each "
      "access asked for; beside it, the coalescing model's 32-byte sectors per warp request for "
      "the same "
      "addresses, from the same index function as the kernel.");
  sec.tables.push_back(patterns_table(m));
  std::vector<ClaimRow> claims;
  small_stride_claims(m, claims);
  far_claims(m, claims);
  add_claims(sec, "global-stride", claims);
  sec.charts.push_back(patterns_chart(m));
  return result;
}

}  // namespace memhier::probe
