// The latency probes' sections from their measurements: tables, chart, knees and the
// claims judged against the figures. No CUDA: numbers in, report sections out.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/latency.hpp"

namespace memhier::probe {
namespace {

// A tier's claimed range in cycles; judged within ±50% of it.
struct LatencyClaim {
  const char* tier;
  ClaimId id;  // text and source in the claims catalogue
  double lo, hi;
};

const LatencyClaim kClaims[] = {
    {"shared", ClaimId::latency_shared_20_30_cycles, 20, 30},
    {"shared", ClaimId::latency_shared_32_cycles, 32, 32},
    {"L1", ClaimId::latency_l1_30_40_cycles, 30, 40},
    {"L1", ClaimId::latency_l1_40_cycles, 40, 40},
    {"L1", ClaimId::latency_l1_33_cycles_published, 33, 33},
    {"L2", ClaimId::latency_l2_200_cycles, 200, 200},
    {"L2", ClaimId::latency_l2_265_530_cycles_published, 265, 530},
    {"HBM", ClaimId::latency_hbm_400_600_cycles, 400, 600},
    {"HBM", ClaimId::latency_hbm_400_cycles, 400, 400},
    {"HBM", ClaimId::latency_hbm_650_690_cycles_published, 650, 690},
    {"constant", ClaimId::latency_constant_40_cycles, 40, 40},
    {"local", ClaimId::latency_local_400_cycles, 400, 400},
    {"local", ClaimId::latency_spill_400_600_cycles, 400, 600},
};

constexpr const char* kNoFigure = "no figure on this card (see notes)";

report::Table tiers_table(const LatencyResult& m) {
  report::Table t;
  t.id = "latency-tiers";
  t.title = "Load-to-use latency per tier";
  t.columns = {{"tier", "", "tier"},
               {"method", "", "method"},
               {"latency", "cycles", "cycles"},
               {"latency", "ns", "ns"}};
  for (const TierLatency& r : m.tiers)
    t.rows.push_back({report::Value::str(r.tier), report::Value::str(r.method),
                      report::Value::num(r.cycles, 1),
                      report::Value::num(cycles_to_ns(r.cycles, m.sm_clock_mhz), 1)});
  t.notes = m.notes;
  t.notes.push_back(
      "The HBM row keeps 512 hops inside one 2 MiB page (address translation hits); the "
      "TLB-missing row jumps to a random page every hop, adding the page-table cache miss.");
  t.notes.push_back(
      "The local-memory array is small and warm, so it is served by L1: this is the cost of "
      "local memory that hits, not of a spill that misses both caches.");
  return t;
}

std::vector<ClaimRow> tier_claims(const LatencyResult& m) {
  std::vector<ClaimRow> claims;
  for (const LatencyClaim& c : kClaims) {
    const double cycles = m.cycles_of(c.tier);
    claims.push_back(
        {c.id,
         std::string(c.tier) + ": " + fmt(cycles, 1) + " cycles (" +
             fmt(cycles_to_ns(cycles, m.sm_clock_mhz), 1) + " ns)",
         judged(cycles, Claimed::range(c.lo, c.hi, "cycles"), claims::band(c.id), kNoFigure)});
  }
  // 000: 32 against 400 cycles, "12x faster"; judged as the ratio of this card's two.
  const double hbm = m.cycles_of("HBM"), shared = m.cycles_of("shared");
  const double x = hbm / shared;
  claims.push_back(
      {ClaimId::shared_12x_faster_than_global,
       "HBM " + fmt(hbm, 1) + " cycles / shared " + fmt(shared, 1) + " cycles = " + fmt(x, 1) + "x",
       judged(x, Claimed::value(12, "x"), claims::band(ClaimId::shared_12x_faster_than_global),
              kNoFigure)});
  return claims;
}

// The knees of one series (the index of the first point above each step).
struct Knee {
  std::size_t index = 0;
  double before = NAN, after = NAN;
};

// A point whose latency exceeds the current tier's median by more than 1.4x starts a
// new tier; the transition runs while later points keep rising by more than 10%, and
// its last point is the new tier's first level.
std::vector<Knee> find_knees(const std::vector<double>& y) {
  std::vector<Knee> knees;
  std::size_t tier_start = 0;
  std::size_t i = 1;
  while (i < y.size()) {
    const double ref =
        median(std::vector<double>(y.begin() + static_cast<std::ptrdiff_t>(tier_start),
                                   y.begin() + static_cast<std::ptrdiff_t>(i)));
    if (std::isfinite(y[i]) && std::isfinite(ref) && y[i] > 1.4 * ref) {
      std::size_t j = i;
      while (j + 1 < y.size() && std::isfinite(y[j + 1]) && y[j + 1] > 1.1 * y[j]) ++j;
      knees.push_back({i, ref, y[j]});
      tier_start = j;
      i = j + 1;
    } else {
      ++i;
    }
  }
  return knees;
}

const char* knee_class(std::uint64_t bytes, std::uint64_t l2) {
  if (bytes <= MiB) return "L1";
  if (bytes <= 4 * l2) return "L2";
  return "TLB";
}

report::Table sweep_table(const WorkingSetResult& m) {
  report::Table t;
  t.id = "latency-working-set";
  t.title = "Latency against ring size";
  t.columns = {{"working set", "B", "working_set_bytes"},
               {"ld.ca", "cycles", "ca_cycles"},
               {"ld.cg", "cycles", "cg_cycles"},
               {"ld.ca", "ns", "ca_ns"},
               {"ld.cg", "ns", "cg_ns"}};
  for (const WorkingSetPoint& p : m.points)
    t.rows.push_back({report::Value::integer(static_cast<std::int64_t>(p.bytes)),
                      report::Value::num(p.ca_cycles, 1), report::Value::num(p.cg_cycles, 1),
                      report::Value::num(cycles_to_ns(p.ca_cycles, m.sm_clock_mhz), 1),
                      report::Value::num(cycles_to_ns(p.cg_cycles, m.sm_clock_mhz), 1)});
  if (m.points.back().bytes < m.sweep_top_bytes)
    t.notes.push_back("The sweep stops at " +
                      fmt_bytes(static_cast<double>(m.points.back().bytes)) +
                      ": half the free device memory.");
  return t;
}

report::Table knees_table(const WorkingSetResult& m) {
  report::Table k;
  k.id = "latency-knees";
  k.title = "Knees: where latency steps up";
  k.caption =
      "A point more than 1.4x the current tier's median starts a new tier. The class follows the "
      "size: "
      "up to 1 MiB L1, up to 4x the L2 size L2, beyond that the reach of the address-translation "
      "caches.";
  k.columns = {{"knee", "", "knee"},
               {"working set", "B", "working_set_bytes"},
               {"before", "cycles", "before_cycles"},
               {"after", "cycles", "after_cycles"}};
  for (const LatencyKnee& kn : m.knees)
    k.rows.push_back(
        {report::Value::str(kn.label), report::Value::integer(static_cast<std::int64_t>(kn.bytes)),
         report::Value::num(kn.before_cycles, 1), report::Value::num(kn.after_cycles, 1)});
  if (k.rows.empty()) k.notes.push_back("No point rose 1.4x above its tier: no knee found.");
  return k;
}

report::Chart sweep_chart(const WorkingSetResult& m) {
  std::vector<double> xs, ca, cg;
  for (const WorkingSetPoint& p : m.points) {
    xs.push_back(static_cast<double>(p.bytes));
    ca.push_back(p.ca_cycles);
    cg.push_back(p.cg_cycles);
  }
  report::Chart ch;
  ch.id = "latency-working-set-chart";
  ch.title = "Pointer-chase latency against working set";
  ch.kind = report::Chart::Kind::line;
  ch.x_label = "working set";
  ch.x_unit = "B";
  ch.y_label = "latency";
  ch.y_unit = "cycles";
  ch.log_x = true;
  ch.series = {{"ld.ca", xs, ca}, {"ld.cg", xs, cg}};
  return ch;
}

// A knee lies between two ring sizes; it reproduces a size claim when that step meets the
// claimed size within the claim's band (sizes in `unit_bytes`, the claim's own unit).
ClaimRow capacity_row(ClaimId id, const std::string& prefix, const LatencyKnee* f,
                      const Claimed& claimed, double unit_bytes) {
  if (!f)
    return ClaimRow{id, prefix + "no knee found",
                    claims::judge_interval(NAN, NAN, claimed, claims::band(id),
                                           "the curve shows no step there")};
  const std::string measured = prefix + "latency rises between " +
                               fmt_bytes(static_cast<double>(f->prev_bytes)) + " and " +
                               fmt_bytes(static_cast<double>(f->bytes)) + " (" +
                               fmt(f->before_cycles) + " -> " + fmt(f->after_cycles) + " cycles)";
  return ClaimRow{id, measured,
                  claims::judge_interval(static_cast<double>(f->prev_bytes) / unit_bytes,
                                         static_cast<double>(f->bytes) / unit_bytes, claimed,
                                         claims::band(id))};
}

// Capacities from the knee brackets (the cache ends between the last point below the
// knee and the knee), latency far beyond L2.
std::vector<ClaimRow> sweep_claims(const WorkingSetResult& m) {
  auto first_knee = [&](const std::string& label) -> const LatencyKnee* {
    for (const LatencyKnee& k : m.knees)
      if (k.label == label) return &k;
    return nullptr;
  };
  std::vector<ClaimRow> claims;
  claims.push_back(capacity_row(ClaimId::l1_size_128_256kb, "ld.ca knee: ",
                                first_knee("L1 (ld.ca)"), Claimed::range(128, 256, "KiB"), KiB));
  claims.push_back(capacity_row(ClaimId::l2_size_50mb,
                                "ld.cg knee (this card's properties say " +
                                    fmt_bytes(static_cast<double>(m.l2_bytes)) + "): ",
                                first_knee("L2 (ld.cg)"), Claimed::value(50, "MB"), 1e6));
  const WorkingSetPoint& far = m.points.back();
  claims.push_back({ClaimId::latency_hbm_400_600_cycles,
                    "ld.cg, largest ring: " + fmt(far.cg_cycles, 1) + " cycles at " +
                        fmt_bytes(static_cast<double>(far.bytes)),
                    judged(far.cg_cycles, Claimed::range(400, 600, "cycles"),
                           claims::band(ClaimId::latency_hbm_400_600_cycles), kNoFigure)});
  return claims;
}

}  // namespace

double LatencyResult::cycles_of(const std::string& tier) const {
  for (const TierLatency& t : tiers)
    if (t.tier == tier) return t.cycles;
  return NAN;
}

Result present_latency(const LatencyResult& m) {
  Result res;
  res.section.id = "latency";
  res.section.title = "Latency per tier (pointer chasing)";
  res.section.paragraphs.push_back(
      "One thread follows a random cyclic ring of pointers, each load's address being the previous "
      "load's "
      "value, so the loads form one dependent chain. clock64() is read inside the kernel around " +
      std::to_string(m.steps) +
      " hops after a warm-up pass; the figure is cycles per hop (median of " +
      std::to_string(m.reps) + " launches) and nanoseconds at the measured SM clock of " +
      fmt(m.sm_clock_mhz) +
      " MHz. ld.ca keeps L1 in the path, ld.cg bypasses it to isolate L2; the HBM ring is far "
      "larger than L2 "
      "and L2 is flushed before each launch.");
  res.section.tables.push_back(tiers_table(m));
  add_claims(res.section, "latency", tier_claims(m));
  for (const TierLatency& r : m.tiers) {
    if (r.tier == "HBM (TLB-missing)") continue;
    TierFigure f;
    f.tier = r.tier;
    f.latency_cycles = r.cycles;
    f.size = r.size;
    f.size_bytes = r.size_bytes;
    res.tiers.push_back(f);
  }
  return res;
}

std::vector<LatencyKnee> find_latency_knees(const std::vector<WorkingSetPoint>& points,
                                            std::uint64_t l2_bytes) {
  std::vector<LatencyKnee> found;
  for (int series = 0; series < 2; ++series) {
    std::vector<double> y;
    for (const WorkingSetPoint& p : points) y.push_back(series == 0 ? p.ca_cycles : p.cg_cycles);
    const char* op = series == 0 ? "ld.ca" : "ld.cg";
    std::vector<std::string> used;
    for (const Knee& kn : find_knees(y)) {
      const std::uint64_t bytes = points[kn.index].bytes;
      std::string label = std::string(knee_class(bytes, l2_bytes)) + " (" + op + ")";
      const auto repeats = std::count(used.begin(), used.end(), label);
      used.push_back(label);
      if (repeats > 0) label += " step " + std::to_string(repeats + 1);
      found.push_back(
          {label, bytes, kn.index > 0 ? points[kn.index - 1].bytes : bytes, kn.before, kn.after});
    }
  }
  return found;
}

Result present_latency_working_set(const WorkingSetResult& m) {
  Result res;
  res.section.id = "latency-working-set";
  res.section.title = "Latency against working set";
  res.section.paragraphs.push_back(
      "Pointer chasing by one thread over random rings from " +
      fmt_bytes(static_cast<double>(m.points.front().bytes)) + " to " +
      fmt_bytes(static_cast<double>(m.points.back().bytes)) +
      " (one slot per 128-byte line), with ld.ca (through L1) and ld.cg (L2 and beyond). Before "
      "each launch a "
      "full-grid pass reads every slot (the ring sits in L2 as far as it fits), the chase block "
      "touches every "
      "64 KiB (a warm TLB) and, for rings up to 2 MiB, reads every slot itself (a warm L1); then " +
      std::to_string(m.steps) + " dependent hops are timed with clock64() (median of " +
      std::to_string(m.reps) + " launches; ns at the measured SM clock of " + fmt(m.sm_clock_mhz) +
      " MHz). Latency steps up where the ring outgrows a cache: the knees.");
  res.section.tables.push_back(sweep_table(m));
  res.section.tables.push_back(knees_table(m));
  res.section.charts.push_back(sweep_chart(m));
  add_claims(res.section, "latency-working-set", sweep_claims(m));
  return res;
}

}  // namespace memhier::probe
