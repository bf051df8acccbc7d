#include "memhier/bench/profile.hpp"

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "memhier/bench/card_record.hpp"
#include "memhier/bench/guard.hpp"
#include "memhier/bench/kernel_bench.hpp"
#include "memhier/bench/traffic.hpp"
#include "memhier/claims/profile_claims.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/device.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/profile/patterns.hpp"
#include "memhier/profile/run.hpp"

namespace memhier::bench {
namespace {

using registry::Case;
using registry::check_variants;
using registry::families;
using registry::Family;
using registry::find_family;
using registry::Variant;
using report::Column;
using report::Table;
using report::Value;

// A variant that declines the shape (particles at an axpy shape): nothing to compare.
constexpr const char* kNotApplicable = "does not apply to this shape: ";

bool is_pattern_set(const std::string& t) {
  for (const std::string& s : profile::pattern_sets())
    if (s == t) return true;
  return false;
}

std::string family_shape(const Family& f, const std::string& shape) {
  if (!shape.empty()) return shape;
  if (!f.profile_shape.empty()) return f.profile_shape;
  return f.quick_shapes.empty() ? f.bench_shapes.at(0) : f.quick_shapes.front();
}

// The variant names of a family's items: the ones asked for, or all plus the baseline.
std::vector<std::string> family_items(const Family& f, const std::vector<std::string>& variants,
                                      bool with_baseline) {
  std::vector<std::string> named;  // "baseline" is the vendor library, not a variant
  for (const std::string& v : variants)
    if (v != "baseline") named.push_back(v);
  check_variants(f, named);
  if (!variants.empty()) return variants;
  std::vector<std::string> names;
  for (const Variant& v : f.variants) names.push_back(v.name);
  if (with_baseline) names.push_back("baseline");
  return names;
}

std::vector<std::string> expand(const std::string& target) {
  if (target != "all") return {target};
  std::vector<std::string> all = profile::pattern_sets();
  for (const Family& f : families()) all.push_back(f.name);
  return all;
}

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

/// An item that ran rung `runs` of its family predicts as that rung does.
void predict_as(ProfileItem& it, const std::string& runs) {
  it.runs = runs;
  const Family* f = find_family(it.target);
  if (!f || runs == it.name) return;
  for (const Variant& v : f->variants)
    if (v.name == runs && v.predict) {
      try {
        it.predicted = v.predict(it.shape);
        it.has_prediction = true;
      } catch (const std::invalid_argument&) {
      }
    }
}

}  // namespace

double ProfileItem::measured(const std::string& key) const {
  double sum = 0;
  bool any = false;
  for (const profile::KernelCounters& k : kernels) {
    const double v = k.get(key);
    if (std::isnan(v)) continue;
    sum += v;
    any = true;
  }
  return any ? sum : NAN;
}

std::vector<std::string> profile_targets() {
  kernels::register_families();
  std::vector<std::string> t;
  for (const Family& f : families()) t.push_back(f.name);
  for (const std::string& s : profile::pattern_sets()) t.push_back(s);
  t.push_back("all");
  return t;
}

std::vector<ProfileItem> plan_profile(const std::string& target,
                                      const std::vector<std::string>& variants,
                                      const std::string& shape, bool predict) {
  kernels::register_families();
  const bool known = target == "all" || is_pattern_set(target) || find_family(target);
  if (!known) {
    std::string list;
    for (const std::string& t : profile_targets()) list += (list.empty() ? "" : ", ") + t;
    throw std::invalid_argument("cannot profile '" + target +
                                "': it is neither a family nor a probe " +
                                "with access patterns; choose one of " + list + ".");
  }
  if (target == "all" && (!variants.empty() || !shape.empty()))
    throw std::invalid_argument(
        "--variant and --size apply to one family; name it instead of 'all'.");
  std::vector<ProfileItem> items;
  for (const std::string& t : expand(target)) {
    if (is_pattern_set(t)) {
      if (!variants.empty() || !shape.empty())
        throw std::invalid_argument("--variant and --size apply to families, not to '" + t + "'.");
      for (const profile::Pattern& p : profile::patterns(t)) {
        ProfileItem it;
        it.target = t;
        it.name = p.name;
        it.has_prediction = true;
        it.predicted = profile::predict(p);
        items.push_back(std::move(it));
      }
      continue;
    }
    const Family& f = *find_family(t);
    const std::string s = family_shape(f, shape);
    registry::check_shapes(f, {s});  // here, not in the child under ncu: one sentence, exit 2
    for (const std::string& name : family_items(f, variants, true)) {
      ProfileItem it;
      it.target = t;
      it.name = name;
      it.shape = s;
      for (const Variant& v : f.variants)
        if (predict && v.name == name && v.predict) {
          it.predicted = v.predict(s);  // throws invalid_argument for a bad shape
          it.has_prediction = true;
        }
      items.push_back(std::move(it));
    }
  }
  return items;
}

namespace {

// Profiles one item of family `f` (a variant, or "baseline") on `c`: a warm-up, then the
// marker and the item between cudaProfilerStart and Stop, then its verification. `marked`
// says whether its marker was launched (the counters stay in step when it fails after).
void profile_item(const Family& f, Case& c, const std::string& name, const std::string& s,
                  std::size_t me, cudaStream_t stream, bool* marked,
                  std::vector<ItemOutcome>& outcomes) {
  auto run = [&] { name == "baseline" ? c.run_baseline(stream) : c.run(name, stream); };
  try {
    run();  // warm-up outside the profiled range: tuners, library handles, lazy loading
  } catch (const std::invalid_argument& e) {
    MEMHIER_CUDA(cudaProfilerStart());
    profile::launch_marker(static_cast<int>(me), stream);  // keeps the markers in step
    *marked = true;
    MEMHIER_CUDA(cudaDeviceSynchronize());
    MEMHIER_CUDA(cudaProfilerStop());
    outcomes.push_back({me, std::string(kNotApplicable) + e.what(), ""});
    return;
  }
  // A dispatching variant (a tuned best) says which rung it ran: known only now.
  for (const Variant& v : f.variants)
    if (v.name == name && v.runs) {
      const std::string r = v.runs(s);
      if (!r.empty()) outcomes.push_back({me, "", r});
    }
  c.poison(stream);
  MEMHIER_CUDA(cudaDeviceSynchronize());
  MEMHIER_CUDA(cudaProfilerStart());
  profile::launch_marker(static_cast<int>(me), stream);
  *marked = true;
  run();
  MEMHIER_CUDA(cudaDeviceSynchronize());
  MEMHIER_CUDA(cudaProfilerStop());
  const double err = c.error();
  if (!(err <= c.tolerance()))
    outcomes.push_back(
        {me, "failed verification under the profiler (relative error " + std::to_string(err) + ")",
         ""});
}

}  // namespace

void execute_profile(const std::string& target, const std::vector<std::string>& variants,
                     const std::string& shape, std::vector<ItemOutcome>& outcomes) {
  auto note = [&outcomes](std::size_t index, const std::string& text) {
    outcomes.push_back({index, text, ""});
  };
  plan_profile(target, variants, shape, false);  // names and shapes checked before the GPU
  std::size_t index = 0;
  cudaStream_t stream = nullptr;  // the legacy stream: every launch is ordered
  for (const std::string& t : expand(target)) {
    if (is_pattern_set(t)) {
      const std::vector<profile::Pattern> ps = profile::patterns(t);
      Failure failure;
      const bool ok = guarded(
          [&] {
            profile::PatternRunner runner(ps);
            MEMHIER_CUDA(cudaDeviceSynchronize());
            MEMHIER_CUDA(cudaProfilerStart());
            // One marker for the set: each pattern is exactly one kernel, so the kernels
            // after it are the set's items in order (half as many profiled launches).
            profile::launch_marker(static_cast<int>(index), stream);
            for (const profile::Pattern& p : ps) runner.run(p, stream);
            MEMHIER_CUDA(cudaDeviceSynchronize());
            MEMHIER_CUDA(cudaProfilerStop());
          },
          &failure);
      for (std::size_t i = 0; i < ps.size() && !ok; ++i) note(index + i, failure.not_measured());
      index += ps.size();
      continue;
    }
    const Family& f = *find_family(t);
    const std::string s = family_shape(f, shape);
    std::unique_ptr<Case> c = f.make_case(s, 0x5eed);
    for (const std::string& name : family_items(f, variants, true)) {
      const std::size_t me = index++;
      if (name == "baseline" && c->baseline_name().empty()) {
        note(me, "this family has no vendor baseline");
        continue;
      }
      bool marked = false;
      Failure failure;
      if (guarded([&] { profile_item(f, *c, name, s, me, stream, &marked, outcomes); }, &failure))
        continue;
      try {  // the markers stay in step and the range closed, where the context still works
        if (!marked) {
          MEMHIER_CUDA(cudaProfilerStart());
          profile::launch_marker(static_cast<int>(me), stream);
          MEMHIER_CUDA(cudaDeviceSynchronize());
        }
        MEMHIER_CUDA(cudaProfilerStop());
      } catch (const std::exception&) {
        cudaGetLastError();
      }
      note(me, failure.not_measured());
      if (failure.reset) {  // the case's buffers went with the old context
        c.reset();
        c = f.make_case(s, 0x5eed);
      }
    }
  }
}

void assign_counters(std::vector<ProfileItem>& items,
                     const std::vector<profile::KernelCounters>& rows,
                     const std::vector<ItemOutcome>& outcomes) {
  long current = -1;
  for (const profile::KernelCounters& k : rows) {
    if (k.name.find(profile::kMarkerKernel) != std::string::npos) {
      // grid "(n, 1, 1)": item n - 1
      const std::size_t open = k.grid.find_first_of("0123456789");
      current = open == std::string::npos ? -1 : std::stol(k.grid.substr(open)) - 1;
      if (current >= static_cast<long>(items.size())) current = -1;
      if (current >= 0) items[current].marker = k;
      continue;
    }
    if (current < 0) continue;
    // A pattern item is one kernel: the next kernel belongs to the next pattern.
    if (is_pattern_set(items[current].target) && !items[current].kernels.empty()) {
      if (++current >= static_cast<long>(items.size())) break;
    }
    items[current].kernels.push_back(k);
  }
  for (const ItemOutcome& o : outcomes) {
    if (o.index >= items.size()) continue;
    ProfileItem& it = items[o.index];
    if (!o.note.empty()) it.note = o.note;
    if (!o.runs.empty() && !it.has_prediction) predict_as(it, o.runs);
  }
}

namespace {

// A fresh temporary file's name (the file exists, empty); throws when none can be made.
std::string temp_file(const char* what) {
  char name[] = "/tmp/memhier-XXXXXX";
  const int fd = ::mkstemp(name);
  if (fd < 0)
    throw std::runtime_error(std::string("could not create a temporary file for ") + what + ".");
  ::close(fd);
  return name;
}

// What one ncu run over one family or pattern set left: its exit status, log and console output,
// the child's outcomes and the kernel rows parsed from the log.
struct NcuRun {
  int rc = 0;
  std::string all;  ///< the log, then the console output
  std::vector<ItemOutcome> outcomes;
  std::vector<profile::KernelCounters> rows;
  bool failed() const { return rc != 0 || rows.empty(); }
};

NcuRun run_ncu(const std::string& ncu, const std::string& target_program, const std::string& target,
               const std::vector<std::string>& variants, const std::string& shape,
               const std::vector<std::string>& leave_out) {
  const std::string log_name = temp_file("ncu's output");
  const std::string outcome_name = temp_file("the profiled process's outcomes");
  std::vector<std::string> child = {target_program};
  for (std::string& a : profile_target_args(target, variants, shape, outcome_name))
    child.push_back(std::move(a));
  NcuRun run;
  std::string output;
  const int limit = profile::ncu_timeout_s();
  run.rc = profile::run_command(
      profile::ncu_command(ncu, log_name, child, is_pattern_set(target), leave_out), output, limit);
  std::ifstream log(log_name);
  std::stringstream text;
  text << log.rdbuf();
  std::filesystem::remove(log_name);
  run.outcomes = read_outcomes(outcome_name);
  std::filesystem::remove(outcome_name);
  run.all = text.str() + "\n" + output;
  if (run.rc == profile::kTimedOut)  // not retried: a retry would wait as long again
    throw std::runtime_error("Nsight Compute timed out after " + std::to_string(limit) + " s on " +
                             target + " (MEMHIER_NCU_TIMEOUT sets the limit)");
  try {
    run.rows = profile::parse_raw_csv(text.str());
  } catch (const profile::NcuError&) {
    run.rows.clear();
  }
  return run;
}

std::vector<ProfileItem> profile_one(const std::string& ncu, const std::string& target_program,
                                     const std::string& target,
                                     const std::vector<std::string>& variants,
                                     const std::string& shape, bool with_model) {
  std::vector<ProfileItem> items = plan_profile(target, variants, shape, with_model);
  NcuRun run = run_ncu(ncu, target_program, target, variants, shape, {});
  // A metric this card or ncu version does not know may fail the run or draw a complaint:
  // once more without it, so that it costs only its own column.
  if (run.failed() || !profile::counters_unavailable_reason(run.all).empty()) {
    const std::vector<std::string> drop =
        profile::optional_to_leave_out(run.all, is_pattern_set(target));
    if (!drop.empty()) run = run_ncu(ncu, target_program, target, variants, shape, drop);
  }
  if (const std::string why = profile::counters_unavailable_reason(run.all); !why.empty())
    throw ProfilerUnavailable("cannot read hardware counters: " + why + ".");
  if (run.failed()) {
    const std::string& all = run.all;
    const std::string tail = all.size() > 2000 ? all.substr(all.size() - 2000) : all;
    throw std::runtime_error("Nsight Compute failed on " + target + " (exit status " +
                             std::to_string(run.rc) + "); its last output:\n" + tail);
  }
  assign_counters(items, run.rows, run.outcomes);
  return items;
}

}  // namespace

std::vector<ProfileItem> run_profile(const std::string& target_program, const std::string& target,
                                     const std::vector<std::string>& variants,
                                     const std::string& shape,
                                     const std::function<void(const std::string&)>& progress,
                                     bool with_model) {
  plan_profile(target, variants, shape, false);  // bad input first, before looking for ncu
  const std::optional<std::string> ncu = profile::find_ncu();
  if (!ncu)
    throw ProfilerUnavailable(
        "Nsight Compute (ncu) was not found on PATH, in the CUDA installation or under "
        "/opt/nvidia/nsight-compute; install it or set MEMHIER_NCU to its path.");
  std::vector<ProfileItem> items;
  for (const std::string& t : expand(target)) {
    progress("profile: " + t + " under ncu");
    std::vector<ProfileItem> part =
        profile_one(*ncu, target_program, t, variants, shape, with_model);
    items.insert(items.end(), std::make_move_iterator(part.begin()),
                 std::make_move_iterator(part.end()));
  }
  return items;
}

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
