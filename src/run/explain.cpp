// `memhier explain`: ceilings, the profiled run and the diagnoses, as one document.
#include "memhier/run/explain.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "memhier/bench/card_record.hpp"
#include "memhier/bench/probes.hpp"
#include "memhier/bench/profile.hpp"
#include "memhier/probe/probe.hpp"
#include "memhier/report/writers.hpp"
#include "memhier/run/pipeline.hpp"

#ifndef MEMHIER_RESULTS_DIR
#define MEMHIER_RESULTS_DIR ""
#endif

namespace memhier::run {
namespace {

namespace fs = std::filesystem;

// The report document at `path` (.json or .json.gz); nullopt when absent or unreadable.
std::optional<nlohmann::json> read_record(const std::string& path) {
  std::string text;
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
    if (profile::run_command({"gzip", "-dc", path}, text, 60) != 0) return std::nullopt;
  } else {
    std::ifstream f(path, std::ios::binary);
    if (!f) return std::nullopt;
    std::stringstream s;
    s << f.rdbuf();
    text = s.str();
  }
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

// The card's current record of ladders: the path asked for, else the results folders'.
std::pair<std::optional<nlohmann::json>, std::string> card_document(const std::string& asked,
                                                                    const std::string& key) {
  if (!asked.empty()) {
    auto j = read_record(asked);
    if (!j) throw std::invalid_argument("--record " + asked + " is not a readable report JSON.");
    return {j, asked};
  }
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("MEMHIER_RESULTS_DIR"); env && *env) dirs.push_back(env);
  if (*MEMHIER_RESULTS_DIR) dirs.push_back(MEMHIER_RESULTS_DIR);
  for (const std::string& d : dirs)
    for (const char* name : {"results.json", "results.json.gz"}) {
      const fs::path p = fs::path(d) / key / name;
      std::error_code ec;
      if (!fs::exists(p, ec)) continue;
      if (auto j = read_record(p.string())) return {j, p.string()};
    }
  return {std::nullopt, ""};
}

}  // namespace

ExplainResult run_explain(const ExplainOptions& o) {
  bench::explain_selection(o.explain);  // bad input first
  if (!profile::find_ncu())
    throw DeviceUnavailable(
        "Nsight Compute (ncu) was not found on PATH, in the CUDA installation or under "
        "/opt/nvidia/nsight-compute; install it or set MEMHIER_NCU to its path.");
  // The profiled program opens its own context: none is held here unless the card must be
  // measured.
  const core::DeviceInfo dev = require_device(false);
  std::optional<model::CardRecord> rec =
      bench::load_card_record(model::card_slug(dev.name, dev.cc_major, dev.cc_minor));
  if (rec && (rec->device_name != dev.name || rec->sms != dev.sm_count)) rec.reset();
  std::string measured_now;
  if (!rec && o.measure) {
    o.progress("explain: no record of this card: measuring DRAM and L2 bandwidth and latency");
    probe::register_probes();
    bench::ProbeRunOptions popt;
    popt.quick = true;
    popt.only = {"bandwidth", "latency"};
    try {
      const bench::ProbeRun pr = bench::run_probes(require_device(true), popt);
      rec = bench::card_record(pr, "memhier explain, quick probes, " + o.meta.date_utc);
      measured_now =
          "This card had no saved record: its DRAM and L2 bandwidth and DRAM latency "
          "were measured now by quick probes (memhier probe keeps a full record).";
    } catch (const std::exception& e) {
      measured_now = std::string("This card had no saved record and measuring it failed (") +
                     e.what() + "): the ceilings are the card table's.";
    }
  }
  const model::Card card =
      model::card_of_device(dev.name, dev.cc_major, dev.cc_minor, dev.sm_count, dev.l2_bytes,
                            dev.peak_dram_gbps(), rec ? &*rec : nullptr);
  const double clock = rec && rec->sm_clock_mhz > 0 ? rec->sm_clock_mhz : dev.sm_clock_khz / 1e3;
  const bench::Ceilings ceilings = bench::ceilings_of(card, rec ? &*rec : nullptr, clock);
  const auto [record, record_path] = card_document(o.record, card.key);

  bench::ExplainRun run;
  try {
    run = bench::profile_program(o.explain, o.progress);
  } catch (const bench::ProfilerUnavailable& e) {
    throw DeviceUnavailable(e.what());
  }
  bench::DiagnosisContext ctx;
  ctx.ceilings = ceilings;
  ctx.arch = &card.arch();
  ctx.rungs = bench::rung_gains(record ? &*record : nullptr);
  ctx.footprint_bytes = o.explain.footprint_bytes;
  for (bench::KernelDiagnosis& d : run.kernels) d = bench::diagnose(d.counters, ctx);
  if (record) run.ladder_points = bench::ladder_points(*record);

  ExplainResult out;
  out.doc.title = "memhier explain";
  out.doc.meta = o.meta;
  report::Section sec = bench::explain_section(run, ceilings);
  if (!measured_now.empty()) sec.paragraphs.push_back(measured_now);
  sec.paragraphs.push_back(record ? "The rungs' gains are this card's, from " + record_path + "."
                                  : "No report of this card's ladders was found (--record "
                                    "names one): the rungs are named without their gain here.");
  out.doc.sections.push_back(std::move(sec));
  out.json = bench::explain_json(run, ceilings);
  out.json["schema"] = "memhier.explain";
  out.json["schema_version"] = report::kSchemaVersion;
  out.json["meta"] = report::to_json(o.meta);
  out.json["record"] = record_path;
  return out;
}

}  // namespace memhier::run
