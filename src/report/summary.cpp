// The report's opening summary: the figures a reader wants in ten seconds, from plain data.
#include "memhier/report/summary.hpp"

#include <algorithm>

#include "common.hpp"

namespace memhier::report {

namespace {

// The bands top to bottom: the SM's own storage, then the chip's L2, then device memory
// (local memory lives there too). Tiers not named here follow in the order given.
const std::vector<std::string>& tier_order() {
  static const std::vector<std::string> order{"registers", "shared", "L1",   "constant",
                                              "L2",        "HBM",    "local"};
  return order;
}

std::vector<SummaryTier> ordered(const std::vector<SummaryTier>& tiers) {
  std::vector<SummaryTier> out;
  for (const std::string& name : tier_order())
    for (const SummaryTier& t : tiers)
      if (t.tier == name) out.push_back(t);
  for (const SummaryTier& t : tiers)
    if (std::find(tier_order().begin(), tier_order().end(), t.tier) == tier_order().end())
      out.push_back(t);
  return out;
}

// "19.9 TB/s" from 1000 GB/s up, "812 GB/s" below.
std::string bandwidth_text(double gbps) {
  if (gbps >= 1000.0) return detail::format_fixed(gbps / 1000.0, 1) + " TB/s";
  return detail::format_fixed(gbps, 0) + " GB/s";
}

// What the picture writes beside a tier: latency, bandwidth, size, whichever were measured.
std::string tier_note(const SummaryTier& t) {
  std::vector<std::string> parts;
  if (std::isfinite(t.latency_cycles)) {
    std::string lat = detail::format_fixed(t.latency_cycles, 0) + " cycles";
    if (std::isfinite(t.latency_ns)) lat += " (" + detail::format_fixed(t.latency_ns, 1) + " ns)";
    parts.push_back(lat);
  }
  if (std::isfinite(t.bandwidth_gbps)) parts.push_back(bandwidth_text(t.bandwidth_gbps));
  if (!t.size.empty()) parts.push_back(t.size);
  if (parts.empty()) return "not measured";
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "  \xC2\xB7  ") + p;
  return out;
}

Chart hierarchy_chart(const std::vector<SummaryTier>& tiers) {
  Chart c;
  c.id = "summary-hierarchy";
  c.title = "This card's memory hierarchy: latency, bandwidth, size";
  c.kind = Chart::Kind::stack;
  for (const SummaryTier& t : tiers) {
    c.categories.push_back(t.tier);
    c.category_notes.push_back(tier_note(t));
  }
  if (tiers.empty())  // the shape of the hierarchy still reads, with nothing measured in it
    for (const char* name : {"registers", "shared", "L1", "L2", "HBM"}) {
      c.categories.emplace_back(name);
      c.category_notes.emplace_back("not measured");
    }
  return c;
}

Table tier_table(const std::vector<SummaryTier>& tiers) {
  Table t;
  t.id = "summary-tiers";
  t.title = "The hierarchy, measured";
  t.columns = {{"tier", "", "tier"},
               {"latency", "cycles", "latency_cycles"},
               {"latency", "ns", "latency_ns"},
               {"bandwidth", "GB/s", "bandwidth_gbps"},
               {"size", "", "size"}};
  for (const SummaryTier& s : tiers)
    t.rows.push_back({Value::str(s.tier), Value::num(s.latency_cycles, 0),
                      Value::num(s.latency_ns, 1), Value::num(s.bandwidth_gbps, 0),
                      Value::str(s.size)});
  return t;
}

Table ladder_table(const std::vector<LadderBest>& bests) {
  Table t;
  t.id = "summary-ladders";
  t.title = "Each ladder's best against its ceilings";
  t.caption =
      "The lowest paired ratio over the shapes each ladder measured (above 1: faster than the "
      "ceiling): the median of the per-pair ratios, the ceiling timed alternately with the "
      "rung, with their 10th-90th percentiles in brackets. x memcpy is left out where the "
      "problem is bound by arithmetic: its rungs come nearer the peak of their number type than "
      "the copy's "
      "time (GEMM); x read-only is given where the problem only reads its bytes.";
  t.columns = {{"ladder", "", "family"},     {"rung", "", "variant"},
               {"x vendor", "", "x_vendor"}, {"vendor", "", "vendor"},
               {"x memcpy", "", "x_memcpy"}, {"x read-only", "", "x_read_only"},
               {"shapes", "", "shapes"}};
  const auto ratio = [](double median, const results::Spread& s) {
    return Value::median_or_none(median, s.p10, s.p90, 2);
  };
  for (const LadderBest& b : bests)
    t.rows.push_back({Value::str(b.family), Value::str(b.variant),
                      ratio(b.x_vendor, b.x_vendor_spread), Value::str(b.vendor),
                      ratio(b.x_memcpy, b.x_memcpy_spread),
                      ratio(b.x_read_only, b.x_read_only_spread), Value::integer(b.shapes)});
  return t;
}

Chart ladder_chart(const std::vector<LadderBest>& bests) {
  Chart c;
  c.id = "summary-ladders-chart";
  c.title = "Each ladder's best, as a fraction of its ceilings (lowest over its shapes)";
  c.kind = Chart::Kind::bar;
  c.x_label = "ladder";
  c.y_label = "ceiling's time / best's time (paired median)";
  Series vendor{"x vendor library", {}, {}};
  Series memcpy{"x cudaMemcpy", {}, {}};
  Series read{"x read-only ceiling", {}, {}};
  bool any_read = false;
  for (const LadderBest& b : bests) {
    c.categories.push_back(b.family);
    vendor.y.push_back(b.x_vendor);
    memcpy.y.push_back(b.x_memcpy);
    read.y.push_back(b.x_read_only);
    any_read = any_read || std::isfinite(b.x_read_only);
  }
  c.series = {vendor, memcpy};
  if (any_read) c.series.push_back(read);
  return c;
}

Table tally_table(const ClaimsTally& tally) {
  Table t;
  t.id = "summary-claims";
  t.title = "Claims tally";
  t.columns = {{"verdict", "", "verdict"}, {"checks", "", "checks"}};
  t.rows = {{Value::str("reproduced"), Value::integer(tally.reproduced)},
            {Value::str("refuted"), Value::integer(tally.refuted)},
            {Value::str("not measurable here"), Value::integer(tally.not_measurable)}};
  // Rows only when present: a run on the card the claims speak of reads as before.
  if (tally.about_other_card > 0)
    t.rows.push_back({Value::str("about another card"), Value::integer(tally.about_other_card)});
  if (tally.from_properties > 0)
    t.rows.push_back({Value::str("from device properties"), Value::integer(tally.from_properties)});
  if (tally.claims > 0)
    t.notes.push_back(std::to_string(tally.of_this_card) + " of the " +
                      std::to_string(tally.claims) +
                      " claims speak of this card (by its name, its architecture, or of any "
                      "card), " +
                      std::to_string(tally.of_other_card) + " of another card.");
  return t;
}

}  // namespace

bool copy_ceiling_applies(const std::vector<results::BenchRecord>& family_records) {
  for (const results::BenchRecord& r : family_records) {
    if (r.rung == 0 || !std::isfinite(r.frac_memcpy)) continue;
    if (!std::isfinite(r.gflops)) return true;  // no flops: a pure data mover
    // A peak the architecture table lacks (NaN) decides nothing.
    if (r.peak_pct / 100.0 < r.frac_memcpy) return true;
  }
  return false;
}

std::vector<LadderBest> ladder_bests(const std::vector<results::BenchRecord>& records) {
  std::vector<std::string> families;
  for (const results::BenchRecord& r : records)
    if (std::find(families.begin(), families.end(), r.family) == families.end())
      families.push_back(r.family);
  // A rung that ran, verified and was timed at its shape.
  const auto timed = [](const results::BenchRecord& r) {
    return r.rung > 0 && r.verified && r.declined.empty() && std::isfinite(r.ms);
  };
  // Keeps the lowest paired median over the shapes, with its spread and shape.
  const auto lowest = [](double median, const results::Spread& spread, const std::string& shape,
                         double* best, results::Spread* best_spread, std::string* best_shape) {
    if (!std::isfinite(median) || median >= *best) return;  // NaN *best: not yet set
    *best = median;
    *best_spread = spread;
    *best_shape = shape;
  };
  std::vector<LadderBest> out;
  for (const std::string& family : families) {
    LadderBest b;
    b.family = family;
    std::vector<results::BenchRecord> own;
    for (const results::BenchRecord& r : records)
      if (r.family == family) own.push_back(r);
    const bool copy = copy_ceiling_applies(own);
    int top_rung = 0;
    for (const results::BenchRecord& r : own) {
      if (r.rung == 0 && !r.ceiling && r.reference.empty() && b.vendor.empty())
        b.vendor = r.variant;
      if (timed(r) && b.variant != "best" && (r.variant == "best" || r.rung > top_rung)) {
        b.variant = r.variant;
        top_rung = r.rung;
      }
    }
    if (b.variant.empty()) continue;  // nothing verified: no best to show
    for (const results::BenchRecord& r : own) {
      if (r.variant != b.variant || !timed(r)) continue;
      ++b.shapes;
      lowest(r.x_vendor, r.x_vendor_spread, r.shape, &b.x_vendor, &b.x_vendor_spread,
             &b.vendor_shape);
      if (copy)
        lowest(r.frac_memcpy, r.frac_memcpy_spread, r.shape, &b.x_memcpy, &b.x_memcpy_spread,
               &b.memcpy_shape);
      lowest(r.x_read_only, r.x_read_only_spread, r.shape, &b.x_read_only, &b.x_read_only_spread,
             &b.read_only_shape);
    }
    out.push_back(std::move(b));
  }
  return out;
}

Section summary_section(const SummaryInput& in) {
  Section s;
  s.id = "summary";
  s.title = "Summary";
  s.charts_first = true;
  const std::vector<SummaryTier> tiers = ordered(in.tiers);
  const std::vector<LadderBest> bests = ladder_bests(in.records);
  const ClaimsTally& n = in.claims;
  std::string others;  // the kinds a run on the claims' own cards lacks, named when present
  if (n.about_other_card > 0)
    others += std::to_string(n.about_other_card) + " about another card, ";
  if (n.from_properties > 0)
    others += std::to_string(n.from_properties) + " from device properties, ";
  s.paragraphs.push_back(
      "Claims: " + std::to_string(n.reproduced) + " reproduced, " + std::to_string(n.refuted) +
      " refuted, " + std::to_string(n.not_measurable) + " not measurable here, " + others + "of " +
      std::to_string(n.reproduced + n.refuted + n.not_measurable + n.about_other_card +
                     n.from_properties) +
      " checks (the Claims section below has each)." +
      (n.claims > 0
           ? " Of the " + std::to_string(n.claims) + " claims, " + std::to_string(n.of_this_card) +
                 " speak of this card (by its name, its architecture, or of any card) "
                 "and " +
                 std::to_string(n.of_other_card) +
                 " of another card: those are judged here only as ratios or as shares "
                 "of this card's datasheet peak."
           : std::string()));
  std::vector<std::string> missing;
  if (tiers.empty()) missing.emplace_back("the tiers' latency and bandwidth");
  if (bests.empty()) missing.emplace_back("the ladders");
  if (!missing.empty()) {
    std::string what = missing[0] + (missing.size() > 1 ? ", and " + missing[1] : "");
    s.paragraphs.push_back("Not measured in this run: " + what + "." +
                           (in.not_measured.empty() ? "" : " Why: " + in.not_measured + "."));
  }
  s.charts.push_back(hierarchy_chart(tiers));
  if (!bests.empty()) s.charts.push_back(ladder_chart(bests));
  if (!tiers.empty()) s.tables.push_back(tier_table(tiers));
  if (!bests.empty()) s.tables.push_back(ladder_table(bests));
  s.tables.push_back(tally_table(n));
  return s;
}

}  // namespace memhier::report
