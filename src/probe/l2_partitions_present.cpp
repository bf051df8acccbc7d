// The l2-partitions probe's classification and section: the map split into near and far
// cells by a stated rule, the SMs' two sides, the heat map, a histogram, the bandwidths and
// the claims. No CUDA: made-up maps test every branch.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/l2_partitions.hpp"

namespace memhier::probe {
namespace {

using report::Value;

constexpr int kMapPages = 64;  // pages the heat map draws

// Otsu's rule on sorted values: the count of the low group that maximises the between-group
// variance (at least 1, at most n - 1).
std::size_t otsu_split(const std::vector<double>& v) {
  const std::size_t n = v.size();
  const double dn = static_cast<double>(n);
  std::vector<double> prefix(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + v[i];
  std::size_t best = 1;
  double best_var = -1;
  for (std::size_t k = 1; k < n; ++k) {
    const double dk = static_cast<double>(k);
    const double w0 = dk / dn, w1 = 1.0 - w0;
    const double m0 = prefix[k] / dk, m1 = (prefix[n] - prefix[k]) / (dn - dk);
    const double var = w0 * w1 * (m0 - m1) * (m0 - m1);
    if (var > best_var) {
      best_var = var;
      best = k;
    }
  }
  return best;
}

// Sides: each SM joins the first mixed row's side when its far pages agree with that row's
// on at least half the pages; consistency counts the cells equal to their side's majority.
void find_sides(L2Split& s, int rows, int cols) {
  auto at = [&](int r, int c) { return s.far[static_cast<std::size_t>(r) * cols + c]; };
  int ref = -1;
  for (int r = 0; r < rows && ref < 0; ++r) {
    bool near = false, far = false;
    for (int c = 0; c < cols; ++c) {
      near = near || at(r, c) == 0;
      far = far || at(r, c) == 1;
    }
    if (near && far) ref = r;
  }
  for (int r = 0; r < rows && ref < 0; ++r)
    for (int c = 0; c < cols && ref < 0; ++c)
      if (at(r, c) >= 0) ref = r;
  if (ref < 0) return;
  std::vector<signed char>& side = s.side;
  side.assign(static_cast<std::size_t>(rows), -1);
  for (int r = 0; r < rows; ++r) {
    int both = 0, same = 0;
    for (int c = 0; c < cols; ++c)
      if (at(r, c) >= 0 && at(ref, c) >= 0) {
        ++both;
        same += at(r, c) == at(ref, c);
      }
    if (both == 0) continue;
    side[static_cast<std::size_t>(r)] = 2 * same >= both ? 0 : 1;
    (side[static_cast<std::size_t>(r)] == 0 ? s.side_a_sms : s.side_b_sms) += 1;
  }
  int cells = 0, matching = 0;
  for (int c = 0; c < cols; ++c) {
    int far_count[2] = {0, 0}, measured[2] = {0, 0};
    for (int r = 0; r < rows; ++r)
      if (side[static_cast<std::size_t>(r)] >= 0 && at(r, c) >= 0) {
        ++measured[side[static_cast<std::size_t>(r)]];
        far_count[side[static_cast<std::size_t>(r)]] += at(r, c);
      }
    for (int sd = 0; sd < 2; ++sd) {
      const int majority = 2 * far_count[sd] > measured[sd] ? 1 : 0;
      cells += measured[sd];
      matching += majority ? far_count[sd] : measured[sd] - far_count[sd];
    }
  }
  s.consistency = cells ? static_cast<double>(matching) / cells : NAN;
}

}  // namespace

L2Split classify_l2_partitions(const std::vector<double>& cycles, int rows, int cols) {
  L2Split s;
  s.far.assign(cycles.size(), -1);
  std::vector<double> v;
  for (std::size_t i = 0; i < cycles.size(); ++i)
    if (std::isfinite(cycles[i])) {
      v.push_back(cycles[i]);
      s.far[i] = 0;
    }
  std::sort(v.begin(), v.end());
  s.near_cycles = median(v);
  if (v.size() < 16) {
    s.why_not = "fewer than 16 cells were measured";
    s.far_fraction = v.empty() ? NAN : 0.0;
    return s;
  }
  const std::size_t n = v.size(), k = otsu_split(v);
  const std::vector<double> lo(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k));
  const std::vector<double> hi(v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  const double threshold = 0.5 * (v[k - 1] + v[k]);
  const double near = median(lo), far = median(hi);
  const double gap_lo = near + 0.25 * (far - near), gap_hi = far - 0.25 * (far - near);
  const auto between =
      std::count_if(v.begin(), v.end(), [&](double c) { return c > gap_lo && c < gap_hi; });
  s.between_fraction = static_cast<double>(between) / static_cast<double>(n);
  const std::string best = "the best split, at " + fmt(threshold, 0) + " cycles, has medians " +
                           fmt(near, 0) + " and " + fmt(far, 0) + " cycles";
  if (20 * std::min(k, n - k) < n)
    s.why_not = best + " but leaves fewer than 5 % of the cells on one side";
  else if (far < 1.15 * near)
    s.why_not = best + ", under 1.15x apart";
  // An even spread puts 25 % of its cells there, two clusters with noise far fewer.
  else if (5 * between >= static_cast<std::ptrdiff_t>(n))
    s.why_not = best + ", and " + fmt(100 * s.between_fraction, 0) +
                " % of the cells lie between them: no gap";
  s.far_fraction = 0.0;
  if (!s.why_not.empty()) return s;
  s.split = true;
  s.threshold = threshold;
  s.near_cycles = near;
  s.far_cycles = far;
  for (std::size_t i = 0; i < cycles.size(); ++i)
    if (s.far[i] >= 0) s.far[i] = cycles[i] > threshold ? 1 : 0;
  s.far_fraction = static_cast<double>(n - k) / static_cast<double>(n);
  find_sides(s, rows, cols);
  return s;
}

namespace {

// The reread cycles of the cells of one class (far or near); every measured cell without a split.
double reread_median(const L2PartitionsResult& m, int cls) {
  std::vector<double> v;
  for (std::size_t i = 0; i < m.reread_cycles.size() && i < m.split.far.size(); ++i)
    if (m.split.far[i] == cls) v.push_back(m.reread_cycles[i]);
  return median(v);
}

report::Table summary_table(const L2PartitionsResult& m) {
  const L2Split& s = m.split;
  const double clk = m.sm_clock_mhz;
  report::Table t;
  t.id = "l2-partitions-summary";
  t.title = "Near and far L2 hits";
  t.columns = {{"quantity", "", "quantity"}, {"value", "", "value"}, {"unit", "", "unit"}};
  auto row = [&](const std::string& q, double v, int precision, const std::string& unit) {
    t.rows.push_back({Value::str(q), Value::num_or_none(v, precision), Value::str(unit)});
  };
  row("SMs mapped", static_cast<double>(m.smids.size()), 0, "");
  row("pages mapped", m.pages, 0, "4 KiB pages");
  row("near L2 hit, median", s.near_cycles, 0, "cycles");
  row("near L2 hit, median", cycles_to_ns(s.near_cycles, clk), 1, "ns");
  row("far L2 hit, median", s.far_cycles, 0, "cycles");
  row("far L2 hit, median", cycles_to_ns(s.far_cycles, clk), 1, "ns");
  row("far / near", s.far_cycles / s.near_cycles, 2, "x");
  row("threshold (Otsu)", s.threshold, 0, "cycles");
  row("cells between the two medians' middle half", 100 * s.between_fraction, 1, "%");
  row("far share of the L2 hits of a streaming kernel", 100 * s.far_fraction, 1, "%");
  row("SMs on the first SM's side", s.split ? static_cast<double>(s.side_a_sms) : NAN, 0, "");
  row("SMs on the other side", s.split ? static_cast<double>(s.side_b_sms) : NAN, 0, "");
  row("cells matching their side's pattern", 100 * s.consistency, 1, "%");
  row("second read by the same SM, near cells", reread_median(m, 0), 0, "cycles");
  row("second read by the same SM, far cells", reread_median(m, 1), 0, "cycles");
  if (!s.split) t.notes.push_back("One cluster of latencies: " + s.why_not + ".");
  t.notes.push_back(
      "A streaming kernel spreads its lines evenly over SMs and pages, so the far share of its "
      "L2 hits is the far share of the map's cells.");
  t.notes.push_back(
      "Sides: an SM is on the first SM's side when its far pages agree with that SM's on at "
      "least half the pages; a cell matches when it equals the majority of its side's SMs on "
      "that page.");
  t.notes.push_back(
      "Second read: the same SM reads its first line of each page again right after; a far "
      "line that reads near the second time was copied into the reader's half.");
  return t;
}

report::Table bandwidth_table(const L2PartitionsResult& m) {
  report::Table t;
  t.id = "l2-partitions-bandwidth";
  t.title = "L2 read bandwidth: near pages only against every page";
  t.columns = {
      {"reads", "", "reads"}, {"bandwidth", "GB/s", "gbps"}, {"of spread", "x", "x_spread"}};
  t.rows.push_back({Value::str("each SM its near pages only"), Value::num_or_none(m.near_gbps, 0),
                    Value::num_or_none(m.near_gbps / m.spread_gbps, 2)});
  t.rows.push_back({Value::str("every SM every page (both halves)"),
                    Value::num_or_none(m.spread_gbps, 0), Value::num(1.0, 2)});
  t.notes.push_back(
      "Every SM busy (ld.global.cg, 16 B a lane, a warp one 4 KiB page at a time); "
      "both launches read " +
      fmt_mib(m.bytes_per_launch) + " from the same region, already in L2.");
  if (!m.near_unmeasured.empty())
    t.notes.push_back("Near only not measured: " + m.near_unmeasured + ".");
  return t;
}

// The map's first pages in address order (a drawing of every page would be megabytes), the
// SMs grouped by side so the halves show as stripes that flip between the groups.
report::Chart heat_map(const L2PartitionsResult& m) {
  report::Chart ch;
  ch.id = "l2-partitions-map";
  const int shown = std::min(m.pages, kMapPages);
  ch.title =
      "First-read L2 latency by SM and 4 KiB page (first " + std::to_string(shown) + " pages)";
  ch.kind = report::Chart::Kind::heatmap;
  ch.x_label = "page (address order)";
  ch.y_label = "SM (the first SM's side, then the other)";
  ch.y_unit = "cycles";
  std::vector<std::size_t> order(m.smids.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::vector<signed char>& side = m.split.side;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return (a < side.size() ? side[a] : 0) < (b < side.size() ? side[b] : 0);
  });
  for (std::size_t r : order) {
    report::Series s;
    s.name = "SM " + std::to_string(m.smids[r]);
    for (int q = 0; q < shown; ++q) {
      s.x.push_back(q);
      s.y.push_back(m.cycles[r * static_cast<std::size_t>(m.pages) + static_cast<std::size_t>(q)]);
    }
    ch.series.push_back(std::move(s));
  }
  return ch;
}

report::Chart histogram(const L2PartitionsResult& m) {
  report::Chart ch;
  ch.id = "l2-partitions-histogram";
  ch.title = "First-read L2 latency: cells per latency bin";
  ch.kind = report::Chart::Kind::bar;
  ch.x_label = "latency";
  ch.x_unit = "cycles";
  ch.y_label = "cells";
  std::vector<double> v;
  for (double c : m.cycles)
    if (std::isfinite(c)) v.push_back(c);
  if (v.empty()) return ch;
  const auto [lo_it, hi_it] = std::minmax_element(v.begin(), v.end());
  constexpr int kBins = 24;
  const double lo = *lo_it, width = std::max((*hi_it - lo) / kBins, 1.0);
  report::Series s{"cells", {}, std::vector<double>(kBins, 0.0)};
  for (double c : v) s.y[std::min(kBins - 1, static_cast<int>((c - lo) / width))] += 1;
  for (int b = 0; b < kBins; ++b) ch.categories.push_back(fmt(lo + (b + 0.5) * width, 0));
  ch.series.push_back(std::move(s));
  return ch;
}

std::vector<ClaimRow> partition_claims(const L2PartitionsResult& m) {
  const L2Split& s = m.split;
  const Judgement one{results::Verdict::refuted,
                      "refuted: the map's latencies form one cluster (" + s.why_not + ")"};
  const bool measured = m.declined.empty() && std::isfinite(s.near_cycles);
  const std::string why = m.declined.empty() ? "no cell was measured" : m.declined;
  std::vector<ClaimRow> rows;
  const double ratio = s.far_cycles / s.near_cycles;
  rows.push_back({ClaimId::l2_far_half_1_8x_near_published,
                  s.split ? "far " + fmt(s.far_cycles, 0) + " / near " + fmt(s.near_cycles, 0) +
                                " cycles = " + fmt(ratio, 2) + "x"
                          : "one cluster, median " + fmt(s.near_cycles, 0) + " cycles",
                  s.split    ? judged(ratio, Claimed::value(1.8, "x"),
                                      claims::band(ClaimId::l2_far_half_1_8x_near_published))
                  : measured ? one
                             : not_measurable(why)});
  const Tolerance band = claims::band(ClaimId::latency_l2_265_530_cycles_published);
  rows.push_back(
      {ClaimId::latency_l2_265_530_cycles_published,
       "near " + fmt(s.near_cycles, 0) + " cycles, far " + fmt(s.far_cycles, 0) +
           " cycles (medians of the map's two clusters, first reads)",
       s.split    ? judged_all({{"near", s.near_cycles, Claimed::range(265, 280, "cycles"), band},
                                {"far", s.far_cycles, Claimed::range(475, 530, "cycles"), band}})
       : measured ? one
                  : not_measurable(why)});
  return rows;
}

}  // namespace

Result present_l2_partitions(const L2PartitionsResult& m) {
  Result res;
  report::Section& sec = res.section;
  sec.id = "l2-partitions";
  sec.title = "L2 partitions: near and far halves by SM and page";
  if (!m.declined.empty()) {
    sec.paragraphs.push_back(m.declined);
    add_claims(sec, "l2-partitions", partition_claims(m));
    return res;
  }
  sec.paragraphs.push_back(
      "One block per SM; thread 0 reads %smid and times, with clock64 around each dependent "
      "ld.global.cg, its own lines (" +
      std::to_string(m.lines_per_cell) + " per page) of each of " + std::to_string(m.pages) +
      " 4 KiB pages (" +
      fmt_bytes(static_cast<double>(m.pages) * static_cast<double>(m.page_bytes)) + ", the L2 is " +
      fmt_bytes(static_cast<double>(m.l2_bytes)) +
      "), visited in a random order. "
      "The SMs take turns in " +
      std::to_string(m.rounds) +
      " rounds; before each the whole region "
      "is rewritten, line by whole line, so every line is an L2 hit that no SM has read since, and "
      "no two SMs of a round share a line. A cell is the median of its lines. Rule: the threshold "
      "is the split of all cells' latencies with the largest between-group variance (Otsu); the "
      "cells form two clusters only if each group holds at least 5 % of them, the far median is "
      "at least 1.15x the near one and fewer than 20 % of the cells lie in the middle half "
      "between the two medians (a gap). Cells above the threshold are far.");
  sec.tables.push_back(summary_table(m));
  sec.tables.push_back(bandwidth_table(m));
  sec.charts.push_back(heat_map(m));
  sec.charts.push_back(histogram(m));
  add_claims(sec, "l2-partitions", partition_claims(m));
  return res;
}

}  // namespace memhier::probe
