// The report's opening summary: the figures a reader wants in ten seconds, from plain data.
#include "memhier/report/summary.hpp"

#include <algorithm>

#include "common.hpp"

namespace memhier::report {

namespace {

// The bands top to bottom in the order data travels from the SM outwards (the memory-spaces
// table's order), then the spaces beside that path: constant memory (its own cache) and local
// memory (per thread, in device memory, cached in L1 and L2). Tiers not named here follow.
const std::vector<std::string>& tier_order() {
  static const std::vector<std::string> order{"registers", "shared", "L1",   "L2",
                                              "HBM",       "constant", "local"};
  return order;
}
constexpr std::size_t kPathTiers = 5;  // registers .. HBM

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
    c.category_sizes.push_back(t.size_bytes);
  }
  if (tiers.empty())  // the shape of the hierarchy still reads, with nothing measured in it
    for (const std::string& name : tier_order()) {
      c.categories.push_back(name);
      c.category_notes.emplace_back("not measured");
    }
  // The path's tiers present (they come first), the rest drawn beside it.
  for (const std::string& name : c.categories)
    if (std::find(tier_order().begin(), tier_order().begin() + kPathTiers, name) !=
        tier_order().begin() + kPathTiers)
      ++c.stack_path;
  return c;
}

}  // namespace

std::string short_shape(const std::string& shape) {
  const std::size_t x = shape.find('x');
  if (x == std::string::npos || shape.find_first_not_of("0123456789x") != std::string::npos)
    return shape;
  const std::string side = shape.substr(0, x);
  std::size_t dims = 1;
  for (std::size_t at = x; at != std::string::npos; at = shape.find('x', at + 1)) {
    const std::size_t next = shape.find('x', at + 1);
    if (shape.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1) != side)
      return shape;
    ++dims;
  }
  return side + (dims == 2 ? "\xC2\xB2" : dims == 3 ? "\xC2\xB3" : "^" + std::to_string(dims));
}

namespace {

// "8x65536: 0.82 (6.1 us, 18 %)" per launch-bound shape, "; " between; none without one.
Value launch_bound_text(const std::vector<LaunchBoundShape>& shapes) {
  std::string text;
  for (const LaunchBoundShape& l : shapes) {
    if (!text.empty()) text += "; ";
    text += short_shape(l.shape) + ": " + detail::format_fixed(l.x_memcpy, 2) + " (" +
            detail::format_fixed(l.copy_ms * 1e3, 1) + " us";
    if (std::isfinite(l.copy_share))
      text += ", " + detail::format_fixed(100.0 * l.copy_share, 0) + " %";
    text += ")";
  }
  return text.empty() ? Value::none() : Value::str(text);
}

Table ladder_table(const std::vector<LadderBest>& bests) {
  Table t;
  t.id = "summary-ladders";
  t.title = "Each ladder's best against its ceilings";
  t.caption =
      "Paired ratios (above 1: faster than the ceiling): the median of the per-pair ratios, the "
      "ceiling timed alternately with the rung, with their 10th-90th percentiles in brackets; "
      "at the largest shape each ladder measured, and the lowest over its shapes with the shape "
      "where it was measured. x memcpy is left out where the family is bound by arithmetic "
      "(GEMM); x read-only is given where the problem only reads its bytes. Shapes that move "
      "at most 8 MiB are launch-bound: the fixed costs of a launch, not the bytes, set their "
      "times, so the lowest x memcpy leaves them out and the last column gives each with the "
      "time of the copy of its bytes and that copy's rate as a share of the copy's rate at "
      "the largest shape.";
  t.columns = {{"ladder", "", "family"},
               {"rung", "", "variant"},
               {"largest shape", "", "headline_shape"},
               {"x vendor", "", "headline_x_vendor"},
               {"lowest x vendor", "", "x_vendor"},
               {"at", "", "vendor_shape"},
               {"vendor", "", "vendor"},
               {"lowest x memcpy", "", "x_memcpy"},
               {"at", "", "memcpy_shape"},
               {"lowest x read-only", "", "x_read_only"},
               {"shapes", "", "shapes"},
               {"launch-bound shapes: x memcpy (the copy's time, its share of its rate)", "",
                "launch_bound"}};
  const auto ratio = [](double median, const results::Spread& s) {
    return Value::median_or_none(median, s.p10, s.p90, 2);
  };
  const auto shape = [](double median, const std::string& at) {
    return std::isfinite(median) ? Value::str(short_shape(at)) : Value::none();
  };
  for (const LadderBest& b : bests)
    t.rows.push_back({Value::str(b.family), Value::str(b.variant),
                      Value::str(short_shape(b.headline_shape)),
                      ratio(b.headline_x_vendor, b.headline_x_vendor_spread),
                      ratio(b.x_vendor, b.x_vendor_spread), shape(b.x_vendor, b.vendor_shape),
                      Value::str(b.vendor), ratio(b.x_memcpy, b.x_memcpy_spread),
                      shape(b.x_memcpy, b.memcpy_shape), ratio(b.x_read_only, b.x_read_only_spread),
                      Value::integer(b.shapes), launch_bound_text(b.launch_bound)});
  return t;
}

Chart ladder_chart(const std::vector<LadderBest>& bests) {
  Chart c;
  c.id = "summary-ladders-chart";
  c.title = "Each ladder's best against its ceilings: at its largest and its lowest shape";
  c.kind = Chart::Kind::bar;
  c.y_label = "ceiling's time / best's time";
  Series headline{"x vendor, largest shape", {}, {}};
  Series vendor{"x vendor, lowest", {}, {}};
  Series memcpy{"x cudaMemcpy, lowest", {}, {}};
  Series read{"x read-only, lowest", {}, {}};
  bool any_read = false;
  for (const LadderBest& b : bests) {
    c.categories.push_back(b.family);
    headline.y.push_back(b.headline_x_vendor);
    vendor.y.push_back(b.x_vendor);
    memcpy.y.push_back(b.x_memcpy);
    read.y.push_back(b.x_read_only);
    any_read = any_read || std::isfinite(b.x_read_only);
    // Under the ladder's name: its largest shape, and the shape of its lowest ratio (the
    // vendor's where there is one).
    const std::string& low = std::isfinite(b.x_vendor) ? b.vendor_shape : b.memcpy_shape;
    std::string note = "largest " + short_shape(b.headline_shape);
    if (!low.empty() && low != b.headline_shape) note += "\nlowest " + short_shape(low);
    c.category_notes.push_back(note);
  }
  c.series = {headline, vendor, memcpy};
  if (any_read) c.series.push_back(read);
  return c;
}

}  // namespace

bool copy_ceiling_applies(const std::vector<results::BenchRecord>& family_records) {
  // The family's fact decides, not a ratio measured at one shape: a naive GEMM rung can sit
  // near the copy's time at a small shape and still be bound by arithmetic.
  return !family_records.empty() && family_records.front().bound == results::Bound::memory;
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
    double most = -1;  // the work of the largest shape so far: its bytes, or its flops
    double headline_copy_gbps = NAN;
    for (const results::BenchRecord& r : own) {
      if (r.variant != b.variant || !timed(r)) continue;
      ++b.shapes;
      const double work = std::isfinite(r.gbps)     ? r.gbps * r.ms
                          : std::isfinite(r.gflops) ? r.gflops * r.ms
                                                    : 0.0;
      const double bytes = r.gbps * r.ms * 1e6;  // GB/s x ms; NaN where no bytes are counted
      if (work > most) {
        most = work;
        b.headline_shape = r.shape;
        b.headline_x_vendor = r.x_vendor;
        b.headline_x_vendor_spread = r.x_vendor_spread;
        b.headline_x_memcpy = copy ? r.frac_memcpy : NAN;
        b.headline_x_memcpy_spread = r.frac_memcpy_spread;
        headline_copy_gbps = bytes / (r.ms * r.frac_memcpy) / 1e6;
      }
      lowest(r.x_vendor, r.x_vendor_spread, r.shape, &b.x_vendor, &b.x_vendor_spread,
             &b.vendor_shape);
      if (copy && bytes <= kLaunchBoundBytes) {
        b.launch_bound.push_back(
            {r.shape, bytes, r.frac_memcpy, r.frac_memcpy_spread, r.ms * r.frac_memcpy, NAN});
      } else if (copy) {
        lowest(r.frac_memcpy, r.frac_memcpy_spread, r.shape, &b.x_memcpy, &b.x_memcpy_spread,
               &b.memcpy_shape);
      }
      lowest(r.x_read_only, r.x_read_only_spread, r.shape, &b.x_read_only, &b.x_read_only_spread,
             &b.read_only_shape);
    }
    for (LaunchBoundShape& l : b.launch_bound)
      l.copy_share = l.bytes / l.copy_ms / 1e6 / headline_copy_gbps;
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
  // The tally once, in a line; the Claims section has each check and the claims' cards.
  s.paragraphs.push_back(
      "Claims: " + std::to_string(n.reproduced) + " reproduced, " + std::to_string(n.refuted) +
      " refuted, " + std::to_string(n.not_measurable) + " not measurable here, " + others + "of " +
      std::to_string(n.reproduced + n.refuted + n.not_measurable + n.about_other_card +
                     n.from_properties) +
      " checks" +
      (n.claims > 0 ? "; " + std::to_string(n.of_this_card) + " of the " +
                          std::to_string(n.claims) + " claims speak of this card"
                    : std::string()) +
      " (the Claims section below has each).");
  for (const std::string& line : in.not_run) s.paragraphs.push_back(line);
  std::vector<std::string> missing;
  if (tiers.empty()) missing.emplace_back("the tiers' latency and bandwidth");
  if (bests.empty()) missing.emplace_back("the ladders");
  if (!missing.empty()) {
    std::string what = missing[0] + (missing.size() > 1 ? ", and " + missing[1] : "");
    s.paragraphs.push_back("Not measured in this run: " + what + "." +
                           (in.not_measured.empty() ? "" : " Why: " + in.not_measured + "."));
  }
  // The hierarchy and the tally once: the memory-spaces section has the tiers' table, the
  // paragraph above the tally; the ladders' figures are a table for the text formats.
  s.charts.push_back(hierarchy_chart(tiers));
  if (!bests.empty()) s.charts.push_back(ladder_chart(bests));
  if (!bests.empty()) s.tables.push_back(ladder_table(bests));
  return s;
}

}  // namespace memhier::report
