// `best` against the vendor over the shapes users run: one row per shape and a chart of the
// paired ratio against shape, so that a shape `best` handles badly shows at a glance.
#include <cmath>

#include "memhier/bench/kernel_bench.hpp"
#include "memhier/report/summary.hpp"

namespace memhier::bench {

report::Section sweep_section(const registry::Family& family,
                              const std::vector<registry::BenchRecord>& records) {
  using report::Value;
  report::Section s;
  s.id = "sweep-" + family.name;
  s.title = family.title + ": best over a sweep of shapes";
  std::string vendor;
  for (const registry::BenchRecord& r : records)
    if (vendor.empty() && r.variant != "best" && r.rung == 0 && !r.ceiling && r.reference.empty())
      vendor = r.variant;
  report::Table t;
  t.id = "sweep-" + family.name;
  t.title = s.title;
  t.columns = {{"shape", "", "shape"},          {"runs", "", "config"},
               {"time", "ms", "ms"},            {"throughput", "GFLOP/s", "gflops"},
               {"x vendor", "", "x_vendor"},    {"verified", "", "verified"}};
  report::Chart c;
  c.id = "sweep-" + family.name + "-chart";
  c.title = family.title + ": best's time against the vendor's, by shape";
  c.kind = report::Chart::Kind::bar;
  c.x_label = "shape";
  c.y_label = "vendor's time / best's time";
  report::Series ratio{"x vendor", {}, {}};
  double log_sum = 0;
  int measured = 0;
  const registry::BenchRecord* lowest = nullptr;
  for (const registry::BenchRecord& r : records) {
    if (r.variant != "best") continue;
    const std::string verified = !r.declined.empty()       ? "declined: " + r.declined
                                 : !r.not_measured.empty() ? "not measured: " + r.not_measured
                                 : r.verified              ? "yes"
                                                           : "no";
    t.rows.push_back({Value::str(r.shape), r.config.empty() ? Value::none() : Value::str(r.config),
                      Value::num_or_none(r.ms, 4), Value::num_or_none(r.gflops, 0),
                      Value::median_or_none(r.x_vendor, r.x_vendor_spread.p10,
                                            r.x_vendor_spread.p90, 2),
                      Value::str(verified)});
    c.categories.push_back(report::short_shape(r.shape));
    // A ratio counts only where best's output was verified at the shape.
    const bool counts = r.verified && std::isfinite(r.x_vendor) && r.x_vendor > 0;
    ratio.y.push_back(counts ? r.x_vendor : NAN);
    if (!counts) continue;
    log_sum += std::log(r.x_vendor);
    ++measured;
    if (!lowest || r.x_vendor < lowest->x_vendor) lowest = &r;
  }
  c.series = {ratio};
  const std::string against = vendor.empty() ? "the vendor library" : vendor;
  s.paragraphs.push_back(
      "At each shape `best` decides its configuration for this card (from the tuning cache, or "
      "by timing its candidates first) and is then verified and timed paired against " +
      against +
      ", the way the ladder times its rungs; x vendor is the median of the paired ratios (the "
      "vendor's time over best's; above 1: faster), with their 10th-90th percentiles in "
      "brackets.");
  if (measured > 0)
    s.paragraphs.push_back(report::strf(
        "Over the %d shapes measured here: geometric mean %.3f x %s; the lowest %.3f at %s.",
        measured, std::exp(log_sum / measured), against.c_str(), lowest->x_vendor,
        lowest->shape.c_str()));
  else
    s.paragraphs.push_back("No shape of the sweep was measured against " + against + ".");
  s.tables.push_back(std::move(t));
  s.charts.push_back(std::move(c));
  return s;
}

}  // namespace memhier::bench
