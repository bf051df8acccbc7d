#include "memhier/bench/continuation.hpp"

#include <cmath>
#include <stdexcept>

#include "memhier/report/writers.hpp"
#include "memhier/results/check.hpp"
#include "memhier/results/claim_id.hpp"

namespace memhier::bench {
namespace {

using nlohmann::json;

// JSON has no NaN: a figure not measured is null, and reads back as NaN.
json num(double v) {
  return std::isfinite(v) ? json(v) : json();
}
double get_num(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : NAN;
}
std::string get_str(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
template <class T>
T get(const json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  return it != j.end() && !it->is_null() ? it->get<T>() : fallback;
}

constexpr const char* kStages[] = {"probes", "ladders", "sweep", "profiles"};
constexpr int kStageCount = static_cast<int>(sizeof kStages / sizeof kStages[0]);
static_assert(static_cast<int>(ResumePoint::Stage::profiles) == kStageCount - 1,
              "one name per stage, in the enum's order");

json spread(const results::Spread& s) {
  return {num(s.p10), num(s.p90)};
}
results::Spread spread_from(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array() || it->size() != 2) return {};
  return {(*it)[0].is_number() ? (*it)[0].get<double>() : NAN,
          (*it)[1].is_number() ? (*it)[1].get<double>() : NAN};
}

json record_json(const results::BenchRecord& r) {
  return {{"family", r.family},
          {"variant", r.variant},
          {"shape", r.shape},
          {"number_type", static_cast<int>(r.number_type)},
          {"bound", static_cast<int>(r.bound)},
          {"sets_peak", r.sets_peak},
          {"rung", r.rung},
          {"ceiling", r.ceiling},
          {"verified", r.verified},
          {"declined", r.declined},
          {"not_measured", r.not_measured},
          {"rel_error", num(r.rel_error)},
          {"tolerance", num(r.tolerance)},
          {"bad_elements", r.bad_elements},
          {"worst_ratio", num(r.worst_ratio)},
          {"ms", num(r.ms)},
          {"spread", num(r.spread)},
          {"gbps", num(r.gbps)},
          {"gflops", num(r.gflops)},
          {"peak_pct", num(r.peak_pct)},
          {"peak_kind", r.peak_kind},
          {"frac_memcpy", num(r.frac_memcpy)},
          {"frac_memcpy_spread", spread(r.frac_memcpy_spread)},
          {"x_vendor", num(r.x_vendor)},
          {"x_vendor_spread", spread(r.x_vendor_spread)},
          {"x_read_only", num(r.x_read_only)},
          {"x_read_only_spread", spread(r.x_read_only_spread)},
          {"x_prev", num(r.x_prev)},
          {"x_torch", num(r.x_torch)},
          {"reference", r.reference},
          {"regs", r.regs},
          {"local_bytes", r.local_bytes},
          {"static_smem", r.static_smem},
          {"dynamic_smem", r.dynamic_smem},
          {"blocks_per_sm", r.blocks_per_sm},
          {"occupancy", num(r.occupancy)},
          {"note", r.note},
          {"config", r.config}};
}

results::BenchRecord record_from(const json& j) {
  results::BenchRecord r;
  r.family = get_str(j, "family");
  r.variant = get_str(j, "variant");
  r.shape = get_str(j, "shape");
  r.number_type = static_cast<model::NumberType>(get(j, "number_type", 0));
  r.bound = static_cast<results::Bound>(get(j, "bound", 0));
  r.sets_peak = get(j, "sets_peak", false);
  r.rung = get(j, "rung", 0);
  r.ceiling = get(j, "ceiling", false);
  r.verified = get(j, "verified", false);
  r.declined = get_str(j, "declined");
  r.not_measured = get_str(j, "not_measured");
  r.rel_error = get_num(j, "rel_error");
  r.tolerance = get_num(j, "tolerance");
  r.bad_elements = get<std::uint64_t>(j, "bad_elements", 0);
  r.worst_ratio = get_num(j, "worst_ratio");
  r.ms = get_num(j, "ms");
  r.spread = get_num(j, "spread");
  r.gbps = get_num(j, "gbps");
  r.gflops = get_num(j, "gflops");
  r.peak_pct = get_num(j, "peak_pct");
  r.peak_kind = get_str(j, "peak_kind");
  r.frac_memcpy = get_num(j, "frac_memcpy");
  r.frac_memcpy_spread = spread_from(j, "frac_memcpy_spread");
  r.x_vendor = get_num(j, "x_vendor");
  r.x_vendor_spread = spread_from(j, "x_vendor_spread");
  r.x_read_only = get_num(j, "x_read_only");
  r.x_read_only_spread = spread_from(j, "x_read_only_spread");
  r.x_prev = get_num(j, "x_prev");
  r.x_torch = get_num(j, "x_torch");
  r.reference = get_str(j, "reference");
  r.regs = get(j, "regs", 0);
  r.local_bytes = get(j, "local_bytes", 0);
  r.static_smem = get(j, "static_smem", 0);
  r.dynamic_smem = get(j, "dynamic_smem", 0);
  r.blocks_per_sm = get(j, "blocks_per_sm", 0);
  r.occupancy = get_num(j, "occupancy");
  r.note = get_str(j, "note");
  r.config = get_str(j, "config");
  return r;
}

json check_json(const results::Check& c) {
  return {{"claim", std::string(results::name(c.id))},
          {"verdict", static_cast<int>(c.verdict)},
          {"measured", c.measured},
          {"detail", c.detail},
          {"by_kind", static_cast<int>(c.by.kind)},
          {"by", c.by.which},
          {"from_properties", c.from_properties},
          {"share", {num(c.share.gbps), num(c.share.claimed_lo), num(c.share.claimed_hi)}},
          {"claim_peak", c.share.claim_peak},
          {"judged_on", c.judged_on}};
}

results::Check check_from(const json& j) {
  results::Check c;
  const auto id = results::parse_claim_id(get_str(j, "claim"));
  if (!id) throw std::invalid_argument("a check of an unknown claim '" + get_str(j, "claim") + "'");
  c.id = *id;
  c.verdict = static_cast<results::Verdict>(get(j, "verdict", 2));
  c.measured = get_str(j, "measured");
  c.detail = get_str(j, "detail");
  c.by.kind = static_cast<results::Checker::Kind>(get(j, "by_kind", 0));
  c.by.which = get_str(j, "by");
  c.from_properties = get(j, "from_properties", false);
  const auto share = j.find("share");
  if (share != j.end() && share->is_array() && share->size() == 3) {
    const auto at = [&](std::size_t i) {
      return (*share)[i].is_number() ? (*share)[i].get<double>() : NAN;
    };
    c.share.gbps = at(0);
    c.share.claimed_lo = at(1);
    c.share.claimed_hi = at(2);
  }
  c.share.claim_peak = get_str(j, "claim_peak");
  c.judged_on = get_str(j, "judged_on");
  return c;
}

// A section as the report's JSON has it, with the checks that JSON leaves out.
json section_json(const report::Section& s) {
  report::Document d;
  d.sections = {s};
  json j = report::to_json(d)["sections"][0];
  j["checks"] = json::array();
  for (const results::Check& c : s.checks) j["checks"].push_back(check_json(c));
  return j;
}

report::Section section_from(const json& j) {
  const json doc = {{"schema", report::kSchemaName}, {"sections", json::array({j})}};
  report::Section s = report::document_from_json(doc).sections.at(0);
  const auto checks = j.find("checks");
  if (checks != j.end() && checks->is_array())
    for (const json& c : *checks) s.checks.push_back(check_from(c));
  return s;
}

json sections_json(const std::vector<report::Section>& v) {
  json out = json::array();
  for (const report::Section& s : v) out.push_back(section_json(s));
  return out;
}

std::vector<report::Section> sections_from(const json& j, const char* key) {
  std::vector<report::Section> out;
  const auto it = j.find(key);
  if (it != j.end() && it->is_array())
    for (const json& s : *it) out.push_back(section_from(s));
  return out;
}

json index_json(const std::optional<std::size_t>& i) {
  return i ? json(*i) : json();
}
std::optional<std::size_t> index_from(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<std::size_t>();
}

}  // namespace

json to_json(const ResumePoint& at) {
  return {{"stage", kStages[static_cast<int>(at.stage)]},
          {"probe", at.probe},
          {"family", at.family},
          {"shape", at.shape},
          {"variant", at.variant}};
}

ResumePoint resume_point_from_json(const json& j) {
  if (!j.is_object() || !j.contains("stage"))
    throw std::invalid_argument("a resume point is a JSON object with a \"stage\"");
  ResumePoint at;
  const std::string stage = get_str(j, "stage");
  int found = -1;
  for (int i = 0; i < kStageCount; ++i)
    if (stage == kStages[i]) found = i;
  if (found < 0)
    throw std::invalid_argument("unknown stage '" + stage +
                                "' in a resume point (probes, ladders, sweep or profiles)");
  at.stage = static_cast<ResumePoint::Stage>(found);
  at.probe = get_str(j, "probe");
  at.family = get_str(j, "family");
  at.shape = get_str(j, "shape");
  at.variant = get_str(j, "variant");
  return at;
}

json to_json(const Measured& m) {
  json tiers = json::array();
  for (const probe::TierFigure& t : m.tiers)
    tiers.push_back({{"tier", t.tier},
                     {"latency_cycles", num(t.latency_cycles)},
                     {"bandwidth_gbps", num(t.bandwidth_gbps)},
                     {"size", t.size},
                     {"size_bytes", num(t.size_bytes)},
                     {"bandwidth_method", t.bandwidth_method}});
  json families = json::array();
  for (const FamilyOutcome& f : m.families) {
    json records = json::array();
    for (const results::BenchRecord& r : f.records) records.push_back(record_json(r));
    families.push_back({{"family", f.family},
                        {"sweep", f.sweep},
                        {"records", std::move(records)},
                        {"failed", f.failed ? section_json(*f.failed) : json()}});
  }
  return {{"schema", "memhier.measured"},
          {"probes_ran", m.probes_ran},
          {"sm_clock_mhz", m.sm_clock_mhz},
          {"probe_sections", sections_json(m.probe_sections)},
          {"tiers", std::move(tiers)},
          {"probe_names", m.probe_names},
          {"probes_failed", m.probes_failed ? section_json(*m.probes_failed) : json()},
          {"families", std::move(families)},
          {"profiles_ran", m.profiles_ran},
          {"profiles", sections_json(m.profiles)},
          {"stopped", m.stopped ? to_json(*m.stopped) : json()},
          {"fault",
           {{"probe_section", index_json(m.fault.probe_section)},
            {"family", index_json(m.fault.family)},
            {"record", index_json(m.fault.record)}}}};
}

Measured measured_from_json(const json& j) {
  if (!j.is_object() || get_str(j, "schema") != "memhier.measured")
    throw std::invalid_argument("not a memhier measurement (no \"schema\": \"memhier.measured\")");
  Measured m;
  m.probes_ran = get(j, "probes_ran", false);
  m.sm_clock_mhz = get(j, "sm_clock_mhz", 0.0);
  m.probe_sections = sections_from(j, "probe_sections");
  if (j.contains("tiers") && j["tiers"].is_array())
    for (const json& t : j["tiers"])
      m.tiers.push_back({get_str(t, "tier"), get_num(t, "latency_cycles"),
                         get_num(t, "bandwidth_gbps"), get_str(t, "size"), get_num(t, "size_bytes"),
                         get_str(t, "bandwidth_method")});
  if (j.contains("probe_names") && j["probe_names"].is_array())
    for (const json& n : j["probe_names"])
      if (n.is_string()) m.probe_names.push_back(n.get<std::string>());
  if (j.contains("probes_failed") && j["probes_failed"].is_object())
    m.probes_failed = section_from(j["probes_failed"]);
  if (j.contains("families") && j["families"].is_array())
    for (const json& f : j["families"]) {
      FamilyOutcome o;
      o.family = get_str(f, "family");
      o.sweep = get(f, "sweep", false);
      if (f.contains("records") && f["records"].is_array())
        for (const json& r : f["records"]) o.records.push_back(record_from(r));
      if (f.contains("failed") && f["failed"].is_object()) o.failed = section_from(f["failed"]);
      m.families.push_back(std::move(o));
    }
  m.profiles_ran = get(j, "profiles_ran", false);
  m.profiles = sections_from(j, "profiles");
  if (j.contains("stopped") && j["stopped"].is_object())
    m.stopped = resume_point_from_json(j["stopped"]);
  if (j.contains("fault") && j["fault"].is_object()) {
    m.fault.probe_section = index_from(j["fault"], "probe_section");
    m.fault.family = index_from(j["fault"], "family");
    m.fault.record = index_from(j["fault"], "record");
  }
  return m;
}

void merge(Measured& parent, const Measured& child) {
  const std::size_t probes = parent.probe_sections.size();
  if (child.probes_ran) {
    parent.probes_ran = true;
    if (parent.sm_clock_mhz <= 0) parent.sm_clock_mhz = child.sm_clock_mhz;
    parent.probe_sections.insert(parent.probe_sections.end(), child.probe_sections.begin(),
                                 child.probe_sections.end());
    parent.tiers.insert(parent.tiers.end(), child.tiers.begin(), child.tiers.end());
    parent.probe_names.insert(parent.probe_names.end(), child.probe_names.begin(),
                              child.probe_names.end());
    if (!parent.probes_failed) parent.probes_failed = child.probes_failed;
  }
  // A family resumed midway continues the parent's last one: its records join that list.
  const bool joined = !child.families.empty() && !parent.families.empty() &&
                      parent.families.back().family == child.families.front().family &&
                      parent.families.back().sweep == child.families.front().sweep;
  const std::size_t base = parent.families.size() - (joined ? 1 : 0);  // the child's first
  const std::size_t offset = joined ? parent.families.back().records.size() : 0;
  auto from = child.families.begin();
  if (joined) {
    FamilyOutcome& last = parent.families.back();
    last.records.insert(last.records.end(), from->records.begin(), from->records.end());
    if (!last.failed) last.failed = from->failed;
    ++from;
  }
  parent.families.insert(parent.families.end(), from, child.families.end());
  parent.profiles_ran = parent.profiles_ran || child.profiles_ran;
  parent.profiles.insert(parent.profiles.end(), child.profiles.begin(), child.profiles.end());
  parent.stopped = child.stopped;
  parent.fault = {};
  if (child.fault.probe_section) parent.fault.probe_section = *child.fault.probe_section + probes;
  if (child.fault.family) {
    parent.fault.family = base + *child.fault.family;
    if (child.fault.record)
      parent.fault.record = *child.fault.record + (*child.fault.family == 0 ? offset : 0);
  }
}

void amend_fault(Measured& m, const std::string& sentence) {
  if (m.fault.probe_section && *m.fault.probe_section < m.probe_sections.size()) {
    std::vector<std::string>& p = m.probe_sections[*m.fault.probe_section].paragraphs;
    if (!p.empty() && !p.back().empty() && p.back().back() == '.') p.back().pop_back();
    if (!p.empty()) p.back() += "; " + sentence + ".";
  }
  if (m.fault.family && *m.fault.family < m.families.size()) {
    FamilyOutcome& f = m.families[*m.fault.family];
    if (m.fault.record && *m.fault.record < f.records.size()) {
      results::BenchRecord& r = f.records[*m.fault.record];
      r.not_measured += (r.not_measured.empty() ? "" : "; ") + sentence;
      r.note += (r.note.empty() ? "" : "; ") + sentence;
    } else if (f.failed && !f.failed->paragraphs.empty()) {
      std::string& p = f.failed->paragraphs.back();
      if (!p.empty() && p.back() == '.') p.pop_back();
      p += "; " + sentence + ".";
    }
  }
  m.fault = {};
}

}  // namespace memhier::bench
