// memhier profile TARGET: the model's predictions beside Nsight Compute's counters, from
// memhier-profile-target run under ncu.
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/bench/card_record.hpp"
#include "memhier/bench/profile.hpp"
#include "memhier/report/writers.hpp"
#include "memhier/run/pipeline.hpp"
#include "progress.hpp"

namespace memhier::cli {
namespace {

struct ProfileCliOptions {
  std::string target;
  std::vector<std::string> variants;
  std::string size;  ///< empty: the family's profile shape
  bool size_given = false;
  bool json = false;
};

int run_profile_command(const ProfileCliOptions& o) {
  // Bad input is answered before anything else.
  if (o.size_given && o.size.empty())
    throw UsageError("--size '' is empty; give a shape such as 1000x772, or leave --size out.");
  as_bad_input([&] { bench::plan_profile(o.target, o.variants, o.size, false); });
  // The profiled child opens the context: one held here would lock an exclusive-process GPU.
  const core::DeviceInfo dev = run::require_device(false);
  std::vector<bench::ProfileItem> items;
  try {
    ProgressLine progress("memhier profile");
    items = bench::run_profile(bench::profile_target_beside_self(), o.target, o.variants, o.size,
                               [&progress](const std::string& s) { progress.step(s); });
  } catch (const bench::ProfilerUnavailable& e) {
    throw NoDevice(e.what());
  }
  report::Document doc;
  doc.title = "memhier profile " + o.target;
  doc.meta = make_meta(true);
  doc.sections.push_back(bench::profile_section(o.target, items));
  claims::judge_on_card(doc.sections, bench::running_card(dev));
  print_document(doc, o.json);
  return kExitOk;
}

}  // namespace

void add_profile(CLI::App& app, int& rc) {
  auto o = std::make_shared<ProfileCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "profile",
      "Run kernels under Nsight Compute and show the model's predictions beside the counters");
  sub->add_option("TARGET", o->target,
                  "A family (transpose, gemm, ...), a probe with access patterns (shared-stride, "
                  "global-stride), or all")
      ->required();
  sub->add_option("--variant", o->variants, "Only these variants of a family (repeatable)");
  const CLI::Option* size =
      sub->add_option("--size", o->size, "The family's shape (default: its profile shape)");
  sub->add_flag("--json", o->json, "Print JSON");
  sub->callback([o, size, &rc] {
    o->size_given = size->count() > 0;
    rc = run_profile_command(*o);
  });
}

}  // namespace memhier::cli
