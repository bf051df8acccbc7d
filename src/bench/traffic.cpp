// Simulated against measured traffic (see traffic.hpp).
#include "memhier/bench/traffic.hpp"

#include <cmath>

#include "memhier/bench/simulate.hpp"
#include "memhier/core/device.hpp"

namespace memhier::bench {
namespace {

using report::Value;

// The field's ncu key, whether it is a hit rate (points) or bytes (relative), and whether it is
// held to a bar (DRAM bytes as the total read + written; the parts are shown).
struct Field {
  const char* key;
  const char* ncu_key;
  const char* title;
  bool rate;
  bool judged;
};
constexpr Field kFields[] = {
    {"dram_read_bytes", "dram_read_bytes", "DRAM read", false, false},
    {"dram_write_bytes", "dram_write_bytes", "DRAM written", false, false},
    {"l1_hit_rate", "l1_hit_rate_pct", "L1 hit rate", true, true},
    {"l2_hit_rate", "l2_hit_rate_pct", "L2 hit rate", true, true},
    {"dram_bytes", "", "DRAM read + written", false, true},
};

bool is_rate(const std::string& field) {
  for (const Field& f : kFields)
    if (field == f.key) return f.rate;
  return false;
}

// A hit rate over the kernels of one item (a classic reduction's passes): hits over lookups
// of them all, each kernel's rate weighted by its lookups (its L1 global sectors, or its L2
// sectors from the SMs); the plain mean where a kernel lacks that count. A lone kernel's rate
// is its own.
double measured_rate(const ProfileItem& it, const std::string& key) {
  double sum = 0, weights = 0, plain = 0;
  int n = 0;
  bool weighted = true;
  for (const profile::KernelCounters& k : it.kernels) {
    const double v = k.get(key);
    if (std::isnan(v)) continue;
    const double w = key == "l2_hit_rate_pct"
                         ? k.get("l2_sm_sectors")
                         : k.get("global_ld_sectors") + k.get("global_st_sectors");
    weighted = weighted && !std::isnan(w);
    if (!std::isnan(w)) {
      sum += v * w;
      weights += w;
    }
    plain += v;
    ++n;
  }
  if (n == 0) return NAN;
  return weighted && weights > 0 ? sum / weights : plain / n;
}

}  // namespace

bool TrafficCheck::within() const {
  if (std::isnan(measured) || std::isnan(simulated)) return false;
  const double d = std::fabs(simulated - measured);
  if (is_rate(field)) return d <= kHitRatePoints;
  return d <= kDramFloorBytes || d <= kDramTolerance * std::fabs(measured);
}

LaunchFloor launch_floor(const ProfileItem& it) {
  LaunchFloor f;
  const profile::KernelCounters& m = it.marker;
  f.l2_hits = m.get("l2_lookup_hits");
  f.l2_lookups = f.l2_hits + m.get("l2_lookup_misses");
  f.dram_read_bytes = m.get("dram_read_bytes");
  f.dram_write_bytes = m.get("dram_write_bytes");
  return f;
}

std::optional<std::vector<TrafficCheck>> traffic_checks(const ProfileItem& it,
                                                        const model::Card& card) {
  if (it.name == "baseline" || it.kernels.empty() || !it.note.empty()) return std::nullopt;
  const std::string variant = it.runs.empty() ? it.name : it.runs;
  bool streamed = false;
  for (const std::string& t : simulate_targets()) streamed = streamed || t == it.target;
  if (!streamed) return std::nullopt;
  const SimulateItem s = simulate_one(it.target, variant, it.shape, card);
  if (!s.modeled || !s.runs) return std::nullopt;
  const model::Traffic& t = s.result.traffic;
  const LaunchFloor floor = launch_floor(it);
  // Every launch of the item carries the floor's DRAM bytes; a floor not measured adds none.
  const double launches = static_cast<double>(it.kernels.size());
  auto plus = [](double v, double add) { return std::isnan(add) ? v : v + add; };
  const double rd = plus(t.dram_read_bytes(), floor.dram_read_bytes * launches);
  const double wr = plus(t.dram_write_bytes(), floor.dram_write_bytes * launches);
  double l2 = t.l2_hit_rate();
  if (!std::isnan(floor.l2_lookups) && floor.l2_lookups + static_cast<double>(t.l2_lookups()) > 0)
    l2 = 100.0 * (static_cast<double>(t.l2_hits()) + floor.l2_hits) /
         (static_cast<double>(t.l2_lookups()) + floor.l2_lookups);
  std::vector<TrafficCheck> out;
  for (const Field& f : kFields) {
    TrafficCheck c;
    c.field = f.key;
    c.judged = f.judged;
    const std::string key = f.key;
    c.simulated = key == "dram_read_bytes"    ? rd
                  : key == "dram_write_bytes" ? wr
                  : key == "dram_bytes"       ? rd + wr
                  : key == "l1_hit_rate"      ? t.l1_hit_rate()
                                              : l2;
    c.measured = key == "dram_bytes"
                     ? it.measured("dram_read_bytes") + it.measured("dram_write_bytes")
                 : f.rate ? measured_rate(it, f.ncu_key)
                          : it.measured(f.ncu_key);
    out.push_back(c);
  }
  return out;
}

std::vector<std::optional<std::vector<TrafficCheck>>> traffic_checks_each(
    const std::vector<ProfileItem>& items, const model::Card& card) {
  std::vector<std::optional<std::vector<TrafficCheck>>> out(items.size());
  replay_each(items.size(), [&](std::size_t i) { out[i] = traffic_checks(items[i], card); });
  return out;
}

namespace {

// The marker kernel's counters per item: the launch floor each comparison adds.
report::Table marker_table(const std::string& target, const std::vector<ProfileItem>& items) {
  report::Table m;
  m.id = "profile-" + target + "-markers";
  m.title = "The empty marker kernel before each item: what a launch adds by itself";
  m.columns = {{"target", "", "target"}, {"item", "", "item"}, {"shape", "", "shape"}};
  std::vector<const profile::Metric*> shown;
  for (const profile::Metric& x : profile::metrics())
    if (!x.access) shown.push_back(&x);
  for (const profile::Metric* x : shown) m.columns.push_back({x->title, "", x->key});
  for (const ProfileItem& it : items) {
    if (it.marker.name.empty()) continue;
    std::vector<Value> row = {Value::str(it.target), Value::str(it.name), Value::str(it.shape)};
    for (const profile::Metric* x : shown) {
      const bool pct = x->key.find("pct") != std::string::npos;
      row.push_back(Value::num_or_none(it.marker.get(x->key), pct ? 2 : 0));
    }
    m.rows.push_back(std::move(row));
  }
  // The floor as this run measured it: the markers' mean L2 lookups and hits.
  double hits = 0, lookups = 0;
  int markers = 0;
  for (const ProfileItem& it : items) {
    const LaunchFloor f = launch_floor(it);
    if (it.marker.name.empty() || std::isnan(f.l2_lookups)) continue;
    hits += f.l2_hits;
    lookups += f.l2_lookups;
    ++markers;
  }
  m.notes.push_back(
      "Nsight Compute counts, in every kernel it profiles, L2 lookups that are no access of the "
      "kernel, nearly all hits: the marker, an empty kernel, measures that floor on this card "
      "in the same run" +
      (markers > 0 ? report::strf(" (here %.0f lookups a launch, %.0f of them hits).",
                                  lookups / markers, hits / markers)
                   : std::string(".")));
  return m;
}

}  // namespace

void add_traffic_comparison(report::Section& s, const std::vector<ProfileItem>& items,
                            const model::Card& card) {
  report::Table t;
  t.columns = {{"target", "", "target"}, {"item", "", "item"}, {"shape", "", "shape"}};
  constexpr std::size_t kN = sizeof(kFields) / sizeof(kFields[0]);
  for (const Field& f : kFields) {
    const std::string unit = f.rate ? "%" : "B";
    t.columns.push_back({std::string(f.title) + " (simulated)", unit, std::string(f.key) + "_sim"});
    t.columns.push_back({std::string(f.title) + " (ncu)", unit, std::string(f.key) + "_ncu"});
  }
  t.columns.push_back({"launch floor: L2 hits", "", "floor_l2_hits"});
  t.columns.push_back({"launch floor: L2 lookups", "", "floor_l2_lookups"});
  t.columns.push_back({"launch floor: DRAM read", "B", "floor_dram_read_bytes"});
  t.columns.push_back({"launch floor: DRAM written", "B", "floor_dram_write_bytes"});
  t.columns.push_back({"kernels", "", "kernels"});
  t.columns.push_back({"verdict", "", "verdict"});
  report::Chart chart;
  chart.kind = report::Chart::Kind::bar;
  chart.y_label = "DRAM bytes (read + written)";
  chart.y_unit = "B";
  chart.log_y = true;
  report::Series sim{"simulated", {}, {}}, ncu{"measured (ncu)", {}, {}};
  int within = 0, total = 0;
  int field_within[kN] = {};
  std::string target;
  const auto each = traffic_checks_each(items, card);
  for (std::size_t k = 0; k < items.size(); ++k) {
    const ProfileItem& it = items[k];
    const auto& checks = each[k];
    if (!checks) continue;
    target = it.target;
    ++total;
    std::vector<Value> row = {Value::str(it.target), Value::str(it.name), Value::str(it.shape)};
    std::string missed;
    for (std::size_t i = 0; i < checks->size(); ++i) {
      const TrafficCheck& c = (*checks)[i];
      const int digits = is_rate(c.field) ? 1 : 0;
      row.push_back(Value::num_or_none(c.simulated, digits));
      row.push_back(Value::num_or_none(c.measured, digits));
      if (c.within())
        ++field_within[i];
      else if (c.judged)
        missed += (missed.empty() ? "outside: " : ", ") + c.field;
    }
    const LaunchFloor fl = launch_floor(it);
    for (double v : {fl.l2_hits, fl.l2_lookups, fl.dram_read_bytes, fl.dram_write_bytes})
      row.push_back(Value::num_or_none(v, 0));
    row.push_back(Value::integer(static_cast<std::int64_t>(it.kernels.size())));
    if (missed.empty()) ++within;
    row.push_back(Value::str(missed.empty() ? "within" : missed));
    t.rows.push_back(std::move(row));
    chart.categories.push_back(it.name + " " + it.shape);
    sim.y.push_back((*checks)[4].simulated);
    ncu.y.push_back((*checks)[4].measured);
  }
  if (total == 0) return;
  t.id = "profile-" + target + "-traffic";
  t.title = "Simulated against measured: L1, L2 and DRAM traffic";
  t.caption = "memhier simulate's replay of each kernel on " + card.name + " (" +
              std::to_string(card.sms) + " SMs, " +
              report::strf("%.0f MiB", static_cast<double>(card.l2_bytes) / (1 << 20)) +
              " L2) beside Nsight Compute's dram__bytes_read/write.sum, "
              "l1tex__t_sector_hit_rate.pct and lts__t_sector_hit_rate.pct.";
  t.notes.push_back(report::strf(
      "%d of %d items within every bar (DRAM bytes read + written within %.0f%% or %.0f KiB, "
      "hit rates within %.0f points); per figure: DRAM read + written %d, L1 hit rate %d, L2 "
      "hit rate %d (read alone %d, written alone %d, shown and not judged).",
      within, total, kDramTolerance * 100, kDramFloorBytes / 1024, kHitRatePoints, field_within[4],
      field_within[2], field_within[3], field_within[0], field_within[1]));
  t.notes.push_back(
      "DRAM bytes are judged as the item's total, read + written: the written bytes of a "
      "read-dominated kernel are a few KB to MB of which a small absolute error is a large "
      "share; read and written are shown apart.");
  t.notes.push_back(
      "Simulated L2 hit rate = (model hits + floor hits) / (model lookups + floor lookups): the "
      "model's lookups count a far-homed sector twice, at the SM's own partition (srcunit tex) "
      "and at its home over the fabric (srcunit ltcfabric), as ncu does, and the floor is the "
      "marker kernel's lts__t_sectors_lookup_hit / _miss in the same run. Simulated DRAM bytes "
      "add the marker's DRAM bytes once per kernel of the item.");
  s.tables.push_back(std::move(t));
  report::Table m = marker_table(target, items);
  if (!m.rows.empty()) s.tables.push_back(std::move(m));
  chart.id = "profile-" + target + "-dram-chart";
  chart.title = "DRAM bytes per kernel: simulated against measured";
  chart.series = {sim, ncu};
  s.charts.push_back(std::move(chart));
}

}  // namespace memhier::bench
