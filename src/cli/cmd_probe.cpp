// memhier probe: measure every tier of this card's memory hierarchy.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <stdexcept>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/bench/card_record.hpp"
#include "memhier/bench/probes.hpp"
#include "memhier/core/device.hpp"
#include "memhier/report/writers.hpp"
#include "progress.hpp"

namespace memhier::cli {

core::DeviceInfo require_device(bool open) {
  std::string why;
  auto dev = core::query_device(0, &why);
  if (!dev) throw NoDevice("this command needs a GPU: " + why);
  if (open && !core::open_context(*dev, &why)) throw NoDevice(why);
  return *dev;
}

bench::ProbeRun measure_probes(const core::DeviceInfo& dev, bool quick,
                               const std::vector<std::string>& only) {
  ProgressLine progress("memhier probe");
  bench::ProbeRunOptions opt;
  opt.quick = quick;
  opt.only = only;
  opt.progress = [&progress](const std::string& s) { progress.step(s); };
  bench::ProbeRun run = as_bad_input([&] { return bench::run_probes(dev, opt); });
  // A run of every probe is this card's record for the models (simulate --card this).
  if (only.empty()) {
    std::string why;
    if (!bench::save_card_record(run, make_meta(false), &why))
      std::cerr << "memhier: this card's record was not saved: " << why << "\n";
  }
  return run;
}

namespace {

struct ProbeOptions {
  bool json = false;
  bool quick = false;
  std::vector<std::string> only;
};

int run_probe_command(const ProbeOptions& o) {
  // Bad input is answered before looking for a GPU.
  as_bad_input([&] { bench::check_probe_names(o.only); });
  const core::DeviceInfo dev = require_device();
  const bench::ProbeRun run = measure_probes(dev, o.quick, o.only);
  report::Document doc;
  doc.title = "memhier probe";
  doc.meta = make_meta(true);
  doc.sections.push_back(run.summary);
  for (const auto& s : run.sections) doc.sections.push_back(s);
  claims::judge_on_card(doc.sections, bench::running_card(dev));
  if (o.json) {
    nlohmann::json j = report::to_json(doc);
    j["sm_clock_mhz"] = run.context.sm_clock_mhz;
    j["seconds"] = run.seconds;
    j["quick"] = o.quick;
    print_json(j);
  } else {
    std::cout << report::to_terminal(doc)
              << fmt::format("\n{} probes in {:.1f} s at a measured SM clock of {:.0f} MHz.\n",
                             run.names.size(), run.seconds, run.context.sm_clock_mhz);
  }
  return kExitOk;
}

}  // namespace

void add_probe(CLI::App& app, int& rc) {
  auto o = std::make_shared<ProbeOptions>();
  CLI::App* sub = app.add_subcommand(
      "probe",
      "Measure this card: latency and bandwidth per tier, conflicts, coalescing, L2, layouts");
  sub->add_flag("--json", o->json, "Print JSON");
  sub->add_flag("--quick", o->quick, "Fewer sizes and repetitions (about 15 s on an H100)");
  sub->add_option("--only", o->only, "Run only these probes or families (repeatable)");
  sub->callback([o, &rc] { rc = run_probe_command(*o); });
}

}  // namespace memhier::cli
