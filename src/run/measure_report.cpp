#include "measure_report.hpp"

#include <algorithm>
#include <utility>

#include "memhier/bench/guard.hpp"
#include "memhier/bench/kernel_bench.hpp"
#include "memhier/bench/probes.hpp"
#include "memhier/bench/profile.hpp"
#include "memhier/registry/registry.hpp"

namespace memhier::run::detail {
namespace {

using bench::Measured;
using bench::ResumePoint;
using Resume = ResumePoint::Stage;

// The most child processes one report starts: each takes over after the item that lost the
// GPU to the one before, so a fault that recurs cannot start them without end.
constexpr int kMaxChildren = 8;

// A section for a stage or item that failed as a whole: what it would have held, and why not.
report::Section unmeasured_section(const std::string& id, const std::string& title,
                                   const bench::Failure& failure) {
  report::Section s;
  s.id = id;
  s.title = title;
  s.paragraphs.push_back("Not measured: " + failure.why + ".");
  return s;
}

// Whether the run measures `family`.
bool in_scope(const Scope& scope, const std::string& family) {
  return scope.families.empty() ||
         std::find(scope.families.begin(), scope.families.end(), family) != scope.families.end();
}

// Whether the stage (the ladders, or the sweep) measures `family`.
bool in_stage(const Scope& scope, bool sweep, const registry::Family& family) {
  return in_scope(scope, family.name) && (!sweep || !family.sweep_shapes.empty());
}

// Where the work after family `i` of a stage begins: the next family the stage measures, then
// the sweep after the ladders (unless the run has none), then the profiles.
ResumePoint after_family(std::size_t i, const Scope& scope, bool sweep, const Options& o) {
  const auto& fams = registry::families();
  const Resume stage = sweep ? Resume::sweep : Resume::ladders;
  for (std::size_t j = i + 1; j < fams.size(); ++j)
    if (in_stage(scope, sweep, fams[j])) return {stage, "", fams[j].name, "", ""};
  if (!sweep && !o.no_sweep) return {Resume::sweep, "", "", "", ""};
  return {Resume::profiles, "", "", "", ""};
}

// The probes from `from` on; false where they stopped at a lost GPU.
bool measure_probes(const Options& o, const core::DeviceInfo& dev, const std::string& from,
                    bool stop, Measured& m) {
  bench::ProbeRunOptions popt;
  popt.quick = o.quick;
  popt.from = from;
  popt.progress = [&o](const std::string& s) { o.progress(Stage::probes, s); };
  std::string next;
  if (stop) popt.stopped_before = &next;
  bench::ProbeRun run;
  bench::Failure failure;
  m.probes_ran = true;
  if (!bench::guarded([&] { run = bench::run_probes(dev, popt); }, &failure)) {
    m.probes_failed = unmeasured_section("memory-spaces", "Memory spaces", failure);
    if (!stop || !failure.lost) return true;
    m.stopped = ResumePoint{Resume::ladders, "", "", "", ""};
    return false;
  }
  if (m.sm_clock_mhz <= 0) m.sm_clock_mhz = run.context.sm_clock_mhz;
  m.probe_sections.insert(m.probe_sections.end(), run.sections.begin(), run.sections.end());
  m.tiers.insert(m.tiers.end(), run.tiers.begin(), run.tiers.end());
  m.probe_names.insert(m.probe_names.end(), run.names.begin(), run.names.end());
  if (!run.stopped) return true;
  m.fault = {m.probe_sections.size() - 1, std::nullopt, std::nullopt};
  m.stopped = next.empty() ? ResumePoint{Resume::ladders, "", "", "", ""}
                           : ResumePoint{Resume::probes, next, "", "", ""};
  return false;
}

}  // namespace

std::vector<std::string> sweep_shapes(const registry::Family& f, bool quick) {
  const std::vector<std::string>& all = f.sweep_shapes;
  if (!quick || all.size() <= 3) return all;
  return {all.front(), all[all.size() / 2], all.back()};
}

std::vector<bench::SweepPart> sweep_parts(const bench::Measured& m) {
  std::vector<bench::SweepPart> out;
  for (const bench::FamilyOutcome& f : m.families) {
    if (!f.sweep) continue;
    const registry::Family* family = registry::find_family(f.family);
    out.push_back({f.family, family ? family->title : f.family,
                   family ? family->sweep_shapes.size() : 0, f.records, f.failed});
  }
  return out;
}

namespace {

// A stage of ladders from `from` on, one family at a time under its own guard: the ladders
// (the scope's variants and shapes), or with `sweep` best alone at each family's sweep
// shapes. False where they stopped at a lost GPU.
bool measure_ladders(const Options& o, const ResumePoint& from, const Scope& scope, bool sweep,
                     bool stop, Measured& m, const std::function<void(const Measured&)>& saved) {
  const Resume stage = sweep ? Resume::sweep : Resume::ladders;
  bench::BenchOptions bopt;
  bopt.quick = o.quick;
  bopt.variants = sweep ? std::vector<std::string>{"best"} : scope.variants;
  bopt.shapes = scope.shapes;
  bopt.torch_reference = false;  // over every family at the end, in the report's process
  bopt.progress = [&o, sweep](const std::string& s) {
    o.progress(sweep ? Stage::sweep : Stage::ladders, s);
  };
  const auto& fams = registry::families();
  bool reached = from.family.empty();
  for (std::size_t i = 0; i < fams.size(); ++i) {
    const registry::Family& f = fams[i];
    reached = reached || f.name == from.family;
    if (!reached || !in_stage(scope, sweep, f)) continue;
    const bool resumed = f.name == from.family;
    if (stop && !bench::gpu_lost().empty()) {
      m.stopped =
          ResumePoint{stage, "", f.name, resumed ? from.shape : "", resumed ? from.variant : ""};
      return false;
    }
    bench::Stop st;
    bopt.stop = stop ? &st : nullptr;
    bopt.from_shape = resumed ? from.shape : "";
    bopt.from_variant = resumed ? from.variant : "";
    if (sweep) bopt.shapes = sweep_shapes(f, o.quick);
    bench::FamilyOutcome out;
    out.family = f.name;
    out.sweep = sweep;
    bench::Failure failure;
    // Even with the GPU lost, run_family runs: it gives each row its "GPU was lost".
    if (!bench::guarded([&] { out.records = bench::run_family(f, bopt); }, &failure,
                        bench::WhenLost::run))
      out.failed = sweep ? unmeasured_section("sweep-" + f.name,
                                              f.title + ": best over a sweep of shapes", failure)
                         : unmeasured_section("bench-" + f.name, f.title, failure);
    // A family resumed in the process that stopped in it (no child took over) goes on in its
    // own table.
    if (resumed && !out.failed && !m.families.empty() && m.families.back().family == f.name &&
        m.families.back().sweep == sweep && !m.families.back().failed)
      m.families.back().records.insert(m.families.back().records.end(), out.records.begin(),
                                       out.records.end());
    else
      m.families.push_back(std::move(out));
    const std::size_t at = m.families.size() - 1;
    if (st.stopped) {
      m.fault = {std::nullopt, at,
                 st.faulty != static_cast<std::size_t>(-1) ? std::optional<std::size_t>(st.faulty)
                                                           : std::nullopt};
      m.stopped = st.shape.empty() ? after_family(i, scope, sweep, o)
                                   : ResumePoint{stage, "", f.name, st.shape, st.variant};
      return false;
    }
    if (stop && m.families.back().failed && failure.lost) {
      m.fault = {std::nullopt, at, std::nullopt};
      m.stopped = after_family(i, scope, sweep, o);
      return false;
    }
    saved(m);
  }
  return true;
}

}  // namespace

void measure_from(const Options& o, const core::DeviceInfo& dev, const ResumePoint& at, bool stop,
                  Measured& m, const std::function<void(const Measured&)>& saved,
                  const Scope& scope) {
  if (at.stage == Resume::probes) {
    if (!measure_probes(o, dev, at.probe, stop, m)) return;
    saved(m);
  }
  if ((at.stage == Resume::probes || at.stage == Resume::ladders) &&
      !measure_ladders(o, at.stage == Resume::ladders ? at : ResumePoint{}, scope, false, stop, m,
                       saved))
    return;
  // The sweep after the ladders: best against the vendor at the shapes users run.
  if (at.stage != Resume::profiles && !o.no_sweep &&
      !measure_ladders(o, at.stage == Resume::sweep ? at : ResumePoint{}, scope, true, stop, m,
                       saved))
    return;
  if (o.no_profile) return;
  if (stop && !bench::gpu_lost().empty()) {
    m.stopped = ResumePoint{Resume::profiles, "", "", "", ""};
    return;
  }
  const auto step = [&o](const std::string& s) { o.progress(Stage::profiles, s); };
  m.profiles_ran = true;
  bench::Failure failure;
  std::vector<report::Section> profiles;
  if (bench::guarded([&] { profiles = bench::measure_profiles(o.quick, step, o.profile_target); },
                     &failure))
    m.profiles = std::move(profiles);
  else
    m.profiles.push_back(unmeasured_section("profile", "Predicted against measured", failure));
  saved(m);
}

std::string measure_isolated(const Options& o, const core::DeviceInfo& dev, const ResumePoint& from,
                             const Scope& scope, Measured& m,
                             const std::function<void(const Measured&)>& saved) {
  const bool isolate = !o.isolate_with.empty();
  measure_from(o, dev, from, isolate, m, saved, scope);
  int started = 0, ran = 0;  // child processes started, and those whose measurements came
  std::string gave_up;       // why no (further) child took over
  while (m.stopped) {
    const ResumePoint at = *m.stopped;
    m.stopped.reset();
    Measured rest;
    std::string why;
    if (started == kMaxChildren) {
      gave_up = std::to_string(started) + " child processes lost the GPU in turn";
    } else {
      ++started;
      o.say(
          "a kernel fault left the GPU lost to this process; measuring the "
          "rest in a child process (" +
          std::to_string(started) + ")");
      if (!measure_in_child(o, at, scope, &rest, &why)) {
        gave_up = "a child process could not take over: " + why;
      } else if (rest.stopped && *rest.stopped == at) {  // it lost the GPU before any item
        gave_up = "the child process lost the GPU before it measured anything";
      } else {
        ++ran;
        bench::amend_fault(m, "the rest of the run was measured in a child process");
        bench::merge(m, rest);
        saved(m);
        continue;
      }
    }
    bench::amend_fault(m, "nothing after it is measured on the GPU in this run (" + gave_up + ")");
    measure_from(o, dev, at, false, m, saved, scope);  // each item says the GPU was lost
    break;
  }
  if (started == 0) return {};
  const std::string lost =
      "A kernel fault left the GPU lost to the run's process (its CUDA context broken, the "
      "driver giving it no new one)";
  if (ran == 0) return lost + "; " + gave_up + ", so what followed it is not measured.";
  const std::string where = ran == 1
                                ? std::string("a child process")
                                : std::to_string(ran) +
                                      " child processes, each after the fault that stopped the "
                                      "one before";
  return lost + ": the measurements after it ran in " + where +
         (gave_up.empty() ? "." : "; then " + gave_up + ", so what followed is not measured.");
}

std::string add_torch(const Options& o, Measured& m) {
  if (o.no_torch) return {};
  bench::BenchOptions bopt;
  bopt.quick = o.quick;
  bopt.torch_python = o.torch_python;
  bopt.progress = [&o](const std::string& s) { o.progress(Stage::ladders, s); };
  std::vector<std::vector<registry::BenchRecord>> records;
  // The ladders' rows: the sweep times best against the vendor alone.
  for (const bench::FamilyOutcome& f : m.families)
    if (!f.failed && !f.sweep) records.push_back(f.records);
  std::string why;
  try {
    why = bench::add_torch_reference(records, bopt);
  } catch (const std::exception& e) {
    why = e.what();
  }
  std::size_t i = 0;
  for (bench::FamilyOutcome& f : m.families)
    if (!f.failed && !f.sweep) f.records = std::move(records[i++]);
  return why;
}

}  // namespace memhier::run::detail
