// The roofline section: ceilings from the tiers and the fastest GEMMs, points from records.
#include "memhier/report/roofline.hpp"

#include <algorithm>
#include <map>

#include "common.hpp"

namespace memhier::report {

namespace {

bool timed(const results::BenchRecord& r) {
  return !r.ceiling && r.reference.empty() && r.verified && r.declined.empty() &&
         std::isfinite(r.ms) && std::isfinite(r.gflops) && r.gflops > 0 && std::isfinite(r.gbps) &&
         r.gbps > 0;
}

bool compute_bound(const results::BenchRecord& r) {
  return r.bound == results::Bound::compute;
}

bool bf16(const results::BenchRecord& r) {
  return r.number_type == model::NumberType::bf16;
}

// A TF32 line is a reference for the fp32 ladder, not an fp32 result: it never sets a peak.
bool tf32(const results::BenchRecord& r) {
  return r.variant.find("tf32") != std::string::npos;
}

double flops_of(const results::BenchRecord& r) {
  return r.gflops * r.ms * 1e6;
}

RooflinePoint point(const results::BenchRecord& r, const std::string& group) {
  RooflinePoint p;
  p.family = r.family;
  p.variant = r.variant;
  p.shape = r.shape;
  p.group = group;
  p.number_type = r.number_type;
  p.intensity = r.gflops / r.gbps;  // (flops / t) / (bytes / t)
  p.gflops = r.gflops;
  return p;
}

// x values with NaN between them: the chart draws markers and no line between points.
Series scatter(const std::string& name, const std::vector<RooflinePoint>& pts,
               const std::string& group) {
  Series s;
  s.name = name;
  for (const RooflinePoint& p : pts) {
    if (p.group != group) continue;
    if (!s.x.empty()) {
      s.x.push_back(NAN);
      s.y.push_back(NAN);
    }
    s.x.push_back(p.intensity);
    s.y.push_back(p.gflops);
  }
  return s;
}

}  // namespace

Roofline roofline(const SummaryInput& in) {
  Roofline r;
  for (const SummaryTier& t : in.tiers) {
    if (t.tier == "HBM") r.hbm_gbps = t.bandwidth_gbps;
    if (t.tier == "L2") r.l2_gbps = t.bandwidth_gbps;
  }
  // Each GEMM (family, variant) at its largest problem; the fastest of each type is its peak.
  std::map<std::pair<std::string, std::string>, const results::BenchRecord*> largest;
  for (const results::BenchRecord& b : in.records) {
    if (!compute_bound(b) || !timed(b)) continue;
    const results::BenchRecord*& slot = largest[{b.family, b.variant}];
    if (!slot || flops_of(b) > flops_of(*slot)) slot = &b;
    if (!b.sets_peak) continue;
    double& peak = bf16(b) ? r.bf16_peak_gflops : r.fp32_peak_gflops;
    std::string& from = bf16(b) ? r.bf16_peak_from : r.fp32_peak_from;
    if (!tf32(b) && !(b.gflops <= peak)) {
      peak = b.gflops;
      from = b.family + " " + b.variant + " at " + b.shape;
    }
  }
  for (const results::BenchRecord& b : in.records) {  // record order: the ladders' order
    if (!compute_bound(b) || largest[{b.family, b.variant}] != &b || tf32(b)) continue;
    const std::string group = b.rung == 0      ? "vendor library"
                              : !b.sets_peak ? "other compute-bound"
                              : bf16(b)      ? "bf16 GEMM"
                                             : "fp32 GEMM";
    r.points.push_back(point(b, group));
  }
  for (const LadderBest& best : ladder_bests(in.records)) {
    const results::BenchRecord* pick = nullptr;
    for (const results::BenchRecord& b : in.records)
      if (b.family == best.family && b.variant == best.variant && timed(b) &&
          (!pick || flops_of(b) > flops_of(*pick)))
        pick = &b;
    // Memory-bound by the family's fact; at its intensity the measured peak may still be
    // the lower roof (a wide stencil), which the points table says as "lower roof here".
    if (pick && !compute_bound(*pick)) r.points.push_back(point(*pick, "other ladder's best"));
  }
  for (RooflinePoint& p : r.points) {
    const double peak = r.peak_gflops(p.number_type);
    p.roof_gflops = std::min(r.hbm_gbps * p.intensity, peak);
  }
  return r;
}

Section roofline_section(const Roofline& r) {
  Section s;
  s.id = "roofline";
  s.title = "Roofline of this card";
  s.paragraphs.push_back(
      "A kernel's speed is bounded by the lower of two roofs: the bandwidth of the tier its "
      "bytes come from times its arithmetic intensity (FLOP per byte of the fewest bytes its "
      "problem must move), and the peak of its number type. Both roofs here are this run's "
      "measurements: HBM and L2 from the probes' tier figures, the fp32 and bf16 peaks from the "
      "fastest verified GEMM of each type (a rung or the vendor library). Where a kernel sits "
      "far below its roof it wastes the tier it is bound by; a GEMM right of the ridge is "
      "compute bound, everything left of it is bound by memory.");
  if (!std::isfinite(r.hbm_gbps) || r.points.empty()) {
    s.paragraphs.push_back(
        "Not drawn: this run measured " +
        std::string(!std::isfinite(r.hbm_gbps) ? "no HBM bandwidth" : "no kernel with flops") +
        ".");
    return s;
  }

  Table ceil;
  ceil.id = "roofline-ceilings";
  ceil.title = "The roofs";
  ceil.columns = {{"ceiling", "", ""}, {"value", "", ""}, {"from", "", ""}};
  const auto row = [&ceil](const std::string& name, double v, int prec, const std::string& unit,
                           const std::string& from) {
    if (!std::isfinite(v)) return;
    ceil.rows.push_back({Value::str(name), Value::str(detail::format_fixed(v, prec) + " " + unit),
                         Value::str(from)});
  };
  row("HBM bandwidth", r.hbm_gbps, 0, "GB/s", "the probes' HBM tier (tier table)");
  row("L2 bandwidth", r.l2_gbps, 0, "GB/s", "the probes' L2 tier (tier table)");
  row("fp32 measured peak", r.fp32_peak_gflops / 1000.0, 1, "TFLOP/s", r.fp32_peak_from);
  row("bf16 measured peak", r.bf16_peak_gflops / 1000.0, 1, "TFLOP/s", r.bf16_peak_from);
  row("ridge, fp32 (measured peak / HBM)", r.ridge_fp32(), 1, "FLOP/byte", "");
  row("ridge, bf16 (measured peak / HBM)", r.ridge_bf16(), 1, "FLOP/byte", "");

  Table pts;
  pts.id = "roofline-points";
  pts.title = "Kernels on the roofline";
  pts.columns = {{"kernel", "", ""},
                 {"shape", "", ""},
                 {"group", "", ""},
                 {"intensity", "FLOP/B", "intensity"},
                 {"measured", "GFLOP/s", ""},
                 {"roof", "GFLOP/s", ""},
                 {"of roof", "%", "pct_roof"},
                 {"lower roof here", "", "bound_by"}};
  double lo = INFINITY, hi = 0;
  for (const RooflinePoint& p : r.points) {
    lo = std::min(lo, p.intensity);
    hi = std::max(hi, p.intensity);
    const double peak = r.peak_gflops(p.number_type);
    pts.rows.push_back({Value::str(p.family + " " + p.variant), Value::str(p.shape),
                        Value::str(p.group), Value::num(p.intensity, 2), Value::num(p.gflops, 0),
                        Value::num_or_none(p.roof_gflops, 0),
                        Value::num_or_none(100.0 * p.gflops / p.roof_gflops, 1),
                        Value::str(r.hbm_gbps * p.intensity < peak ? "HBM bandwidth"
                                                                    : "measured peak")});
  }

  Chart c;
  c.id = "roofline-chart";
  c.title = "Roofline: measured roofs and every kernel with flops";
  c.x_label = "arithmetic intensity";
  c.x_unit = "FLOP/byte";
  c.y_label = "throughput";
  c.y_unit = "GFLOP/s";
  c.log_x = c.log_y = true;
  const double top = std::isfinite(r.bf16_peak_gflops)
                         ? std::max(r.bf16_peak_gflops, r.fp32_peak_gflops)
                         : r.fp32_peak_gflops;
  lo = std::min(lo / 2, 0.05);
  hi = std::max(hi * 2, std::isfinite(top) ? 4 * top / r.hbm_gbps : hi * 2);
  const auto roof = [&](const std::string& name, double gbps) {
    if (!std::isfinite(gbps)) return;
    const double knee = std::isfinite(top) ? top / gbps : hi;
    c.series.push_back({name, {lo, std::min(knee, hi)}, {gbps * lo, gbps * std::min(knee, hi)}});
  };
  const auto peak = [&](const std::string& name, double gflops) {
    if (!std::isfinite(gflops)) return;
    c.series.push_back({name, {gflops / r.hbm_gbps, hi}, {gflops, gflops}});
  };
  roof("HBM roof", r.hbm_gbps);
  roof("L2 roof", r.l2_gbps);
  peak("fp32 measured peak", r.fp32_peak_gflops);
  peak("bf16 measured peak", r.bf16_peak_gflops);
  for (const char* g : {"fp32 GEMM", "bf16 GEMM", "other compute-bound", "vendor library",
                        "other ladder's best"}) {
    Series sc = scatter(g, r.points, g);
    if (!sc.x.empty()) c.series.push_back(std::move(sc));
  }
  s.charts.push_back(std::move(c));
  s.tables.push_back(std::move(ceil));
  s.tables.push_back(std::move(pts));
  return s;
}

}  // namespace memhier::report
