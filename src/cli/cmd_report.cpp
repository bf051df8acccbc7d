// memhier report: everything registered, as terminal tables and as files.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/bench/model_tables.hpp"
#include "memhier/bench/profile.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/ladders.hpp"
#include "memhier/core/device.hpp"
#include "memhier/report/roofline.hpp"
#include "memhier/report/summary.hpp"
#include "memhier/report/writers.hpp"
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
  bool no_torch = false;
};

// The merged tier figures as the summary takes them (the same numbers as the memory-spaces
// table, handed over as numbers rather than read back from its cells).
std::vector<report::SummaryTier> summary_tiers(const bench::ProbeRun& run) {
  std::vector<report::SummaryTier> out;
  for (const probe::TierFigure& f : run.tiers)
    out.push_back({f.tier, f.latency_cycles,
                   std::isnan(f.latency_cycles) ? NAN : run.context.cycles_to_ns(f.latency_cycles),
                   f.bandwidth_gbps, f.size});
  return out;
}

void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + p.string() + ".");
}

int run_report(const ReportOptions& o) {
  report::Document doc;
  doc.title = "memhier report";
  doc.meta = make_meta(true);
  // Measurements first when there is a GPU; the models' predictions work everywhere.
  std::string why;
  std::optional<core::DeviceInfo> dev;
  if (!o.no_gpu) dev = core::query_device(0, &why);
  report::SummaryInput summary;
  if (dev) {
    const bench::ProbeRun run = measure_probes(*dev, o.quick, {});
    doc.sections.push_back(run.summary);
    summary.tiers = summary_tiers(run);
    for (const auto& s : run.sections) doc.sections.push_back(s);
    bench::BenchOptions bopt;
    bopt.quick = o.quick;
    bopt.torch_reference = !o.no_torch;
    for (auto& s : measure_ladders(select_families("all"), bopt, &summary.records))
      doc.sections.push_back(std::move(s));
    const report::Roofline roof = report::roofline(summary);
    doc.sections.push_back(report::roofline_section(roof));
    claims::add_checks(doc.sections.back(), claims::Checker::report("roofline"),
                       claims::roofline_checks(roof));
    if (!o.no_profile) {
      ProgressLine progress("memhier report");
      const auto step = [&progress](const std::string& s) { progress.step(s); };
      for (auto& s : bench::measure_profiles(o.quick, step)) doc.sections.push_back(std::move(s));
    }
  } else {
    report::Section none;
    none.id = "no-gpu";
    none.title = "Measurements";
    none.paragraphs.push_back(
        o.no_gpu ? "Measurements skipped (--no-gpu): only the models' predictions follow."
                 : "No measurements: " + why + " The models' predictions below need no GPU.");
    doc.sections.push_back(none);
  }
  doc.sections.push_back(bench::predicted_bank_strides());
  doc.sections.push_back(bench::predicted_transpose_tiles());
  doc.sections.push_back(bench::predicted_coalescing());
  // Every claim in one table, gathered from the claims tables above; first after the summary.
  const std::string note = dev        ? std::string()
                           : o.no_gpu ? "no measurements in this report (--no-gpu)"
                                      : "no GPU: " + why;
  // Claims about another card than this one are not judged by it.
  std::optional<claims::RunningCard> card;
  if (dev) card = claims::RunningCard{dev->name, dev->cc_major, dev->cc_minor};
  doc.sections.insert(doc.sections.begin() + 1, claims::claims_section(doc.sections, note, card));
  // The summary opens the report: the hierarchy, the ladders' bests, the claims tally.
  summary.claims = claims::tally(doc.sections, card);
  summary.not_measured = note;
  doc.sections.insert(doc.sections.begin(), report::summary_section(summary));

  if (!o.out.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec)
      throw UsageError("cannot create the output folder '" + o.out + "': " + ec.message() + ".");
    const std::filesystem::path dir(o.out);
    write_file(dir / "index.html", report::to_html(doc));
    write_file(dir / "report.md", report::to_markdown(doc));
    write_file(dir / "results.json", report::to_json(doc).dump(2) + "\n");
  }
  if (o.json) {
    print_json(report::to_json(doc));
  } else if (!o.quiet) {
    std::cout << report::to_terminal(doc);
  }
  if (!o.out.empty() && !o.json)
    std::cout << fmt::format("\nWrote {0}/index.html, {0}/report.md and {0}/results.json.\n",
                             o.out);
  return kExitOk;
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
  sub->add_flag("--no-torch", o->no_torch,
                "Skip the PyTorch rows (python3 -m memhier.torch_reference, where torch imports; "
                "$MEMHIER_PYTHON overrides python3)");
  sub->callback([o, &rc] { rc = run_report(*o); });
  return sub;
}

}  // namespace memhier::cli
