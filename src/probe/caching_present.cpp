// The caching probe's section from its measurement: the table, the chart and the claims
// judged against the speedups. No CUDA.
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/caching.hpp"

namespace memhier::probe {
namespace {

using report::Value;

std::string paragraph(const CachingResult& m) {
  const double mib = static_cast<double>(std::size_t(1) << 20);
  return strf(
      "Cache operators by inline PTX (ld.global.ca: L1 and L2; .cg: L2 only; .cs: evict-first "
      "streaming; .nc: the read-only/texture path, as __ldg). reuse: %u blocks (every SM full) "
      "each "
      "re-read a private %d KiB window %d times (%.1f MiB in all; the L2 holds %.0f MiB), so .ca "
      "can "
      "hit in L1 and .cg must go to L2; GB/s counts every byte delivered. stream: one pass over "
      "%.0f MiB "
      "(%.1fx the L2). scatter: %d random 4-byte words per thread over the same buffer; GB/s "
      "counts "
      "the 4 useful bytes per load. stencil-5x5: a 5x5 box average over a %dx%d float image "
      "through "
      "a texture object (cudaArray, point filtering, clamp) against the same sum in the same order "
      "on plain global loads with clamped indices; GB/s counts each input and output pixel once, "
      "and "
      "the two outputs are compared pixel by pixel before timing.",
      m.grid, m.window_bytes / 1024, m.reps, static_cast<double>(m.grid) * m.window_bytes / mib,
      static_cast<double>(m.l2_bytes) / mib, static_cast<double>(m.buffer_bytes) / mib,
      static_cast<double>(m.buffer_bytes) / static_cast<double>(m.l2_bytes), m.scatter_per_thread,
      m.image_side, m.image_side);
}

report::Table rows_table(const CachingResult& m) {
  report::Table t;
  t.id = "caching";
  t.title = "Cache operators and texture against global";
  t.columns = {{"experiment", "", "experiment"},
               {"variant", "", "variant"},
               {"time", "ms", "ms"},
               {"bandwidth", "GB/s", "gbps"},
               {"relative speed", "x", "relative"},
               {"sectors/request (model)", "", "sectors_per_request"},
               {"max relative difference", "", "max_rel_diff"}};
  for (const CachingRow& r : m.rows)
    t.rows.push_back(
        {Value::str(r.experiment), Value::str(r.variant), Value::num(r.ms, 4),
         Value::num(r.gbps, 0), Value::num(r.relative, 2),
         std::isnan(r.sectors_per_request) ? Value::none() : Value::num(r.sectors_per_request, 1),
         r.variant == "texture" ? Value::num(r.max_rel_diff, 8) : Value::none()});
  t.notes.push_back("relative speed: the experiment's first row's time over this row's time.");
  t.notes.push_back(
      "max_rel_diff: max |texture - global| / |global| over every pixel (inputs in [1, 2)); "
      "NaN would mean a pixel was left unwritten.");
  return t;
}

report::Chart rows_chart(const CachingResult& m) {
  report::Chart chart;
  chart.id = "caching-gbps";
  chart.title = "Bandwidth by cache operator and pattern";
  chart.kind = report::Chart::Kind::bar;
  chart.x_label = "experiment / variant";
  chart.y_label = "bandwidth";
  chart.y_unit = "GB/s";
  chart.log_y = true;  // scatter is an order of magnitude below reuse
  report::Series series;
  series.name = "GB/s";
  for (const CachingRow& r : m.rows) {
    chart.categories.push_back(r.experiment + "/" + r.variant);
    series.y.push_back(r.gbps);
  }
  chart.series.push_back(std::move(series));
  return chart;
}

// A speedup claim reproduces at or above the floor its catalogue band states.
Judgement verdict(double speedup, ClaimId id) {
  const Tolerance& floor = claims::band(id);
  return judged(speedup, Claimed::value(floor.amount, "x"), floor, "the timing failed");
}

std::vector<ClaimRow> caching_claims(const CachingResult& m) {
  std::vector<ClaimRow> claims;
  {
    const double sp = m.ms_of("reuse", "ld.cg") / m.ms_of("reuse", "ld.ca");
    claims.push_back({ClaimId::caching_loads_win_on_hits,
                      strf("reuse window: ld.ca %.2fx the speed of ld.cg", sp),
                      verdict(sp, ClaimId::caching_loads_win_on_hits)});
  }
  {
    const double sp = m.ms_of("scatter", "ld.ca") / m.ms_of("scatter", "ld.cg");
    claims.push_back({ClaimId::noncaching_loads_win_on_scatter,
                      strf("scatter: ld.cg %.2fx the speed of ld.ca (model, by the rules of CS 380 "
                           "Lecture 15: CUDA "
                           "Memories, Pt. 2: %.1f%% utilization with "
                           "128-byte lines, %.1f%% with 32-byte sectors)",
                           sp, 100 * m.util_caching, 100 * m.util_noncaching),
                      verdict(sp, ClaimId::noncaching_loads_win_on_scatter)});
  }
  {
    const double sp = m.ms_of("scatter", "ld.ca") / m.ms_of("scatter", "ld.nc");
    claims.push_back({ClaimId::readonly_cache_scatter,
                      strf("scatter: ld.nc %.2fx the speed of ld.ca", sp),
                      verdict(sp, ClaimId::readonly_cache_scatter)});
  }
  {
    const double sp = m.ms_of("stream", "ld.ca") / m.ms_of("stream", "ld.cs");
    // No more than 10% slower than .ca: at least 1/1.1 of its speed.
    claims.push_back({ClaimId::ld_cs_streaming, strf("stream: ld.cs %.2fx the speed of ld.ca", sp),
                      verdict(sp, ClaimId::ld_cs_streaming)});
  }
  {
    const double sp = m.ms_of("stencil-5x5", "global") / m.ms_of("stencil-5x5", "texture");
    claims.push_back(
        {ClaimId::texture_2d_locality,
         strf("5x5 box filter: texture %.2fx the speed of global loads; outputs agree to %.1e", sp,
              m.max_rel_diff),
         verdict(sp, ClaimId::texture_2d_locality)});
  }
  return claims;
}

}  // namespace

double CachingResult::ms_of(const std::string& experiment, const std::string& variant) const {
  for (const CachingRow& r : rows)
    if (r.experiment == experiment && r.variant == variant) return r.ms;
  return NAN;
}

Result present_caching(const CachingResult& m) {
  Result result;
  report::Section& s = result.section;
  s.id = "caching";
  s.title = "Cache operators and the texture path";
  s.paragraphs.push_back(paragraph(m));
  s.tables.push_back(rows_table(m));
  add_claims(s, "caching", caching_claims(m));
  s.charts.push_back(rows_chart(m));
  return result;
}

}  // namespace memhier::probe
