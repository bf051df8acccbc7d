// memhier explain -- PROGRAM [ARGS...]: the user's kernels under Nsight Compute, each set
// against this card's measured ceilings, with what to fix first.
#include <iostream>
#include <limits>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/report/writers.hpp"
#include "memhier/run/explain.hpp"
#include "numbers.hpp"
#include "progress.hpp"

namespace memhier::cli {
namespace {

struct ExplainCliOptions {
  std::vector<std::string> program;
  std::string kernel;
  std::string launch_skip = "0", launch_count = "0", timeout = "0", footprint = "0";
  bool every_launch = false;
  std::string record;
  bool datasheet = false;
  bool json = false, markdown = false, html = false;
};

int run_explain_command(const ExplainCliOptions& o) {
  if (int(o.json) + int(o.markdown) + int(o.html) > 1)
    throw UsageError("choose one of --json, --markdown and --html.");
  const std::int64_t most = std::numeric_limits<std::int32_t>::max();
  run::ExplainOptions opt;
  opt.explain.program = o.program;
  opt.explain.kernel_regex = o.kernel;
  opt.explain.launch_skip = parse_int(o.launch_skip, "--launch-skip", 0, most, "");
  opt.explain.launch_count = parse_int(o.launch_count, "--launch-count", 0, most, "");
  opt.explain.every_launch = o.every_launch;
  opt.explain.timeout_s =
      static_cast<int>(parse_int(o.timeout, "--timeout", 0, 86400, " (seconds)"));
  opt.explain.footprint_bytes = static_cast<double>(
      parse_size(o.footprint, "--footprint", std::numeric_limits<std::int64_t>::max() / 2));
  opt.record = o.record;
  opt.measure = !o.datasheet;
  opt.meta = make_meta(true);
  ProgressLine progress("memhier explain");
  opt.progress = [&progress](const std::string& s) { progress.step(s); };
  // Bad input exits 2 before anything runs; no ncu, counters or GPU exits 3.
  const run::ExplainResult r = as_bad_input([&] { return run::run_explain(opt); });
  progress.done();
  if (o.json)
    print_json(r.json);
  else if (o.markdown)
    std::cout << report::to_markdown(r.doc, report::Edition{true});
  else if (o.html)
    std::cout << report::to_html(r.doc, report::Edition{true});
  else
    std::cout << report::to_terminal(r.doc, report::Edition{true});
  return kExitOk;
}

}  // namespace

void add_explain(CLI::App& app, int& rc) {
  auto o = std::make_shared<ExplainCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "explain",
      "Run your program under Nsight Compute and diagnose its kernels against this card's "
      "measured ceilings: findings by estimated gain, the technique and the memhier rung");
  sub->add_option("PROGRAM", o->program,
                  "The program and its arguments, after '--' (python3 script.py works too)")
      ->required();
  sub->add_option("--kernel", o->kernel, "Only kernels whose function name matches this regex");
  sub->add_option("--launch-skip", o->launch_skip,
                  "Selected launches to pass over first (default 0)");
  sub->add_option("--launch-count", o->launch_count,
                  "At most this many launches (default 20: the first launch of each of the "
                  "first 20 kernels)");
  sub->add_flag("--every-launch", o->every_launch,
                "Every launch of the selected kernels, not only each kernel's first");
  sub->add_option("--timeout", o->timeout,
                  "Seconds Nsight Compute may take (default $MEMHIER_NCU_TIMEOUT or 300)");
  sub->add_option("--footprint", o->footprint,
                  "Your kernels' unique bytes per launch (e.g. 192MiB): judges DRAM re-reads");
  sub->add_option("--record", o->record,
                  "A report's results.json(.gz) for the rungs' measured gains (default: this "
                  "card's docs/results)");
  sub->add_flag("--datasheet", o->datasheet,
                "Without a saved card record, use the card table's figures instead of "
                "measuring DRAM and L2 now");
  sub->add_flag("--json", o->json, "Print JSON");
  sub->add_flag("--markdown", o->markdown, "Print Markdown");
  sub->add_flag("--html", o->html, "Print one self-contained HTML page (with the roofline)");
  sub->callback([o, &rc] { rc = run_explain_command(*o); });
}

}  // namespace memhier::cli
