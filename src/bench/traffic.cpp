// Simulated against measured traffic (see traffic.hpp).
#include "memhier/bench/traffic.hpp"

#include <cmath>

#include "memhier/bench/simulate.hpp"
#include "memhier/core/device.hpp"

namespace memhier::bench {
namespace {

using report::Value;

// The field's ncu key and whether it is a hit rate (points) or bytes (relative).
struct Field {
  const char* key;
  const char* ncu_key;
  const char* title;
  bool rate;
};
constexpr Field kFields[] = {
    {"dram_read_bytes", "dram_read_bytes", "DRAM read", false},
    {"dram_write_bytes", "dram_write_bytes", "DRAM written", false},
    {"l1_hit_rate", "l1_hit_rate_pct", "L1 hit rate", true},
    {"l2_hit_rate", "l2_hit_rate_pct", "L2 hit rate", true},
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
  std::vector<TrafficCheck> out;
  for (const Field& f : kFields) {
    TrafficCheck c;
    c.field = f.key;
    c.simulated = f.key == std::string("dram_read_bytes")    ? t.dram_read_bytes()
                  : f.key == std::string("dram_write_bytes") ? t.dram_write_bytes()
                  : f.key == std::string("l1_hit_rate")      ? t.l1_hit_rate()
                                                             : t.l2_hit_rate();
    c.measured = f.rate ? measured_rate(it, f.ncu_key) : it.measured(f.ncu_key);
    out.push_back(c);
  }
  return out;
}

model::Card profiled_card() {
  model::Card card = *model::find_card("h100");
  std::string why;
  if (const auto dev = core::query_device(0, &why)) {
    if (const model::Card* c = model::card_for(dev->cc_major, dev->cc_minor)) card = *c;
    card.name = dev->name;
    if (dev->sm_count > 0) card.sms = dev->sm_count;
    if (dev->l2_bytes > 0) card.l2_bytes = dev->l2_bytes;
  }
  return card;
}

void add_traffic_comparison(report::Section& s, const std::vector<ProfileItem>& items,
                            const model::Card& card) {
  report::Table t;
  t.columns = {{"target", "", "target"}, {"item", "", "item"}, {"shape", "", "shape"}};
  for (const Field& f : kFields) {
    const std::string unit = f.rate ? "%" : "B";
    t.columns.push_back({std::string(f.title) + " (simulated)", unit, std::string(f.key) + "_sim"});
    t.columns.push_back({std::string(f.title) + " (ncu)", unit, std::string(f.key) + "_ncu"});
  }
  t.columns.push_back({"verdict", "", "verdict"});
  report::Chart chart;
  chart.kind = report::Chart::Kind::bar;
  chart.y_label = "DRAM bytes (read + written)";
  chart.y_unit = "B";
  chart.log_y = true;
  report::Series sim{"simulated", {}, {}}, ncu{"measured (ncu)", {}, {}};
  int within = 0, total = 0;
  int field_within[4] = {0, 0, 0, 0};
  std::string target;
  for (const ProfileItem& it : items) {
    const auto checks = traffic_checks(it, card);
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
      else
        missed += (missed.empty() ? "outside: " : ", ") + c.field;
    }
    if (missed.empty()) ++within;
    row.push_back(Value::str(missed.empty() ? "within" : missed));
    t.rows.push_back(std::move(row));
    chart.categories.push_back(it.name + " " + it.shape);
    sim.y.push_back((*checks)[0].simulated + (*checks)[1].simulated);
    ncu.y.push_back((*checks)[0].measured + (*checks)[1].measured);
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
      "%d of %d items within every bar (DRAM bytes within %.0f%% or %.0f KiB, hit rates within "
      "%.0f points); per figure: DRAM read %d, DRAM written %d, L1 hit rate %d, L2 hit rate %d.",
      within, total, kDramTolerance * 100, kDramFloorBytes / 1024, kHitRatePoints, field_within[0],
      field_within[1], field_within[2], field_within[3]));
  s.tables.push_back(std::move(t));
  chart.id = "profile-" + target + "-dram-chart";
  chart.title = "DRAM bytes per kernel: simulated against measured";
  chart.series = {sim, ncu};
  s.charts.push_back(std::move(chart));
}

}  // namespace memhier::bench
