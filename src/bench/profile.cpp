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

#include "memhier/bench/guard.hpp"
#include "memhier/bench/kernel_bench.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/device.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/profile/patterns.hpp"
#include "memhier/profile/run.hpp"
#include "profile_items.hpp"

namespace memhier::bench {

bool is_pattern_set(const std::string& t) {
  for (const std::string& s : profile::pattern_sets())
    if (s == t) return true;
  return false;
}

namespace {

using registry::Case;
using registry::check_variants;
using registry::families;
using registry::Family;
using registry::find_family;
using registry::Variant;

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

std::string temp_file(const char* what) {
  char name[] = "/tmp/memhier-XXXXXX";
  const int fd = ::mkstemp(name);
  if (fd < 0)
    throw std::runtime_error(std::string("could not create a temporary file for ") + what + ".");
  ::close(fd);
  return name;
}

namespace {

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

}  // namespace memhier::bench
