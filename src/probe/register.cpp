#include <cmath>
#include <map>

#include "families.hpp"

namespace memhier::probe {
namespace {

void add_all(std::vector<registry::Entry> entries) {
  for (registry::Entry& e : entries) registry::add_entry(std::move(e));
}

}  // namespace

void register_probes() {
  static bool done = false;
  if (done) return;
  done = true;
  // Report order is probes.inc's order.
#define MEMHIER_PROBE(name) add_all(name##_probes());
#include "probes.inc"
#undef MEMHIER_PROBE
}

std::vector<TierFigure> merge_tiers(const std::vector<TierFigure>& figures) {
  static const char* order[] = {"registers", "shared", "L1",  "L2",  "HBM",
                                 "constant",  "local",  "host", "peer"};
  std::map<std::string, TierFigure> merged;
  for (const TierFigure& f : figures) {
    TierFigure& m = merged[f.tier];
    m.tier = f.tier;
    if (std::isnan(m.latency_cycles)) m.latency_cycles = f.latency_cycles;
    if (std::isfinite(f.bandwidth_gbps) &&
        !(std::isfinite(m.bandwidth_gbps) && m.bandwidth_gbps >= f.bandwidth_gbps)) {
      m.bandwidth_gbps = f.bandwidth_gbps;  // ties keep the first method named
      m.bandwidth_method = f.bandwidth_method;
    }
    if (std::isfinite(f.copy_gbps) && !(m.copy_gbps >= f.copy_gbps)) m.copy_gbps = f.copy_gbps;
    if (m.size.empty()) {
      m.size = f.size;
      m.size_bytes = f.size_bytes;
    }
  }
  std::vector<TierFigure> out;
  for (const char* tier : order)
    if (merged.count(tier)) out.push_back(merged[tier]);
  for (const auto& [name, f] : merged) {
    bool known = false;
    for (const char* tier : order) known = known || name == tier;
    if (!known) out.push_back(f);
  }
  return out;
}

report::Section summary_section(const std::vector<TierFigure>& merged, const Context& ctx) {
  report::Section s;
  s.id = "memory-spaces";
  s.title = "Memory spaces, measured on this card";
  s.paragraphs.push_back(
      "Latency from dependent pointer chasing by one thread (cycles at the "
      "measured SM clock of " +
      std::to_string(static_cast<int>(ctx.sm_clock_mhz)) +
      " MHz); bandwidth with every SM busy, the fastest of the methods that measured the tier "
      "(named beside it).");
  report::Table t;
  t.id = "memory-spaces";
  t.title = "Latency and bandwidth per tier";
  t.columns = {{"tier", "", "tier"},
               {"latency", "cycles", "latency_cycles"},
               {"latency", "ns", "latency_ns"},
               {"bandwidth", "GB/s", "bandwidth_gbps"},
               {"bandwidth from", "", "bandwidth_method"},
               {"size", "", "size"}};
  using report::Value;
  for (const TierFigure& f : merged)
    t.rows.push_back(
        {Value::str(f.tier), Value::num(f.latency_cycles, 0),
         Value::num(std::isnan(f.latency_cycles) ? NAN : ctx.cycles_to_ns(f.latency_cycles), 1),
         Value::num(f.bandwidth_gbps, 0), Value::str(f.bandwidth_method), Value::str(f.size)});
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace memhier::probe
