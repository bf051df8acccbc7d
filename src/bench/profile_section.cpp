// The profile's tables: each item's predicted counts against Nsight Compute's, the kernels'
// counters, and the section that holds them (what `memhier profile` and the report show).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "memhier/bench/card_record.hpp"
#include "memhier/bench/profile.hpp"
#include "memhier/bench/traffic.hpp"
#include "memhier/claims/profile_claims.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/profile/patterns.hpp"
#include "memhier/registry/registry.hpp"
#include "profile_items.hpp"

namespace memhier::bench {
namespace {

using registry::Family;
using registry::find_family;
using report::Column;
using report::Table;
using report::Value;

// The family kernels of `items` (pattern sets have no kernel table).
std::vector<const profile::KernelCounters*> family_kernels(const std::vector<ProfileItem>& items) {
  std::vector<const profile::KernelCounters*> out;
  for (const ProfileItem& it : items)
    if (!is_pattern_set(it.target))
      for (const profile::KernelCounters& k : it.kernels) out.push_back(&k);
  return out;
}

// The columns of the per-kernel table: every counter but the instruction counts (the
// comparison table has them), and an optional one only where some kernel counted a nonzero
// value (the tensor pipes: the GEMM ladders' kernels, not a transpose's).
std::vector<profile::Metric> kernel_columns(const std::vector<ProfileItem>& items) {
  const std::vector<const profile::KernelCounters*> kernels = family_kernels(items);
  std::vector<profile::Metric> out;
  for (const profile::Metric& m : profile::metrics()) {
    if (m.key.find("instructions") != std::string::npos) continue;
    const bool counted = std::any_of(kernels.begin(), kernels.end(), [&m](const auto* k) {
      const double v = k->get(m.key);
      return !std::isnan(v) && v != 0;
    });
    if (!m.optional || counted) out.push_back(m);
  }
  return out;
}

// The optional counters no family kernel reported at all, by ncu name, comma-separated.
std::string unreported_optional(const std::vector<ProfileItem>& items) {
  const std::vector<const profile::KernelCounters*> kernels = family_kernels(items);
  std::string out;
  if (kernels.empty()) return out;
  for (const profile::Metric& m : profile::metrics()) {
    const bool reported = std::any_of(kernels.begin(), kernels.end(),
                                      [&m](const auto* k) { return !std::isnan(k->get(m.key)); });
    if (m.optional && !reported) out += (out.empty() ? "" : ", ") + m.metric;
  }
  return out;
}

}  // namespace

std::vector<Comparison> compare(const ProfileItem& it) {
  const model::AccessCounts& p = it.predicted;
  const std::vector<std::pair<std::string, long long>> fields = {
      {"shared_ld_wavefronts", p.shared_ld_wavefronts},
      {"shared_st_wavefronts", p.shared_st_wavefronts},
      {"global_ld_requests", p.global_ld_requests},
      {"global_ld_sectors", p.global_ld_sectors},
      {"global_st_requests", p.global_st_requests},
      {"global_st_sectors", p.global_st_sectors}};
  std::vector<Comparison> out;
  for (const auto& [key, predicted] : fields) out.push_back({key, predicted, it.measured(key)});
  // The model counts ldmatrix among the shared loads; ncu (sm_90) counts it apart (op_ldsm).
  const double ldsm = it.measured("shared_ldsm_wavefronts");
  if (std::isfinite(ldsm) && std::isfinite(out.front().measured)) out.front().measured += ldsm;
  return out;
}

report::Section profile_section(const std::string& target, const std::vector<ProfileItem>& items,
                                bool with_model) {
  report::Section s;
  s.id = "profile-" + target;
  s.title = "Predicted against measured: " + target;
  s.paragraphs.push_back(
      with_model
          ? "Each item ran once under Nsight Compute (clocks untouched). The model's counts come "
            "from the same addresses the kernel uses; 'predicted' and 'measured' must be equal "
            "for shared-memory wavefronts and for global requests and sectors (measured shared "
            "loads are ncu's op_ld and, where it reports them apart, op_ldsm wavefronts: the "
            "model counts ldmatrix as a shared load)."
          : "Each item ran once under Nsight Compute (clocks untouched): the counters only, for "
            "the claims they decide (no model at this shape: replaying every access would take "
            "minutes).");
  Table t;
  t.id = "profile-" + target + "-compare";
  t.title = "Model against Nsight Compute";
  t.columns = {
      {"target", "", "target"}, {"item", "", "item"}, {"runs", "", "runs"}, {"shape", "", "shape"}};
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"shared_ld_wavefronts", "shared ld wavefronts"},
      {"shared_st_wavefronts", "shared st wavefronts"},
      {"global_ld_requests", "global ld requests"},
      {"global_ld_sectors", "global ld sectors"},
      {"global_st_requests", "global st requests"},
      {"global_st_sectors", "global st sectors"}};
  for (const auto& [key, title] : fields) {
    t.columns.push_back({title + " (model)", "", key + "_model"});
    t.columns.push_back({title + " (ncu)", "", key + "_ncu"});
  }
  t.columns.push_back({"shared bank conflicts (ncu)", "", "shared_conflicts_ncu"});
  t.columns.push_back({"verdict", "", "verdict"});
  int equal = 0, differ = 0, unmodeled = 0, not_here = 0;
  for (const ProfileItem& it : items) {
    std::vector<Value> row = {Value::str(it.target), Value::str(it.name),
                              it.runs.empty() ? Value::none() : Value::str(it.runs),
                              Value::str(it.shape)};
    const std::vector<Comparison> cmp = compare(it);
    std::string verdict;
    for (const Comparison& c : cmp) {
      row.push_back(it.has_prediction ? Value::integer(c.predicted) : Value::none());
      row.push_back(std::isnan(c.measured) ? Value::none() : Value::num(c.measured));
      if (it.has_prediction && !c.equal())
        verdict += (verdict.empty() ? "differs: " : ", ") + c.field;
    }
    const double conflicts =
        it.measured("shared_ld_conflicts") + it.measured("shared_st_conflicts");
    row.push_back(std::isnan(conflicts) ? Value::none() : Value::num(conflicts));
    if (!it.note.empty())
      verdict = it.note;
    else if (it.kernels.empty())
      verdict = "no kernel was profiled";
    else if (!it.has_prediction)
      verdict = "no model for this variant";
    else if (verdict.empty())
      verdict = "equal";
    if (verdict.rfind(kNotApplicable, 0) == 0)
      ++not_here;
    else
      (verdict == "equal" ? equal : it.has_prediction ? differ : unmodeled) += 1;
    row.push_back(Value::str(verdict));
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(std::to_string(equal) + " items equal, " + std::to_string(differ) +
                    " differ or failed, " + std::to_string(unmodeled) + " have no model, " +
                    std::to_string(not_here) + " do not apply to this shape.");
  t.notes.push_back(
      "The raw bank-conflict counter is shown for reference only: other L1 traffic can inflate "
      "it, so the comparison uses wavefronts.");
  if (std::any_of(items.begin(), items.end(),
                  [](const ProfileItem& it) { return !it.runs.empty(); }))
    t.notes.push_back(
        "runs: the rung a dispatching variant (a tuned best) ran in the profiled process, "
        "chosen there; its prediction is that rung's.");
  if (with_model) s.tables.push_back(std::move(t));

  Table k;
  k.id = "profile-" + target + "-kernels";
  k.title = "Counters per kernel";
  k.columns = {{"target", "", "target"},
               {"item", "", "item"},
               {"kernel", "", "kernel"},
               {"grid", "", "grid"},
               {"block", "", "block"}};
  const std::vector<profile::Metric> shown = kernel_columns(items);
  for (const profile::Metric& m : shown) k.columns.push_back({m.title, "", m.key});
  for (const ProfileItem& it : items) {
    if (is_pattern_set(it.target)) continue;  // one instruction each: the table above says all
    for (const profile::KernelCounters& kc : it.kernels) {
      std::string name = kc.name.substr(0, kc.name.find('('));
      if (name.size() > 60) name = name.substr(0, 57) + "...";
      std::vector<Value> row = {Value::str(it.target), Value::str(it.name), Value::str(name),
                                Value::str(kc.grid), Value::str(kc.block)};
      for (const profile::Metric& m : shown) {
        const double v = kc.get(m.key);
        const bool pct = m.key.find("pct") != std::string::npos;
        row.push_back(std::isnan(v) ? Value::none() : Value::num(v, pct ? 1 : 0));
      }
      k.rows.push_back(std::move(row));
    }
  }
  const std::string missing = unreported_optional(items);
  if (!missing.empty())
    k.notes.push_back(
        "Not reported by Nsight Compute on this card (it rejected or ignored the "
        "metric, and the run went on without it): " +
        missing + ".");
  if (!k.rows.empty()) s.tables.push_back(std::move(k));
  if (with_model) {  // the stream models on the card that ran, never another card's figures
    std::string why;
    if (const std::optional<model::Card> card = this_card(&why))
      add_traffic_comparison(s, items, *card);
    else
      s.paragraphs.push_back(
          "No simulated-against-measured traffic: the model needs the card "
          "that was profiled, and " +
          why);
  }
  // The claims these counters decide (stalls, DRAM throughput, L2 traffic), if any.
  claims::ProfiledCounters counters;
  std::string shape;
  for (const ProfileItem& it : items) {
    if (it.kernels.empty() || !it.note.empty()) continue;
    if (!is_pattern_set(it.target)) shape = it.shape;
    for (const profile::Metric& m : profile::metrics()) {
      const double v = it.measured(m.key);
      if (!std::isnan(v)) counters[it.name][m.key] = v;
    }
    if (it.has_prediction) {  // a pattern's own count, for claims stated per segment touched
      counters[it.name]["predicted_global_ld_sectors"] =
          static_cast<double>(it.predicted.global_ld_sectors);
      counters[it.name]["predicted_global_ld_requests"] =
          static_cast<double>(it.predicted.global_ld_requests);
    }
  }
  std::vector<claims::Check> checks;
  kernels::register_families();
  const Family* f = find_family(target);
  if (is_pattern_set(target))
    checks = claims::pattern_set_profile_checks(target, counters);
  else if (f && f->claims.profile)  // the claims its counters decide, named by its table
    checks = f->claims.profile(shape, counters);
  if (!checks.empty()) claims::add_checks(s, claims::Checker::profile(target), std::move(checks));
  return s;
}

}  // namespace memhier::bench
