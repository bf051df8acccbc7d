// The layout probe's section from its measurement: the table, the chart and the claims
// judged against the speedups. No CUDA.
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/layout.hpp"

namespace memhier::probe {
namespace {

using report::Value;

report::Table rows_table(const LayoutResult& m) {
  report::Table t;
  t.id = "layout";
  t.title = "Layout experiments";
  t.columns = {{"experiment", "", "experiment"},
               {"variant", "", "variant"},
               {"what", "", "description"},
               {"time", "ms", "ms"},
               {"useful bandwidth", "GB/s", "gbps"},
               {"relative speed", "x", "relative"},
               {"load sectors/request (model)", "", "sectors_per_request"},
               {"relative (model)", "x", "predicted"}};
  for (const LayoutRow& v : m.rows)
    t.rows.push_back({Value::str(v.experiment), Value::str(v.variant), Value::str(v.description),
                      Value::num(v.ms, 4), Value::num(v.gbps, 0), Value::num(v.relative, 2),
                      Value::num(v.sectors_per_request, 1), Value::num(v.predicted, 2)});
  t.notes.push_back(
      "AoS: struct {x, y, z, vx, vy, vz, m, pad} (32 bytes); SoA: seven float arrays. "
      "Useful bytes: 12 per updated coordinate (read x and vx, write x).");
  t.notes.push_back(
      "struct12: useful bytes are 12 read + 4 written per struct for all three variants; "
      "the padded variant moves 16 bytes to use 12.");
  t.notes.push_back("copy-width and alignment: bytes read + written.");
  t.notes.push_back(
      "A float4 load from base + 4 bytes is not run: a 16-byte access must be 16-byte "
      "aligned, and the misaligned-address fault would poison the CUDA context. A "
      "float4 kernel on a misaligned base must peel scalars first (float4-peeled).");
  return t;
}

report::Chart rows_chart(const LayoutResult& m) {
  report::Chart chart;
  chart.id = "layout-gbps";
  chart.title = "Useful bandwidth by layout";
  chart.kind = report::Chart::Kind::bar;
  chart.x_label = "experiment / variant";
  chart.y_label = "useful bandwidth";
  chart.y_unit = "GB/s";
  report::Series series;
  series.name = "useful GB/s";
  for (const LayoutRow& v : m.rows) {
    chart.categories.push_back(v.experiment + "/" + v.variant);
    series.y.push_back(v.gbps);
  }
  chart.series.push_back(std::move(series));
  return chart;
}

// The measured relative speed of (experiment, variant); NaN when absent.
double speed(const LayoutResult& m, const std::string& exp, const std::string& var) {
  const LayoutRow* v = m.find(exp, var);
  return v ? v->relative : NAN;
}

// The model's relative speed of (experiment, variant); NaN when absent.
double model_rel(const LayoutResult& m, const std::string& exp, const std::string& var) {
  const LayoutRow* v = m.find(exp, var);
  return v ? v->predicted : NAN;
}

// AoS against SoA: the speedup of the x-only kernel and the bytes AoS wastes.
void aos_claims(const LayoutResult& m, std::vector<ClaimRow>& claims) {
  {
    const double sx = speed(m, "aos-soa-x", "soa");
    claims.push_back({ClaimId::aos_soa_4x,
                      strf("SoA/AoS speed %.2fx for x += vx*dt (model %.2fx for a 32-byte struct)",
                           sx, model_rel(m, "aos-soa-x", "soa")),
                      judged(sx, Claimed::value(4, "x"), claims::band(ClaimId::aos_soa_4x),
                             "the timing failed")});
  }
  const LayoutRow* aos = m.find("aos-soa-xyz", "aos");
  const LayoutRow* soa = m.find("aos-soa-xyz", "soa");
  const double waste = (aos && soa) ? 1.0 - aos->gbps / soa->gbps : NAN;
  claims.push_back(
      {ClaimId::aos_wastes_50_75pct,
       strf("x,y,z update: AoS reaches %.0f useful GB/s, SoA %.0f: %.0f%% wasted (model: "
            "%.0f%%)",
            aos ? aos->gbps : NAN, soa ? soa->gbps : NAN, 100 * waste,
            100 * (1 - 1 / model_rel(m, "aos-soa-xyz", "soa"))),
       // 50-75% wasted, taken as 40-85%.
       judged(100 * waste, Claimed::range(40, 85, "% wasted"),
              claims::band(ClaimId::aos_wastes_50_75pct), "the timing failed")});
}

// The 12-byte struct, the load width and the alignment speedups.
void width_claims(const LayoutResult& m, std::vector<ClaimRow>& claims) {
  {
    const double s3 = speed(m, "struct12", "soa3");
    claims.push_back(
        {ClaimId::struct12_3x_bytes,
         strf("SoA/struct speed %.2fx (model: %.1f sectors per request for the struct "
              "against %.1f for SoA; %.2fx once the L1 keeps the lines between the loads)",
              s3, m.find("struct12", "struct12")->sectors_per_request,
              m.find("struct12", "soa3")->sectors_per_request, model_rel(m, "struct12", "soa3")),
         judged(s3, Claimed::range(2.0, 4.5, "x"), claims::band(ClaimId::struct12_3x_bytes),
                "the timing failed")});
  }
  {
    const double s4 = speed(m, "copy-width", "float4");
    claims.push_back({ClaimId::float4_1_25x,
                      strf("float4/float copy speed %.2fx (float2 %.2fx; model %.2fx)", s4,
                           speed(m, "copy-width", "float2"), model_rel(m, "copy-width", "float4")),
                      judged(s4, Claimed::value(1.25, "x"), claims::band(ClaimId::float4_1_25x),
                             "the timing failed")});
  }
  {
    const LayoutRow* mis = m.find("alignment", "misaligned");
    const double sa = mis ? 1.0 / mis->relative : NAN;  // aligned over misaligned
    claims.push_back(
        {ClaimId::alignment_1_25x,
         strf("aligned/misaligned float copy speed %.2fx (model %.2fx; %.1f against %.1f sectors "
              "per request)",
              sa, mis ? 1.0 / mis->predicted : NAN, mis ? mis->sectors_per_request : NAN,
              m.find("alignment", "aligned")->sectors_per_request),
         judged(sa, Claimed::range(1.10, 1.45, "x"), claims::band(ClaimId::alignment_1_25x),
                "the timing failed")});
  }
}

}  // namespace

const LayoutRow* LayoutResult::find(const std::string& experiment,
                                    const std::string& variant) const {
  for (const LayoutRow& r : rows)
    if (r.experiment == experiment && r.variant == variant) return &r;
  return nullptr;
}

Result present_layout(const LayoutResult& m) {
  Result result;
  report::Section& s = result.section;
  s.id = "layout";
  s.title = "Data layout: AoS and SoA, 12-byte structs, load width, alignment";
  const double mib = static_cast<double>(std::size_t(1) << 20);
  const double l2 = static_cast<double>(m.l2_bytes);
  s.paragraphs.push_back(strf(
      "Each kernel runs over buffers of %.0f MiB (%.1fx the %.0f MiB L2), so DRAM serves every "
      "figure. "
      "One item per thread, as GPU Memory Hierarchy writes these kernels; time is the median of "
      "CUDA-event "
      "repetitions. GB/s counts useful bytes only (the bytes the computation reads and writes, "
      "counted "
      "the same way for every variant of an experiment), so a layout that drags unused bytes "
      "through DRAM shows up as lower GB/s. 'relative' is the speed against the experiment's first "
      "row; 'model' is what the sector model predicts for a DRAM-bound kernel, from the distinct "
      "32-byte sectors a 256-thread block touches (model::global_cost over the kernel's own index "
      "functions).",
      static_cast<double>(m.buffer_bytes) / mib, static_cast<double>(m.buffer_bytes) / l2,
      l2 / mib));
  s.tables.push_back(rows_table(m));
  std::vector<ClaimRow> claims;
  aos_claims(m, claims);
  width_claims(m, claims);
  add_claims(s, "layout", claims);
  s.tables.back().notes.push_back(
      "Verdicts: a claimed speedup is reproduced when the measured speedup lies in the band the "
      "verdict states, and refuted outside it.");
  s.charts.push_back(rows_chart(m));
  return result;
}

}  // namespace memhier::probe
