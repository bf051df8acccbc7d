// memhier tune FAMILY --shapes SHAPE[,SHAPE...]: fill the tuning cache ahead of time.
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/bench/tune.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/model/input.hpp"
#include "memhier/run/pipeline.hpp"
#include "progress.hpp"

namespace memhier::cli {

namespace {

struct TuneCliOptions {
  std::string family;
  std::vector<std::string> shapes;  ///< as given: each may hold several, comma-separated
  bool retune = false;
  bool json = false;
};

/// The families whose `best` is tuned, for the help.
std::string tunable_help() {
  std::string s;
  for (const registry::Family& f : registry::families())
    if (bench::tunable(f)) s += (s.empty() ? "" : ", ") + f.name;
  return "A family whose best is tuned per shape: " + (s.empty() ? std::string("none") : s);
}

}  // namespace

void add_tune(CLI::App& app, int& rc) {
  auto o = std::make_shared<TuneCliOptions>();
  kernels::register_families();  // the help lists what the registry holds
  CLI::App* sub = app.add_subcommand(
      "tune",
      "Choose best's configuration at the given shapes now and keep it in the tuning "
      "cache, with what each choice cost");
  sub->add_option("FAMILY", o->family, tunable_help())->required();
  sub->add_option("--shapes", o->shapes,
                  "Shapes in the family's form, such as 4096x4096x4096,8192x2816x8192 (gemm) or "
                  "8192x8192:7 (stencil)")
      ->required();
  sub->add_flag("--retune", o->retune, "Time the candidates again where the cache knows a shape");
  sub->add_flag("--json", o->json, "Print JSON");
  sub->callback([o, &rc] {
    run::TuneOptions opt;
    opt.family = o->family;
    for (const std::string& given : o->shapes)
      for (std::string& one : model::split_list(given, "--shapes"))
        opt.shapes.push_back(std::move(one));
    opt.retune = o->retune;
    opt.meta = make_meta(true);
    ProgressLine progress("memhier tune");
    opt.progress = [&progress](const std::string& s) { progress.step(s); };
    // A bad family or shape exits 2 before the device is touched; no GPU exits 3.
    const report::Document doc = as_bad_input([&] { return run::run_tune(opt); });
    progress.done();
    print_document(doc, o->json);
    rc = kExitOk;
  });
}

}  // namespace memhier::cli
