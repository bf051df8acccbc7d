// explain's records as a report section (terminal, Markdown, HTML with the roofline) and as
// its JSON record. Host-only: the CPU tests render made-up diagnoses.
#include <algorithm>
#include <cmath>

#include "memhier/bench/explain.hpp"

namespace memhier::bench {
namespace {

using report::Column;
using report::Table;
using report::Value;

nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

nlohmann::json ceiling_json(const Ceiling& c) {
  return {{"value", number(c.value)}, {"from", model::to_string(c.from)}, {"source", c.source}};
}

// The kernel's name without its parameter list, shortened for a table cell.
std::string short_name(std::string name) {
  const std::string anonymous = "(anonymous namespace)::";
  for (std::size_t at; (at = name.find(anonymous)) != std::string::npos;)
    name.erase(at, anonymous.size());
  std::string n = name.substr(0, name.find('('));
  if (n.empty()) n = name;
  return n.size() > 60 ? n.substr(0, 57) + "..." : n;
}

std::string rung_text(const RungGain& r) {
  if (r.family.empty()) return "";
  std::string t = r.family + " " + r.from + " -> " + r.to;
  if (std::isfinite(r.gain)) t += report::strf(" (%.2fx at %s)", r.gain, r.shape.c_str());
  return t;
}

double standing(const KernelDiagnosis& d, const std::string& what) {
  for (const Standing& s : d.standings)
    if (s.what == what) return 100.0 * s.fraction();
  return NAN;
}

}  // namespace

std::vector<std::pair<std::string, std::pair<double, double>>> ladder_points(
    const nlohmann::json& record) {
  std::vector<std::pair<std::string, std::pair<double, double>>> out;
  if (!record.is_object() || !record.contains("sections")) return out;
  for (const nlohmann::json& s : record["sections"])
    for (const nlohmann::json& t : s.value("tables", nlohmann::json::array())) {
      if (t.value("id", "") != "roofline-points") continue;
      for (const nlohmann::json& r : t.value("rows", nlohmann::json::array()))
        if (r.is_object() && r.contains("intensity") && r["intensity"].is_number() &&
            r.contains("measured") && r["measured"].is_number())
          out.push_back(
              {r.value("kernel", ""), {r["intensity"].get<double>(), r["measured"].get<double>()}});
    }
  return out;
}

report::Section explain_section(const ExplainRun& run, const Ceilings& c) {
  report::Section sec;
  sec.id = "explain";
  sec.title = "Your kernels against " + c.card + "'s ceilings";
  std::string program;
  for (const std::string& a : run.program) program += (program.empty() ? "" : " ") + a;
  sec.paragraphs.push_back("Program: " + program + ". " + run.selection_said);

  Table ceil;
  ceil.id = "explain-ceilings";
  ceil.title = "This card's ceilings";
  ceil.columns = {{"ceiling", "", "ceiling"},
                  {"value", "", "value"},
                  {"unit", "", "unit"},
                  {"from", "", "from"},
                  {"source", "", "source"}};
  auto row = [&](const char* name, const Ceiling& x, const char* unit) {
    ceil.rows.push_back({Value::str(name), Value::num_or_none(x.value, 0), Value::str(unit),
                         Value::str(model::to_string(x.from)), Value::str(x.source)});
  };
  row("DRAM", c.dram, "GB/s");
  if (c.dram_copy.value > 0) row("DRAM copy (read + written)", c.dram_copy, "GB/s");
  row("L2", c.l2, "GB/s");
  row("L1/shared", c.shared, "GB/s");
  row("fp32", c.fp32, "GFLOP/s");
  row("tensor (bf16)", c.tensor, "GFLOP/s");
  ceil.rows.push_back({Value::str("DRAM latency"),
                       Value::num_or_none(c.dram_latency_ns > 0 ? c.dram_latency_ns : NAN, 0),
                       Value::str("ns"), Value::str(c.dram_latency_ns > 0 ? "measured" : "none"),
                       Value::str(c.latency_source)});
  sec.tables.push_back(std::move(ceil));

  Table k;
  k.id = "explain-kernels";
  k.title = "Each kernel against the ceilings";
  k.columns = {{"launch", "", "id"},
               {"kernel", "", "kernel"},
               {"grid", "", "grid"},
               {"block", "", "block"},
               {"time", "us", "us"},
               {"DRAM", "%", "dram_pct"},
               {"L2", "%", "l2_pct"},
               {"L1/shared", "%", "shared_pct"},
               {"fp32", "%", "fp32_pct"},
               {"tensor", "%", "tensor_pct"},
               {"intensity", "FLOP/B", "intensity"},
               {"occupancy", "%", "occupancy_pct"},
               {"achieved occ.", "%", "achieved_occupancy_pct"},
               {"first finding", "", "first_finding"}};
  for (const KernelDiagnosis& d : run.kernels) {
    k.rows.push_back(
        {Value::integer(d.counters.id), Value::str(short_name(d.counters.name)),
         Value::str(d.counters.grid), Value::str(d.counters.block),
         Value::num_or_none(d.duration_ns / 1e3, 1), Value::num_or_none(standing(d, "DRAM"), 0),
         Value::num_or_none(standing(d, "L2"), 0), Value::num_or_none(standing(d, "L1/shared"), 0),
         Value::num_or_none(standing(d, "fp32"), 0), Value::num_or_none(standing(d, "tensor"), 0),
         Value::num_or_none(d.intensity, 2),
         Value::num_or_none(d.occupancy ? 100.0 * d.occupancy->occupancy : NAN, 0),
         Value::num_or_none(100.0 * d.achieved_occupancy, 0),
         Value::str(d.findings.empty() ? "" : to_string(d.findings.front().kind))});
  }
  sec.tables.push_back(std::move(k));

  Table f;
  f.id = "explain-findings";
  f.title = "Findings, highest estimated gain first";
  f.columns = {{"launch", "", "id"},
               {"kind", "", "kind"},
               {"gain", "x", "gain"},
               {"measured", "", "measured"},
               {"ideal", "", "ideal"},
               {"what the counters show", "", "summary"},
               {"technique", "", "technique"},
               {"source", "", "source"},
               {"memhier rung (gain here)", "", "rung"}};
  for (const KernelDiagnosis& d : run.kernels)
    for (const Finding& x : d.findings)
      f.rows.push_back(
          {Value::integer(d.counters.id), Value::str(to_string(x.kind)), Value::num(x.gain, 2),
           Value::num_or_none(x.measured, 2), Value::num_or_none(x.ideal, 2), Value::str(x.summary),
           Value::str(x.technique), Value::str(x.source), Value::str(rung_text(x.rung))});
  for (const KernelDiagnosis& d : run.kernels)
    for (const std::string& n : d.notes)
      f.notes.push_back("launch " + std::to_string(d.counters.id) + ": " + n);
  sec.tables.push_back(std::move(f));

  // The roofline: the card's DRAM roof and peaks, each kernel with FLOPs a point.
  report::Chart ch;
  ch.id = "explain-roofline";
  ch.title = "Your kernels on this card's roofline";
  ch.x_label = "arithmetic intensity";
  ch.x_unit = "FLOP/byte";
  ch.y_label = "throughput";
  ch.y_unit = "GFLOP/s";
  ch.log_x = ch.log_y = true;
  const double top =
      std::isfinite(c.tensor.value) ? std::max(c.tensor.value, c.fp32.value) : c.fp32.value;
  if (std::isfinite(c.dram.value) && std::isfinite(top)) {
    const double lo = 0.01, hi = std::max(1e4, 4 * top / c.dram.value);
    ch.series.push_back({"DRAM roof", {lo, top / c.dram.value}, {c.dram.value * lo, top}});
    if (std::isfinite(c.fp32.value))
      ch.series.push_back(
          {"fp32 peak", {c.fp32.value / c.dram.value, hi}, {c.fp32.value, c.fp32.value}});
    if (std::isfinite(c.tensor.value))
      ch.series.push_back(
          {"tensor peak", {c.tensor.value / c.dram.value, hi}, {c.tensor.value, c.tensor.value}});
    for (const KernelDiagnosis& d : run.kernels) {
      const double g = d.flops / (d.duration_ns * 1e-9) / 1e9;
      if (std::isfinite(d.intensity) && d.intensity > 0 && std::isfinite(g) && g > 0)
        ch.series.push_back(
            {"#" + std::to_string(d.counters.id) + " " + short_name(d.counters.name).substr(0, 30),
             {d.intensity},
             {g}});
    }
    report::Series ladders;
    ladders.name = "memhier ladders (this card's record)";
    for (const auto& [name, p] : run.ladder_points) {
      if (!ladders.x.empty()) {
        ladders.x.push_back(NAN);
        ladders.y.push_back(NAN);
      }
      ladders.x.push_back(p.first);
      ladders.y.push_back(p.second);
    }
    if (!ladders.x.empty()) ch.series.push_back(std::move(ladders));
    sec.charts.push_back(std::move(ch));
  }
  return sec;
}

nlohmann::json explain_json(const ExplainRun& run, const Ceilings& c) {
  nlohmann::json j;
  j["program"] = run.program;
  j["selection"] = run.selection_said;
  j["ceilings"] = {{"card", c.card},
                   {"dram_gbps", ceiling_json(c.dram)},
                   {"l2_gbps", ceiling_json(c.l2)},
                   {"shared_gbps", ceiling_json(c.shared)},
                   {"fp32_gflops", ceiling_json(c.fp32)},
                   {"tensor_gflops", ceiling_json(c.tensor)},
                   {"dram_latency_ns", number(c.dram_latency_ns > 0 ? c.dram_latency_ns : NAN)},
                   {"latency_source", c.latency_source}};
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelDiagnosis& d : run.kernels) {
    nlohmann::json kj;
    kj["id"] = d.counters.id;
    kj["name"] = d.counters.name;
    kj["grid"] = d.counters.grid;
    kj["block"] = d.counters.block;
    kj["duration_ns"] = number(d.duration_ns);
    nlohmann::json st = nlohmann::json::array();
    for (const Standing& s : d.standings)
      st.push_back({{"what", s.what},
                    {"unit", s.unit},
                    {"achieved", number(s.achieved)},
                    {"ceiling", number(s.ceiling.value)},
                    {"fraction", number(s.fraction())},
                    {"from", model::to_string(s.ceiling.from)}});
    kj["standings"] = st;
    kj["flops"] = d.flops;
    kj["dram_bytes"] = number(d.dram_bytes);
    kj["intensity"] = number(d.intensity);
    kj["roof_gflops"] = number(d.roof_gflops);
    nlohmann::json occ = {
        {"achieved", number(d.achieved_occupancy)},
        {"block_threads", d.launch.block_threads},
        {"registers", d.launch.regs_per_thread},
        {"shared_bytes", d.launch.static_smem_bytes + d.launch.dynamic_smem_bytes}};
    if (d.occupancy) {
      occ["model"] = d.occupancy->occupancy;
      occ["blocks_per_sm"] = d.occupancy->blocks_per_sm;
      occ["limiter"] = model::to_string(d.occupancy->limiter);
    }
    kj["occupancy"] = occ;
    nlohmann::json fs = nlohmann::json::array();
    for (const Finding& f : d.findings) {
      nlohmann::json ev = nlohmann::json::array();
      for (const Evidence& e : f.evidence)
        ev.push_back({{"name", e.name}, {"metric", e.metric}, {"value", number(e.value)}});
      nlohmann::json rung;
      if (!f.rung.family.empty())
        rung = {{"family", f.rung.family},
                {"from", f.rung.from},
                {"to", f.rung.to},
                {"gain", number(f.rung.gain)},
                {"shape", f.rung.shape}};
      fs.push_back({{"kind", to_string(f.kind)},
                    {"summary", f.summary},
                    {"gain", f.gain},
                    {"measured", number(f.measured)},
                    {"ideal", number(f.ideal)},
                    {"ideal_from", f.ideal_from},
                    {"evidence", ev},
                    {"technique", f.technique},
                    {"source", f.source},
                    {"rung", rung}});
    }
    kj["findings"] = fs;
    nlohmann::json counters = nlohmann::json::object();
    for (const auto& [key, v] : d.counters.values) counters[key] = number(v);
    kj["counters"] = counters;
    kj["notes"] = d.notes;
    kernels.push_back(std::move(kj));
  }
  j["kernels"] = kernels;
  return j;
}

}  // namespace memhier::bench
