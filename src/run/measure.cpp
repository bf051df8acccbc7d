// The probe and bench runs behind `memhier probe` and `memhier bench` (and memhier.probe and
// memhier.bench in Python): bad input refused before any device, then the measurement, then
// the document.
#include <stdexcept>

#include "measure_report.hpp"
#include "memhier/bench/card_record.hpp"
#include "memhier/bench/kernel_bench.hpp"
#include "memhier/bench/sweep_section.hpp"
#include "memhier/bench/tune.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/model/input.hpp"
#include "memhier/registry/family.hpp"
#include "memhier/registry/registry.hpp"
#include "memhier/report/writers.hpp"
#include "memhier/run/pipeline.hpp"

namespace memhier::run {

core::DeviceInfo require_device(bool open) {
  std::string why;
  auto dev = core::query_device(0, &why);
  if (!dev) throw DeviceUnavailable("this command needs a GPU: " + why);
  if (open && !core::open_context(*dev, &why)) throw DeviceUnavailable(why);
  return *dev;
}

std::vector<const registry::Family*> select_families(const std::string& name) {
  kernels::register_families();
  std::vector<const registry::Family*> out;
  if (name == "all") {
    for (const registry::Family& f : registry::families()) out.push_back(&f);
    return out;
  }
  if (const registry::Family* f = registry::find_family(name)) return {f};
  std::vector<std::string> known;
  for (const registry::Family& f : registry::families()) known.push_back(f.name);
  known.push_back("all");
  model::parse_choice(name, "family", known);  // throws: `name` is none of them
  return out;
}

ProbeResult run_probe(const ProbeOptions& o) {
  probe::register_probes();  // idempotent
  bench::check_probe_names(o.only);
  const core::DeviceInfo dev = require_device();
  ProbeResult out;
  bench::ProbeRunOptions opt;
  opt.quick = o.quick;
  opt.only = o.only;
  opt.progress = o.progress;
  out.run = bench::run_probes(dev, opt);
  out.quick = o.quick;
  // Only probes this machine cannot run were asked for (memhier probe peer on one GPU): a
  // missing capability, like a missing GPU.
  if (!o.only.empty() && !out.run.names.empty() &&
      out.run.unavailable.size() == out.run.names.size())
    throw DeviceUnavailable(out.run.unavailable.front() + ".");
  // A run of every probe is this card's record for the models.
  if (o.only.empty()) bench::save_card_record(out.run, o.meta, &out.record_not_saved);
  out.doc.title = "memhier probe";
  out.doc.meta = o.meta;
  out.doc.sections.push_back(out.run.summary);
  for (const auto& s : out.run.sections) out.doc.sections.push_back(s);
  claims::judge_on_card(out.doc.sections, bench::running_card(dev));
  return out;
}

nlohmann::json probe_json(const ProbeResult& r) {
  nlohmann::json j = report::to_json(r.doc);
  j["sm_clock_mhz"] = r.run.context.sm_clock_mhz;
  j["seconds"] = r.run.seconds;
  j["quick"] = r.quick;
  return j;
}

report::Document run_bench(const BenchOptions& o) {
  const auto fams = select_families(o.family);
  if (fams.size() > 1 && (!o.variants.empty() || !o.shapes.empty()))
    throw std::invalid_argument(
        "--variant and --size apply to one family; name it instead of 'all'.");
  // Every bad variant and shape is refused before the device is touched or the first shape
  // measured.
  for (const registry::Family* f : fams) {
    registry::check_variants(*f, o.variants);
    registry::check_shapes(*f, o.shapes);
  }
  if (o.sweep) {
    if (!o.variants.empty() || !o.shapes.empty())
      throw std::invalid_argument("--sweep times best at the family's own shapes: it takes no "
                                  "--variant or --size.");
    if (fams.size() == 1 && fams.front()->sweep_shapes.empty()) {
      std::string with;
      for (const registry::Family& f : registry::families())
        if (!f.sweep_shapes.empty()) with += (with.empty() ? "" : ", ") + f.name;
      throw std::invalid_argument("the " + fams.front()->name +
                                  " ladder has no sweep of shapes (these have: " + with + ").");
    }
  }
  const core::DeviceInfo dev = require_device();
  // The report's ladder stage over these families, variants and shapes, or its sweep stage
  // over these families (its guard, and its child processes after a fault that loses the
  // GPU).
  Options ro;
  ro.quick = o.quick;
  ro.no_profile = true;
  ro.no_sweep = !o.sweep;
  ro.no_torch = !o.torch || o.sweep;  // the sweep times best against the vendor alone
  ro.torch_python = o.torch_python;
  ro.isolate_with = o.isolate_with;
  ro.progress = [&o](Stage, const std::string& s) { o.progress(s); };
  ro.say = o.say;
  detail::Scope scope{{}, o.variants, o.shapes};
  for (const registry::Family* f : fams) scope.families.push_back(f->name);
  const bench::ResumePoint from{
      o.sweep ? bench::ResumePoint::Stage::sweep : bench::ResumePoint::Stage::ladders, "", "", "",
      ""};
  bench::Measured m;
  const std::string children =
      detail::measure_isolated(ro, dev, from, scope, m, [](const bench::Measured&) {});
  const std::string torch_not_run = detail::add_torch(ro, m);
  report::Document doc;
  doc.title = "memhier bench " + o.family + (o.sweep ? " --sweep" : "");
  doc.meta = o.meta;
  for (const bench::FamilyOutcome& f : m.families)
    if (!f.sweep) {
      const registry::Family& family = *registry::find_family(f.family);
      doc.sections.push_back(f.failed ? *f.failed : bench::family_section(family, f.records));
    }
  // The sweep as the report shows it: one section over the families swept (one family's sweep
  // that failed as a whole is its own section, saying why).
  const std::vector<bench::SweepPart> parts = detail::sweep_parts(m);
  if (parts.size() == 1 && parts.front().failed)
    doc.sections.push_back(*parts.front().failed);
  else if (!parts.empty())
    doc.sections.push_back(bench::sweep_section(parts));
  // Once, ahead of the ladders.
  if (!doc.sections.empty()) {
    auto& first = doc.sections.front().paragraphs;
    if (!children.empty()) first.insert(first.begin(), children);
    if (!torch_not_run.empty())
      first.insert(first.begin(), "PyTorch's line did not run: " + torch_not_run + ".");
  }
  claims::judge_on_card(doc.sections, bench::running_card(dev));
  return doc;
}

report::Document run_tune(const TuneOptions& o) {
  const auto fams = select_families(o.family);
  if (fams.size() != 1) throw std::invalid_argument("tune takes one family, not 'all'.");
  const registry::Family& f = *fams.front();
  // Refused before the device: a family that is not tuned, no shape, a bad shape.
  bench::check_tune(f, o.shapes);
  require_device();
  report::Document doc;
  doc.title = "memhier tune " + o.family;
  doc.meta = o.meta;
  doc.sections.push_back(
      bench::tune_section(f, bench::tune_family(f, o.shapes, o.retune, o.progress)));
  return doc;
}

}  // namespace memhier::run
