#include "memhier/bench/probes.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "memhier/bench/guard.hpp"
#include "memhier/core/timing.hpp"
#include "memhier/probe/unavailable.hpp"
#include "memhier/registry/registry.hpp"

namespace memhier::bench {

std::vector<std::string> probe_names() {
  probe::register_probes();
  std::vector<std::string> names;
  for (const registry::Entry& e : registry::entries()) {
    if (e.kind != "probe") continue;
    names.push_back(e.name);
    if (std::find(names.begin(), names.end(), e.family) == names.end()) names.push_back(e.family);
  }
  return names;
}

void check_probe_names(const std::vector<std::string>& only) {
  const std::vector<std::string> known = probe_names();
  for (const std::string& n : only)
    if (std::find(known.begin(), known.end(), n) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      throw std::invalid_argument("unknown probe '" + n + "'; known: " + list + ".");
    }
}

ProbeRun run_probes(const core::DeviceInfo& device, const ProbeRunOptions& opt) {
  check_probe_names(opt.only);
  const auto t0 = std::chrono::steady_clock::now();
  ProbeRun run;
  run.context.device = device;
  run.context.quick = opt.quick;
  run.context.progress = opt.progress;
  opt.progress("measuring the SM clock");
  run.context.sm_clock_mhz = core::measure_sm_clock_mhz();
  std::vector<probe::TierFigure> tiers;
  bool reached = opt.from.empty();
  for (const registry::Entry& e : registry::entries()) {
    if (e.kind != "probe" || !e.run_probe) continue;
    if (!opt.only.empty() && std::find(opt.only.begin(), opt.only.end(), e.name) == opt.only.end() &&
        std::find(opt.only.begin(), opt.only.end(), e.family) == opt.only.end())
      continue;
    reached = reached || e.name == opt.from;
    if (!reached) continue;
    if (run.stopped) {  // the probe after the one that lost the GPU: the rest starts here
      *opt.stopped_before = e.name;
      break;
    }
    opt.progress(e.name);
    probe::Result r;
    Failure failure;
    std::string lacks;
    const bool ran = guarded(
        [&] {
          try {
            r = e.run_probe(run.context);
          } catch (const probe::Unavailable& u) {
            lacks = u.what();  // this machine lacks what the probe needs: no failure
          }
        },
        &failure);
    if (!lacks.empty()) {
      r = {};
      r.section.id = e.name;
      r.section.title = e.family + ": " + e.technique;
      r.section.paragraphs.push_back("Not measured: " + lacks + ".");
      run.unavailable.push_back(lacks);
    } else if (!ran) {
      // The probe's section says why it has no figures; the next probe runs regardless.
      r = {};
      r.section.id = e.name;
      r.section.title = e.family + ": " + e.technique;
      r.section.paragraphs.push_back("Not measured: " + failure.why + ".");
      if (opt.stopped_before && failure.lost) {
        run.stopped = true;
        opt.stopped_before->clear();
      }
    }
    tiers.insert(tiers.end(), r.tiers.begin(), r.tiers.end());
    run.sections.push_back(std::move(r.section));
    run.names.push_back(e.name);
  }
  run.tiers = probe::merge_tiers(tiers);
  run.summary = probe::summary_section(run.tiers, run.context);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

}  // namespace memhier::bench
