// `best` against the vendor over the shapes users run: one row per shape and a chart of the
// paired ratio against shape, so that a shape `best` handles badly shows at a glance.
#include "memhier/bench/sweep_section.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "memhier/report/summary.hpp"

namespace memhier::bench {
namespace {

using report::Value;

std::string verified_text(const results::BenchRecord& r) {
  return !r.declined.empty()       ? "declined: " + r.declined
         : !r.not_measured.empty() ? "not measured: " + r.not_measured
         : r.verified              ? "yes"
                                   : "no";
}

report::Table family_table(const SweepPart& p, const std::string& id) {
  report::Table t;
  t.id = id;
  t.title = p.title + ": best over a sweep of shapes";
  t.columns = {{"shape", "", "shape"},       {"runs", "", "config"},
               {"time", "ms", "ms"},         {"throughput", "GFLOP/s", "gflops"},
               {"x vendor", "", "x_vendor"}, {"verified", "", "verified"}};
  for (const results::BenchRecord& r : p.records) {
    if (r.variant != "best") continue;
    t.rows.push_back(
        {Value::str(r.shape), r.config.empty() ? Value::none() : Value::str(r.config),
         Value::num_or_none(r.ms, 4), Value::num_or_none(r.gflops, 0),
         Value::median_or_none(r.x_vendor, r.x_vendor_spread.p10, r.x_vendor_spread.p90, 2),
         Value::str(verified_text(r))});
  }
  return t;
}

// "geometric mean 0.976 x cublasGemmEx; the lowest 0.630 at 16x8192x8192", or why none.
std::string figures_text(const claims::SweepSummary& s) {
  const std::string against = s.vendor.empty() ? "the vendor library" : s.vendor;
  if (s.counted == 0) return "no shape was measured against " + against;
  return report::strf(
      "over the %zu shapes measured here: geometric mean %.3f x %s; the lowest "
      "%.3f at %s",
      s.counted, s.geomean, against.c_str(), s.lowest, s.lowest_shape.c_str());
}

}  // namespace

std::vector<claims::SweepSummary> sweep_summaries(const std::vector<SweepPart>& parts) {
  std::vector<claims::SweepSummary> out;
  for (const SweepPart& p : parts)
    out.push_back(claims::summarize_sweep(
        p.family, p.shapes, p.failed ? std::vector<results::BenchRecord>{} : p.records));
  return out;
}

report::Section sweep_section(const std::vector<SweepPart>& parts) {
  report::Section s;
  const bool one = parts.size() == 1;
  s.id = one ? "sweep-" + parts.front().family : "sweep";
  s.title = one ? parts.front().title + ": best over a sweep of shapes"
                : "Best against the vendor over a sweep of shapes";
  report::Chart c;
  c.id = s.id + "-chart";
  c.title = one ? parts.front().title + ": best's time against the vendor's, by shape"
                : "best's time against the vendor's, by shape (above 1: best is faster)";
  c.kind = report::Chart::Kind::bar;
  c.x_label = "shape";
  c.y_label = "vendor's time / best's time";
  c.y_rule = 1.0;
  // The shapes any family ran, in the order they first appear: one category each.
  std::vector<std::string> shapes;
  for (const SweepPart& p : parts)
    for (const results::BenchRecord& r : p.records)
      if (r.variant == "best" && std::find(shapes.begin(), shapes.end(), r.shape) == shapes.end())
        shapes.push_back(r.shape);
  for (const std::string& shape : shapes) c.categories.push_back(report::short_shape(shape));
  std::string vendors, figures;
  const std::vector<claims::SweepSummary> summaries = sweep_summaries(parts);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const SweepPart& p = parts[i];
    if (p.failed) {
      figures += (figures.empty() ? "" : " ") + p.family + ": " +
                 (p.failed->paragraphs.empty() ? std::string("not measured.")
                                               : p.failed->paragraphs.front());
      continue;
    }
    const claims::SweepSummary& sum = summaries[i];
    const std::string vendor = sum.vendor.empty() ? "the vendor library" : sum.vendor;
    vendors += (vendors.empty() ? "" : ", ") + (one ? vendor : p.family + ": " + vendor);
    const std::string text = figures_text(sum);
    if (one) {
      figures = text;
      figures[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(figures[0])));
      figures += ".";
    } else {
      figures += (figures.empty() ? "" : " ") + p.family + ": " + text + ".";
    }
    report::Series ratio{one ? "x vendor" : p.family + " (x " + vendor + ")",
                         {},
                         std::vector<double>(shapes.size(), NAN)};
    for (const results::BenchRecord& r : p.records) {
      if (!claims::counts_in_sweep(r)) continue;  // no bar where the text counts no ratio
      const auto at = std::find(shapes.begin(), shapes.end(), r.shape) - shapes.begin();
      ratio.y[static_cast<std::size_t>(at)] = r.x_vendor;
    }
    c.series.push_back(std::move(ratio));
    s.tables.push_back(family_table(p, "sweep-" + p.family));
  }
  // One family names its vendor; several, each its own.
  const std::string against = vendors.empty() ? "the vendor library"
                              : one           ? vendors
                                              : "its family's vendor library (" + vendors + ")";
  s.paragraphs.push_back(
      "At each shape `best` decides its configuration for this card (from the tuning cache, or "
      "by timing its candidates first) and is then verified and timed paired against " +
      against +
      ", the way the ladder times its rungs; x vendor is the median of the paired ratios (the "
      "vendor's time over best's; above 1: faster), with their 10th-90th percentiles in "
      "brackets.");
  s.paragraphs.push_back(figures);
  if (!c.series.empty()) s.charts.push_back(std::move(c));
  return s;
}

}  // namespace memhier::bench
