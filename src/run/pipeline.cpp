#include "memhier/run/pipeline.hpp"

#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "measure_report.hpp"
#include "memhier/bench/card_record.hpp"
#include "memhier/bench/guard.hpp"
#include "memhier/bench/kernel_bench.hpp"
#include "memhier/bench/model_tables.hpp"
#include "memhier/bench/probes.hpp"
#include "memhier/bench/profile.hpp"
#include "memhier/bench/sweep_section.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/ladders.hpp"
#include "memhier/claims/sweep_claims.hpp"
#include "memhier/core/device.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/report/files.hpp"
#include "memhier/report/roofline.hpp"
#include "memhier/report/summary.hpp"
#include "memhier/report/writers.hpp"

namespace memhier::run {
namespace {

namespace fs = std::filesystem;

// The merged tier figures as the summary takes them (the same numbers as the memory-spaces
// table, handed over as numbers rather than read back from its cells).
std::vector<report::SummaryTier> summary_tiers(const bench::ProbeRun& run) {
  std::vector<report::SummaryTier> out;
  for (const probe::TierFigure& f : run.tiers)
    out.push_back({f.tier, f.latency_cycles,
                   std::isnan(f.latency_cycles) ? NAN : run.context.cycles_to_ns(f.latency_cycles),
                   f.bandwidth_gbps, f.size, f.size_bytes});
  return out;
}

// The report folder: results.json after each measured section, every file whole.
class Files {
 public:
  explicit Files(const std::string& out) : dir_(out) {
    if (out.empty()) return;
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec)  // the user's --out: bad input, answered before anything is measured
      throw std::invalid_argument("cannot create the output folder '" + out + "': " + ec.message() +
                                  ".");
  }
  /// The sections so far, marked partial: a run killed later leaves this much.
  void progress(const report::Document& doc) const {
    if (dir_.empty()) return;
    nlohmann::json j = report::to_json(doc);
    j["partial"] = true;
    report::write_file_atomically(dir_ / "results.json", j.dump(2) + "\n");
  }
  /// The whole report; results.json last, so that it is complete once the others are.
  void finish(const report::Document& doc, report::Edition edition) const {
    if (dir_.empty()) return;
    report::write_file_atomically(dir_ / "index.html", report::to_html(doc, edition));
    report::write_file_atomically(dir_ / "report.md", report::to_markdown(doc, edition));
    report::write_file_atomically(dir_ / "results.json", report::to_json(doc).dump(2) + "\n");
  }

 private:
  fs::path dir_;
};

// The measured sections in report order, and the summary's tiers and records. With `whole`
// (the run is over), a run of every probe saves this card's record for the models.
void lay_out(const Options& o, const core::DeviceInfo& dev, const bench::Measured& m, bool whole,
             report::Document& doc, report::SummaryInput& summary) {
  if (!m.probe_sections.empty()) {
    bench::ProbeRun run;
    run.context.device = dev;
    run.context.quick = o.quick;
    run.context.sm_clock_mhz = m.sm_clock_mhz;
    run.tiers = probe::merge_tiers(m.tiers);
    run.summary = probe::summary_section(run.tiers, run.context);
    run.sections = m.probe_sections;
    run.names = m.probe_names;
    std::string why;
    if (whole && !m.probes_failed && !bench::save_card_record(run, o.meta, &why))
      run.summary.paragraphs.push_back("This card's record for the models was not saved: " + why);
    // The probes resumed after a lost GPU, in this process, failed as a whole: the
    // memory-spaces table says why the rest have no sections.
    if (m.probes_failed) run.summary.paragraphs.push_back(m.probes_failed->paragraphs.front());
    doc.sections.push_back(run.summary);
    summary.tiers = summary_tiers(run);
    for (const auto& s : run.sections) doc.sections.push_back(s);
  } else if (m.probes_failed) {
    doc.sections.push_back(*m.probes_failed);
  }
  bool ladders = false;
  for (const bench::FamilyOutcome& f : m.families) {
    if (f.sweep) continue;
    ladders = true;
    const registry::Family* family = registry::find_family(f.family);
    if (f.failed || !family) {
      if (f.failed) doc.sections.push_back(*f.failed);
      continue;
    }
    doc.sections.push_back(bench::family_section(*family, f.records));
    summary.records.insert(summary.records.end(), f.records.begin(), f.records.end());
  }
  if (ladders) {
    const report::Roofline roof = report::roofline(summary);
    doc.sections.push_back(report::roofline_section(roof));
    claims::add_checks(doc.sections.back(), claims::Checker::report("roofline"),
                       claims::roofline_checks(roof));
  }
  // The sweep: one section over every family swept, judged against the sweep goal.
  const std::vector<bench::SweepPart> parts = detail::sweep_parts(m);
  if (!parts.empty()) {
    doc.sections.push_back(bench::sweep_section(parts));
    claims::add_checks(doc.sections.back(), claims::Checker::report("sweep"),
                       claims::sweep_checks(bench::sweep_summaries(parts)));
  }
  for (const report::Section& s : m.profiles) doc.sections.push_back(s);
}

// Everything measured on the device, appended to the document section by section.
void measure(const Options& o, const core::DeviceInfo& dev, report::Document& doc,
             report::SummaryInput& summary, const Files& files) {
  const auto saved = [&](const bench::Measured& so_far) {
    report::Document partial = doc;
    report::SummaryInput ignored;
    lay_out(o, dev, so_far, false, partial, ignored);
    files.progress(partial);
  };
  bench::Measured m;
  const std::string children =
      detail::measure_isolated(o, dev, bench::ResumePoint{}, detail::Scope{}, m, saved);
  // An optional stage that did not run is one line in the summary, not a row per ladder.
  if (const std::string why = detail::add_torch(o, m); !why.empty())
    summary.not_run.push_back("PyTorch's line did not run: " + why + ".");
  if (!children.empty()) summary.not_run.push_back(children);
  lay_out(o, dev, m, true, doc, summary);
}

}  // namespace

report::Document read_results(const std::string& path) {
  // gzread reads a plain file as it is, so one path serves results.json and results.json.gz.
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::invalid_argument("cannot open '" + path + "' to read a report from it.");
  std::string text;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  const bool failed = n < 0;
  gzclose(f);
  if (failed) throw std::invalid_argument("'" + path + "' is not a readable gzip or text file.");
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) throw std::invalid_argument("'" + path + "' is not JSON.");
  try {
    return report::document_from_json(j);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("'" + path + "' is " + e.what() + ".");
  }
}

report::Document run_report(const Options& o, std::string* no_gpu) {
  if (!o.from.empty()) {  // a recorded run, rendered again: nothing measured, no device
    const report::Document doc = read_results(o.from);
    Files(o.out).finish(doc, report::Edition{o.full});
    return doc;
  }
  probe::register_probes();  // idempotent: what a caller registered besides stays
  kernels::register_families();
  report::Document doc;
  doc.title = "memhier report";
  doc.meta = o.meta;
  // Measurements first when there is a GPU; the models' predictions work everywhere.
  std::string why;
  std::optional<core::DeviceInfo> dev;
  if (!o.no_gpu) dev = core::query_device(0, &why);
  if (dev && !core::open_context(*dev, &why)) throw DeviceUnavailable(why);
  if (!dev && !o.no_gpu && no_gpu) *no_gpu = why;
  const Files files(o.out);
  report::SummaryInput summary;
  if (dev) {
    measure(o, *dev, doc, summary, files);
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
  // Every claims table judged on this card by the one rule: a claim about another card is not
  // judged by it, a share of a peak is taken of this card's.
  std::optional<claims::RunningCard> card;
  if (dev) {
    card = bench::running_card(*dev);
    claims::judge_on_card(doc.sections, *card);
  }
  doc.sections.insert(doc.sections.begin() + 1, claims::claims_section(doc.sections, note, card));
  // The summary opens the report: the hierarchy, the ladders' bests, the claims tally.
  summary.claims = claims::tally(doc.sections, card);
  summary.not_measured = note;
  doc.sections.insert(doc.sections.begin(), report::summary_section(summary));
  files.finish(doc, report::Edition{o.full});
  return doc;
}

}  // namespace memhier::run
