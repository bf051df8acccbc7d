// The L2 probes' sections from their measurements: the curve, its plateaus and knee, the
// persisting window's times, and the claims judged against them. No CUDA.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/l2.hpp"

namespace memhier::probe {
namespace {

constexpr const char* kNoFigure = "no figure on this card (see notes)";

std::size_t nearest(const std::vector<double>& xs, double target) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < xs.size(); ++i)
    if (std::fabs(std::log(xs[i] / target)) < std::fabs(std::log(xs[best] / target))) best = i;
  return best;
}

report::Table curve_table(const L2WorkingSetResult& m) {
  report::Table t;
  t.id = "l2-working-set";
  t.title = "Read bandwidth against working set";
  t.columns = {{"working set", "B", "working_set_bytes"}, {"bandwidth", "GB/s", "gbps"}};
  for (const L2Point& p : m.points)
    t.rows.push_back({report::Value::integer(static_cast<std::int64_t>(p.bytes)),
                      report::Value::num(p.gbps, 0)});
  if (m.points.back().bytes < m.sweep_top_bytes)
    t.notes.push_back("The sweep stops at " + fmt_mib(static_cast<double>(m.points.back().bytes)) +
                      ": half the free device memory.");
  return t;
}

report::Table capacity_table(const L2WorkingSetResult& m) {
  const L2Plateaus& pl = m.plateaus;
  report::Table c;
  c.id = "l2-capacity";
  c.title = "L2 capacity and plateaus";
  c.columns = {{"quantity", "", "quantity"}, {"value", "", "value"}, {"unit", "", "unit"}};
  c.rows.push_back({report::Value::str("L2 size (properties)"),
                    report::Value::num(static_cast<double>(m.l2_bytes) / MiB, 1),
                    report::Value::str("MiB")});
  c.rows.push_back({report::Value::str("effective capacity (measured)"),
                    report::Value::num(pl.capacity_bytes / MiB, 1), report::Value::str("MiB")});
  c.rows.push_back({report::Value::str("in-L2 bandwidth"), report::Value::num(pl.in_l2_gbps, 0),
                    report::Value::str("GB/s")});
  c.rows.push_back({report::Value::str("HBM bandwidth"), report::Value::num(pl.hbm_gbps, 0),
                    report::Value::str("GB/s")});
  c.notes = pl.notes;
  return c;
}

report::Chart curve_chart(const std::vector<double>& xs, const std::vector<double>& bw) {
  report::Chart ch;
  ch.id = "l2-working-set-chart";
  ch.title = "Read bandwidth against working set (all SMs, ld.cg)";
  ch.kind = report::Chart::Kind::line;
  ch.x_label = "working set";
  ch.x_unit = "B";
  ch.y_label = "bandwidth";
  ch.y_unit = "GB/s";
  ch.log_x = true;
  ch.series = {{"read bandwidth", xs, bw}};
  return ch;
}

// Seed 001's working-set table is for an A100 (40 MB L2): its sizes are scaled by this
// card's L2 size, and its ratios (against the set far outside L2) are compared with a
// ±50% tolerance.
std::vector<ClaimRow> curve_claims(const L2WorkingSetResult& m, const std::vector<double>& xs,
                                   const std::vector<double>& bw) {
  const L2Plateaus& pl = m.plateaus;
  std::vector<ClaimRow> claims;
  const double l2d = static_cast<double>(m.l2_bytes);
  const std::size_t base = nearest(xs, 5.0 * l2d);
  const bool base_ok = xs[base] >= 4.0 * l2d;
  struct Row {
    double frac, ratio;
    ClaimId id;
  };
  for (const Row& r :
       {Row{0.1, 2.8, ClaimId::l2_working_set_4mb}, Row{0.5, 2.2, ClaimId::l2_working_set_20mb},
        Row{1.0, 1.4, ClaimId::l2_working_set_40mb}}) {
    const std::size_t i = nearest(xs, r.frac * l2d);
    if (!base_ok) {
      claims.push_back(
          {r.id, "n/a", not_measurable("no working set of 4x the L2 size fitted in memory")});
      continue;
    }
    const double ratio = bw[i] / bw[base];
    claims.push_back({r.id,
                      fmt(bw[i]) + " GB/s at " + fmt_mib(xs[i]) + " = " + fmt(ratio, 2) + "x the " +
                          fmt_mib(xs[base]) + " set (" + fmt(bw[base]) + " GB/s)",
                      judged(ratio, Claimed::value(r.ratio, "x"), claims::band(r.id), kNoFigure)});
  }
  claims.push_back({ClaimId::l2_bandwidth_12tbs, fmt(pl.in_l2_gbps) + " GB/s (in-L2 plateau)",
                    judged(pl.in_l2_gbps, Claimed::value(12000, "GB/s"),
                           claims::band(ClaimId::l2_bandwidth_12tbs), kNoFigure)});
  claims.push_back({ClaimId::hbm_bandwidth_3350, fmt(pl.hbm_gbps) + " GB/s (plateau beyond 4x L2)",
                    judged(pl.hbm_gbps, Claimed::value(3350, "GB/s"),
                           claims::band(ClaimId::hbm_bandwidth_3350), kNoFigure)});
  claims.push_back({ClaimId::l2_fits_working_set,
                    "effective capacity " + fmt_mib(pl.capacity_bytes) + " against " +
                        fmt_mib(l2d) + " in the properties",
                    judged(pl.capacity_bytes / l2d, Claimed::value(1.0, "x"),
                           claims::band(ClaimId::l2_fits_working_set), kNoFigure)});
  return claims;
}

// The claim holds when the window recovers at least half of the eviction penalty and
// the hot reads are at least 10% faster; it is refuted otherwise.
ClaimRow persisting_claim(const L2PersistingResult& m) {
  const double t_ref = m.reference_ms, t_evict = m.evicted_ms, t_with = m.window_ms;
  const double speedup = t_evict / t_with;
  const double penalty = t_evict - t_ref;
  const double recovered = penalty > 0 ? (t_evict - t_with) / penalty : NAN;
  Judgement verdict;
  std::string measured;
  if (!std::isfinite(speedup)) {
    verdict = not_measurable(m.unmeasured);
    measured = "n/a";
  } else {
    measured = "hot read " + fmt(t_with * 1e3, 1) + " us with the window, " +
               fmt(t_evict * 1e3, 1) + " us without (" + fmt(speedup, 2) + "x); in-L2 reference " +
               fmt(t_ref * 1e3, 1) + " us; the window recovered " + fmt(100 * recovered) +
               "% of the eviction penalty";
    if (!(t_evict > 1.1 * t_ref))
      verdict = not_measurable("the streaming traffic did not slow the hot reads by 10%");
    else
      verdict = judged_all(
          {{"the share of the eviction penalty recovered", 100 * recovered, Claimed::value(50, "%"),
            Tolerance::at_least(50)},
           {"the speedup", speedup, Claimed::value(1.1, "x"), Tolerance::at_least(1.1)}});
  }
  return {ClaimId::l2_persisting_window, measured, verdict};
}

}  // namespace

L2Plateaus find_l2_plateaus(const std::vector<L2Point>& points, std::uint64_t l2_bytes) {
  // Plateaus: in L2 = median of the sets up to half the L2; HBM = median of the sets
  // of 4x the L2 or more. Effective capacity: where the curve first falls below their
  // midpoint after the in-L2 peak, interpolated on log size.
  const double l2 = static_cast<double>(l2_bytes);
  std::vector<double> xs, bw, in_pts, hbm_pts;
  for (const L2Point& p : points) {
    xs.push_back(static_cast<double>(p.bytes));
    bw.push_back(p.gbps);
    if (xs.back() <= 0.5 * l2) in_pts.push_back(p.gbps);
    if (xs.back() >= 4.0 * l2) hbm_pts.push_back(p.gbps);
  }
  L2Plateaus pl;
  pl.in_l2_gbps = in_pts.empty() ? bw.front() : median(in_pts);
  pl.hbm_gbps = median(hbm_pts);
  if (hbm_pts.empty())
    pl.notes.push_back("No working set of 4x the L2 size fitted in free memory: no HBM plateau.");
  if (std::isfinite(pl.hbm_gbps) && pl.in_l2_gbps > pl.hbm_gbps) {
    const double half = 0.5 * (pl.in_l2_gbps + pl.hbm_gbps);
    std::size_t peak = 0;
    for (std::size_t i = 0; i < xs.size() && xs[i] <= l2; ++i)
      if (bw[i] > bw[peak]) peak = i;
    for (std::size_t j = peak + 1; j < xs.size(); ++j) {
      if (bw[j] < half) {
        const double f = (bw[j - 1] - half) / (bw[j - 1] - bw[j]);
        pl.capacity_bytes =
            std::exp2(std::log2(xs[j - 1]) + f * (std::log2(xs[j]) - std::log2(xs[j - 1])));
        break;
      }
    }
    if (!std::isfinite(pl.capacity_bytes))
      pl.notes.push_back("Bandwidth never fell below the plateaus' midpoint.");
  } else if (std::isfinite(pl.hbm_gbps)) {
    pl.notes.push_back("The in-L2 plateau is not above the HBM plateau: no capacity knee to find.");
  }
  return pl;
}

Result present_l2_working_set(const L2WorkingSetResult& m) {
  std::vector<double> xs, bw;
  for (const L2Point& p : m.points) {
    xs.push_back(static_cast<double>(p.bytes));
    bw.push_back(p.gbps);
  }
  Result res;
  res.section.id = "l2-working-set";
  res.section.title = "L2: bandwidth against working set";
  res.section.paragraphs.push_back(
      "Every SM reads one buffer over and over with ld.global.cg (16-byte vectors, L1 bypassed), "
      "each launch "
      "moving at least " +
      fmt_mib(static_cast<double>(m.launch_bytes)) +
      " and no L2 flush between launches, so a working set that fits stays in L2. Bandwidth is "
      "bytes read "
      "over the median launch time. The effective L2 capacity is where the curve falls halfway "
      "from the "
      "in-L2 plateau to the HBM plateau (interpolated on log size).");
  res.section.tables.push_back(curve_table(m));
  res.section.tables.push_back(capacity_table(m));
  res.section.charts.push_back(curve_chart(xs, bw));
  add_claims(res.section, "l2-working-set", curve_claims(m, xs, bw));

  TierFigure fl2;
  fl2.tier = "L2";
  fl2.bandwidth_gbps = m.plateaus.in_l2_gbps;
  fl2.bandwidth_method =
      "probe l2-working-set: in-L2 plateau (ld.cg re-reads, median of the sets "
      "up to half the L2)";
  fl2.size = fmt_mib(static_cast<double>(m.l2_bytes));
  fl2.size_bytes = static_cast<double>(m.l2_bytes);
  TierFigure fhbm;
  fhbm.tier = "HBM";
  fhbm.bandwidth_gbps = m.plateaus.hbm_gbps;
  fhbm.bandwidth_method =
      "probe l2-working-set: HBM plateau (ld.cg reads, median of the sets of "
      "4x the L2 or more)";
  res.tiers = {fl2, fhbm};
  return res;
}

namespace {

// The seed's random row: 2 GB read at random against its sequential 200 MB set (5x an A100's
// L2), here the 2 GiB random point against the sequential read of 5x this card's L2.
ClaimRow random_claim(const L2RandomResult& m) {
  const L2Point* at = nullptr;
  for (const L2Point& p : m.points)
    if (p.bytes == 2 * GiB) at = &p;
  if (!at)
    return {ClaimId::l2_working_set_random_2gb, "n/a",
            not_measurable("no 2 GiB working set fitted in half the free memory")};
  if (!(m.sequential_gbps > 0))
    return {ClaimId::l2_working_set_random_2gb, fmt(at->gbps) + " GB/s at 2 GiB",
            not_measurable("the sequential set of 5x the L2 did not fit")};
  const double ratio = at->gbps / m.sequential_gbps;
  return {ClaimId::l2_working_set_random_2gb,
          fmt(at->gbps) + " GB/s at 2 GiB = " + fmt(ratio, 2) + "x the sequential " +
              fmt_mib(static_cast<double>(m.sequential_bytes)) + " set (" + fmt(m.sequential_gbps) +
              " GB/s)",
          judged(ratio, Claimed::value(0.17, "x"), claims::band(ClaimId::l2_working_set_random_2gb),
                 kNoFigure)};
}

report::Table random_curve_table(const L2RandomResult& m) {
  report::Table t;
  t.id = "l2-random";
  t.title = "Random 32-byte reads against working set";
  t.columns = {{"working set", "B", "working_set_bytes"},
               {"bandwidth", "GB/s", "gbps"},
               {"x sequential 5x L2", "", "x_sequential"}};
  for (const L2Point& p : m.points)
    t.rows.push_back({report::Value::integer(static_cast<std::int64_t>(p.bytes)),
                      report::Value::num(p.gbps, 0),
                      report::Value::num(p.gbps / m.sequential_gbps, 2)});
  if (m.points.back().bytes < m.sweep_top_bytes)
    t.notes.push_back("The sweep stops at " + fmt_mib(static_cast<double>(m.points.back().bytes)) +
                      ": half the free device memory.");
  return t;
}

report::Table random_plateaus_table(const L2RandomResult& m) {
  const L2Plateaus& pl = m.plateaus;
  report::Table c;
  c.id = "l2-random-plateaus";
  c.title = "Random reads: the L2-hit and HBM-bound plateaus";
  c.columns = {{"quantity", "", "quantity"}, {"value", "", "value"}, {"unit", "", "unit"}};
  auto row = [&](const std::string& q, double v, int decimals, const char* unit) {
    c.rows.push_back(
        {report::Value::str(q), report::Value::num(v, decimals), report::Value::str(unit)});
  };
  row("L2-hit plateau (random, sets up to half the L2)", pl.in_l2_gbps, 0, "GB/s");
  row("HBM-bound plateau (random, sets of 4x the L2 or more)", pl.hbm_gbps, 0, "GB/s");
  row("sequential read of " + fmt_mib(static_cast<double>(m.sequential_bytes)) + " (5x the L2)",
      m.sequential_gbps, 0, "GB/s");
  row("HBM-bound random / sequential", pl.hbm_gbps / m.sequential_gbps, 2, "x");
  row("effective capacity (random curve)", pl.capacity_bytes / MiB, 1, "MiB");
  c.notes = pl.notes;
  return c;
}

}  // namespace

Result present_l2_random(const L2RandomResult& m) {
  Result res;
  res.section.id = "l2-random";
  res.section.title = "L2: random 32-byte reads against working set";
  res.section.paragraphs.push_back(
      "Every SM reads one buffer at random, 32 bytes at a time: each pair of lanes reads the two "
      "16-byte halves of one 32-byte sector drawn by a hash (ld.global.cg, L1 bypassed, four "
      "draws in flight per thread, a fresh draw every launch). Each launch reads about " +
      fmt_mib(static_cast<double>(m.launch_bytes)) +
      ", with no L2 flush, so a set that fits stays in L2; bandwidth counts the 32 bytes of "
      "each read. The baseline is a sequential read of 5x the L2 with the l2-working-set probe's "
      "kernel, timed here: the seed's table is relative to its 200 MB set, 5x an A100's L2.");
  if (m.points.empty()) return res;
  std::vector<double> xs, bw;
  for (const L2Point& p : m.points) {
    xs.push_back(static_cast<double>(p.bytes));
    bw.push_back(p.gbps);
  }
  res.section.tables.push_back(random_curve_table(m));
  res.section.tables.push_back(random_plateaus_table(m));
  report::Chart ch = curve_chart(xs, bw);
  ch.id = "l2-random-chart";
  ch.title = "Random 32-byte read bandwidth against working set (all SMs, ld.cg)";
  ch.series.front().name = "random 32-byte reads";
  res.section.charts.push_back(std::move(ch));
  add_claims(res.section, "l2-random", {random_claim(m)});
  return res;
}

Result present_l2_persisting(const L2PersistingResult& m) {
  Result res;
  res.section.id = "l2-persisting";
  res.section.title = "L2 persistence: an access-policy window against streaming traffic";
  res.section.paragraphs.push_back(
      "A hot buffer of half the persisting set-aside (" +
      fmt_mib(static_cast<double>(m.hot_bytes)) +
      ") is read once per launch by every SM (ld.cg). Before each timed read, a buffer of twice "
      "the L2 size is read (ld.cg, the timing harness's L2 flush): streaming loads that evict "
      "normal lines. The hot reads are timed without a window and with a stream access-policy window over the hot buffer (hitRatio 1, hitProp "
      "persisting, missProp streaming, cudaLimitPersistingL2CacheSize at its maximum); the in-L2 "
      "reference reads the hot buffer with no eviction at all. Limit, window and persisting lines "
      "are "
      "reset afterwards.");

  report::Table t;
  t.id = "l2-persisting";
  t.title = "Hot-buffer read time with and without a persisting window";
  t.columns = {{"case", "", "case"},
               {"hot buffer", "B", "hot_bytes"},
               {"median", "us", "median_us"},
               {"bandwidth", "GB/s", "gbps"},
               {"speedup", "x", "speedup"}};
  auto row = [&](const char* name, double ms) {
    t.rows.push_back(
        {report::Value::str(name), report::Value::integer(static_cast<std::int64_t>(m.hot_bytes)),
         report::Value::num(ms * 1e3, 2), report::Value::num(gbps(m.bytes_per_read, ms), 0),
         report::Value::num(m.evicted_ms / ms, 2)});
  };
  row("in L2, no eviction (reference)", m.reference_ms);
  row("evicted, no window", m.evicted_ms);
  row("evicted, persisting window", m.window_ms);
  t.notes.push_back("Speedup is the evicted-without-window time over each row's time.");
  if (!m.unmeasured.empty()) t.notes.push_back("n/a: " + m.unmeasured + ".");
  res.section.tables.push_back(std::move(t));
  add_claims(res.section, "l2-persisting", {persisting_claim(m)});
  return res;
}

}  // namespace memhier::probe
