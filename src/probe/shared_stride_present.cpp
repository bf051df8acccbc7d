// The shared-stride probe's section from its measurement: the table, the chart and the
// claims judged against the bank model. No CUDA.
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/shared_stride.hpp"

namespace memhier::probe {
namespace {

using report::Value;

/// Within +-tol (relative) of the prediction.
bool within(double measured, double predicted, double tol) {
  return std::isfinite(measured) && predicted > 0 && measured >= predicted * (1 - tol) &&
         measured <= predicted * (1 + tol);
}

// "+-35%": the tolerance as the claims state it.
std::string tolerance_text(const SharedStrideResult& m) {
  return "+-" + std::to_string(static_cast<int>(m.tolerance * 100)) + "%";
}

std::string slow_text(const StridePoint* r) {
  return r ? "stride " + std::to_string(r->stride) + ": " + fixed(r->slowdown, 1) + "x (model " +
                 fixed(r->predicted_slowdown, 0) + "x)"
           : std::string("n/a");
}

report::Table points_table(const SharedStrideResult& m) {
  report::Table t;
  t.id = "shared-stride";
  t.title = "Shared-memory bandwidth against stride";
  t.caption =
      "Lane l reads element (base + l * stride) mod " + std::to_string(m.elements) +
      " of the access width; slowdown is time per load over the stride-1 time of the same width.";
  t.columns = {{"stride", "elements", "stride"},
               {"width", "B", "width_bytes"},
               {"bandwidth", "GB/s", "gbps"},
               {"slowdown", "x", "slowdown"},
               {"model wavefronts", "per instruction", "predicted_wavefronts"},
               {"model slowdown", "x", "predicted_slowdown"},
               {"model degree", "way", "predicted_degree"}};
  for (const StridePoint& r : m.points)
    t.rows.push_back({Value::integer(r.stride), Value::integer(r.width), Value::num(r.gbps, 0),
                      Value::num(r.slowdown, 2), Value::num(r.predicted_wavefronts, 1),
                      Value::num(r.predicted_slowdown, 2), Value::integer(r.predicted_degree)});
  t.notes.push_back(
      "Model: src/model/access.cpp over the kernel's own addresses (shared_stride_element): "
      "4-byte accesses in one phase, 8-byte in two half-warp phases, 16-byte in four "
      "quarter-warp phases; degree = worst distinct words one bank serves in a phase.");
  t.notes.push_back(
      "Bandwidth counts the bytes the lanes asked for (loads x width), every SM busy.");
  return t;
}

report::Chart slowdown_chart(const SharedStrideResult& m) {
  report::Chart chart;
  chart.id = "shared-stride";
  chart.title = "Slowdown against stride (measured and bank model)";
  chart.kind = report::Chart::Kind::line;
  chart.x_label = "stride";
  chart.x_unit = "elements";
  chart.y_label = "slowdown";
  chart.y_unit = "x";
  chart.log_y = true;
  for (int width : {4, 8, 16}) {
    report::Series measured, model_series;
    measured.name = std::to_string(width) + " B measured";
    model_series.name = std::to_string(width) + " B model";
    for (const StridePoint& r : m.points) {
      if (r.width != width) continue;
      measured.x.push_back(r.stride);
      measured.y.push_back(r.slowdown);
      model_series.x.push_back(r.stride);
      model_series.y.push_back(r.predicted_slowdown);
    }
    chart.series.push_back(std::move(measured));
    chart.series.push_back(std::move(model_series));
  }
  return chart;
}

// 4-byte words: every stride against gcd(s, 32).
void word_claims(const SharedStrideResult& m, std::vector<ClaimRow>& claims) {
  const std::string tol_text = tolerance_text(m);
  {
    // Every 4-byte stride against gcd(s, 32) (the model's wavefronts for 4-byte words).
    std::vector<Figure> figures;
    int n = 0, in = 0;
    for (const StridePoint& r : m.points) {
      if (r.width != 4) continue;
      ++n;
      in += within(r.slowdown, r.predicted_slowdown, m.tolerance);
      figures.push_back({"stride " + std::to_string(r.stride), r.slowdown,
                         Claimed::value(r.predicted_slowdown, "x"),
                         Tolerance::within_percent(100 * m.tolerance)});
    }
    claims.push_back({ClaimId::bank_degree_gcd,
                      std::to_string(in) + " of " + std::to_string(n) + " strides within " +
                          tol_text + " of gcd(s, 32)",
                      judged_all(figures)});
  }
}

// Stride 32 and 33, strides 2, 4, 8, and the model's rules for wider accesses.
void stride_claims(const SharedStrideResult& m, std::vector<ClaimRow>& claims) {
  const std::string tol_text = tolerance_text(m);
  {
    const StridePoint* r32 = m.find(4, 32);
    claims.push_back({ClaimId::bank_stride_32_serializes, slow_text(r32),
                      judged(r32 ? r32->slowdown : NAN, Claimed::value(32, "x"),
                             Tolerance::within_percent(100 * m.tolerance))});
    const StridePoint* r33 = m.find(4, 33);
    claims.push_back({ClaimId::bank_stride_33_free, slow_text(r33),
                      judged(r33 ? r33->slowdown : NAN, Claimed::value(1, "x"),
                             Tolerance::within_percent(100 * m.tolerance))});
  }
  {
    std::string measured;
    std::vector<Figure> figures;
    for (std::uint32_t s : {2u, 4u, 8u}) {
      const StridePoint* r = m.find(4, s);
      measured += (measured.empty() ? "" : "; ") + slow_text(r);
      figures.push_back({"stride " + std::to_string(s), r ? r->slowdown : NAN,
                         Claimed::value(s, "x"), Tolerance::within_percent(100 * m.tolerance)});
    }
    claims.push_back({ClaimId::bank_stride_2_4_8, measured, judged_all(figures)});
  }
  {
    // The model's rules for wider accesses (half- and quarter-warp phases), checked here too.
    std::vector<Figure> figures;
    int n = 0, in = 0;
    for (const StridePoint& r : m.points) {
      if (r.width == 4) continue;
      ++n;
      in += within(r.slowdown, r.predicted_slowdown, m.tolerance);
      figures.push_back({std::to_string(r.width) + " B stride " + std::to_string(r.stride),
                         r.slowdown, Claimed::value(r.predicted_slowdown, "x"),
                         Tolerance::within_percent(100 * m.tolerance)});
    }
    claims.push_back({ClaimId::memhier_wide_access_phases,
                      std::to_string(in) + " of " + std::to_string(n) +
                          " (width, stride) pairs within " + tol_text,
                      judged_all(figures)});
  }
}

}  // namespace

const StridePoint* SharedStrideResult::find(int width, std::uint32_t stride) const {
  for (const StridePoint& r : points)
    if (r.width == width && r.stride == stride) return &r;
  return nullptr;
}

Result present_shared_stride(const SharedStrideResult& m) {
  Result result;
  report::Section& sec = result.section;
  sec.id = "shared-stride";
  sec.title = "Shared-memory bank conflicts against stride";
  sec.paragraphs.push_back(
      "Every SM busy with blocks of " + std::to_string(m.block_threads) +
      " threads; lane l of every warp "
      "reads element (base + l * stride) mod " +
      std::to_string(m.elements) +
      " of a shared array with "
      "4-, 8- or 16-byte ld.volatile.shared loads, " +
      std::to_string(m.loads_per_pass) +
      " loads per pass "
      "from bases " +
      std::to_string(m.base_step) +
      " elements apart, folded into one word per thread. "
      "The slowdown is the time per load against stride 1 at the same width; beside it, the bank "
      "model's "
      "wavefronts for the same addresses, computed by the same index function as the kernel.");
  sec.tables.push_back(points_table(m));
  std::vector<ClaimRow> claims;
  word_claims(m, claims);
  stride_claims(m, claims);
  add_claims(sec, "shared-stride", claims);
  sec.charts.push_back(slowdown_chart(m));
  return result;
}

}  // namespace memhier::probe
