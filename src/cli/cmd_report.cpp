// memhier report: everything registered, as terminal tables and as files (the run
// pipeline, src/run, does the work; this file parses the options and prints).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/report/writers.hpp"
#include "memhier/run/pipeline.hpp"
#include "progress.hpp"

namespace memhier::cli {
namespace {

struct ReportOptions {
  std::string out = "memhier-report";
  bool json = false;
  bool quiet = false;
  bool quick = false;
  bool no_gpu = false;
  bool no_profile = false;
  bool no_sweep = false;
  bool no_torch = false;
  bool full = false;
  std::string from;
  std::string resume;  ///< internal: the child's side of isolation (run::continue_report)
};

// The progress line's prefix for each stage, as `memhier probe` and `bench` show theirs.
const char* prefix(run::Stage stage) {
  switch (stage) {
    case run::Stage::probes:
      return "memhier probe";
    case run::Stage::ladders:
      return "memhier bench";
    case run::Stage::sweep:
      return "memhier bench --sweep";
    case run::Stage::profiles:
      break;
  }
  return "memhier report";
}

int run_report(const ReportOptions& o) {
  run::Options ro;
  ro.out = o.out;
  ro.quick = o.quick;
  ro.no_gpu = o.no_gpu;
  ro.no_profile = o.no_profile;
  ro.no_sweep = o.no_sweep;
  ro.no_torch = o.no_torch;
  ro.full = o.full;
  ro.from = o.from;
  ro.meta = make_meta(true);
  // After a fault that loses the GPU to this process, the rest runs in another memhier.
  try {
    ro.isolate_with = run::self_executable();
  } catch (const std::runtime_error&) {
  }
  // One progress line per stage, counted from 1 in each.
  std::unique_ptr<ProgressLine> line;
  run::Stage shown = run::Stage::probes;
  ro.progress = [&line, &shown](run::Stage stage, const std::string& step) {
    if (!line || stage != shown) {
      line.reset();
      line = std::make_unique<ProgressLine>(prefix(stage));
      shown = stage;
    }
    line->step(step);
  };
  ro.say = [&line](const std::string& sentence) {
    if (line) line->done();
    std::cerr << "memhier report: " << sentence << "\n";
  };
  if (!o.resume.empty()) {  // a child measuring what a GPU lost to its parent left
    as_bad_input([&] { run::continue_report(o.resume, ro.progress); });
    return kExitOk;
  }
  // Said before anything is written: a bare `memhier` runs this and writes into the
  // current folder.
  if (!o.out.empty())
    std::cerr << fmt::format(
        "memhier report: writing {}/ (--out DIR to choose, --out '' for none)\n",
        std::filesystem::absolute(o.out).lexically_normal().string());
  // A busy or prohibited GPU throws run::DeviceUnavailable: exit 3 (main).
  std::string no_gpu;
  const report::Document doc = as_bad_input([&] { return run::run_report(ro, &no_gpu); });
  line.reset();
  if (o.json) {
    print_json(report::to_json(doc));
  } else if (!o.quiet) {
    std::cout << report::to_terminal(doc, report::Edition{o.full});
  }
  if (!o.out.empty() && !o.json)
    std::cout << fmt::format("\nWrote {0}/index.html, {0}/report.md and {0}/results.json.\n",
                             o.out);
  if (no_gpu.empty()) return kExitOk;
  // The models' report is written; the measurements it lacks make this a GPU command that
  // found no GPU, which exits 3 like probe, bench and profile.
  std::cerr << "memhier: no GPU: " << no_gpu
            << " The report holds the models' predictions and the claims; its measured sections "
               "need a GPU (--no-gpu asks for the models alone and exits 0).\n";
  return kExitNoDevice;
}

}  // namespace

CLI::App* add_report(CLI::App& app, int& rc) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand(
      "report", "Run everything registered and write the report (the default command)");
  sub->add_option("--out", o->out,
                  "Folder for index.html, report.md, results.json "
                  "(default memhier-report; '' writes no files)");
  sub->add_flag("--json", o->json, "Print the whole report as JSON on stdout");
  sub->add_flag("--quiet", o->quiet, "Print only where the files went");
  sub->add_flag("--quick", o->quick, "Fewer sizes and repetitions in the measurements");
  sub->add_flag("--no-gpu", o->no_gpu, "Skip the measurements even when a GPU is present");
  sub->add_flag("--no-profile", o->no_profile,
                "Skip the model-against-counter sections (Nsight Compute runs)");
  sub->add_flag("--no-sweep", o->no_sweep,
                "Skip the sweep of shapes after the ladders (each GEMM family's best against "
                "cuBLAS at the shapes users run)");
  sub->add_flag("--no-torch", o->no_torch,
                "Skip the PyTorch rows (timed by python3 where torch imports; $MEMHIER_PYTHON "
                "overrides python3)");
  sub->add_flag("--full", o->full,
                "Every table open in index.html and report.md, and printed (by default long "
                "tables are folded, and named where they stand)");
  sub->add_option("--from", o->from,
                  "Render a recorded results.json or results.json.gz instead of measuring "
                  "(no GPU needed)");
  // Internal (undocumented): how the report starts its child process after a GPU is lost.
  sub->add_option("--continue", o->resume)->group("");
  sub->callback([o, &rc] { rc = run_report(*o); });
  return sub;
}

}  // namespace memhier::cli
