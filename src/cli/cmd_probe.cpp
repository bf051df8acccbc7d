// memhier probe: measure every tier of this card's memory hierarchy.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <stdexcept>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/report/writers.hpp"
#include "memhier/run/pipeline.hpp"
#include "progress.hpp"

namespace memhier::cli {

namespace {

struct ProbeOptions {
  bool json = false;
  bool quick = false;
  std::vector<std::string> only;
  std::vector<std::string> names;  ///< positional: the same as --only (memhier probe host)
};

int run_probe_command(const ProbeOptions& o) {
  run::ProbeOptions po;
  po.quick = o.quick;
  po.only = o.only;
  po.only.insert(po.only.end(), o.names.begin(), o.names.end());
  po.meta = make_meta(true);
  run::ProbeResult r;
  {
    ProgressLine progress("memhier probe");
    po.progress = [&progress](const std::string& s) { progress.step(s); };
    // Bad names are answered before looking for a GPU (exit 2); no GPU exits 3.
    r = as_bad_input([&] { return run::run_probe(po); });
  }
  if (!r.record_not_saved.empty())
    std::cerr << "memhier: this card's record was not saved: " << r.record_not_saved << "\n";
  if (o.json) {
    print_json(run::probe_json(r));
  } else {
    std::cout << report::to_terminal(r.doc, report::Edition{true})
              << fmt::format("\n{} probes in {:.1f} s at a measured SM clock of {:.0f} MHz.\n",
                             r.run.names.size(), r.run.seconds, r.run.context.sm_clock_mhz);
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
  sub->add_option("probes", o->names,
                  "Probes or families to run, as --only: 'memhier probe host', 'memhier probe "
                  "peer' (two GPUs or more), 'memhier probe collectives' and 'memhier probe allreduce' "
                  "(NCCL, two GPUs or more)");
  sub->callback([o, &rc] { rc = run_probe_command(*o); });
}

}  // namespace memhier::cli
