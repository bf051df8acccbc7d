// memhier profile TARGET: the model's predictions beside Nsight Compute's counters, from
// memhier-profile-target run under ncu.
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/bench/profile.hpp"
#include "memhier/report/writers.hpp"
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

// memhier-profile-target, which the build puts beside memhier: the process ncu profiles.
std::string target_program() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) throw std::runtime_error("cannot find the memhier executable (/proc/self/exe).");
  const std::filesystem::path self(std::string(buf, static_cast<std::size_t>(n)));
  const std::filesystem::path target = self.parent_path() / "memhier-profile-target";
  if (!std::filesystem::exists(target))
    throw bench::ProfilerUnavailable(
        "memhier-profile-target, the process Nsight Compute "
        "profiles, is not beside " +
        self.string() + "; build it.");
  return target.string();
}

int run_profile_command(const ProfileCliOptions& o) {
  // Bad input is answered before anything else.
  if (o.size_given && o.size.empty())
    throw UsageError("--size '' is empty; give a shape such as 1000x772, or leave --size out.");
  as_bad_input([&] { bench::plan_profile(o.target, o.variants, o.size, false); });
  require_device();
  std::vector<bench::ProfileItem> items;
  try {
    ProgressLine progress("memhier profile");
    items = bench::run_profile(target_program(), o.target, o.variants, o.size,
                               [&progress](const std::string& s) { progress.step(s); });
  } catch (const bench::ProfilerUnavailable& e) {
    throw NoDevice(e.what());
  }
  report::Document doc;
  doc.title = "memhier profile " + o.target;
  doc.meta = make_meta(true);
  doc.sections.push_back(bench::profile_section(o.target, items));
  print_document(doc, o.json);
  return kExitOk;
}

}  // namespace

std::vector<report::Section> measure_profiles(bool quick) {
  // The targets with a model: the pattern sets and every family with a predicted variant
  // (--quick: the families only; the pattern sets take about half a minute each).
  std::vector<std::string> targets;
  if (!quick) targets = {"shared-stride", "global-stride"};
  for (const registry::Family& f : registry::families())
    for (const registry::Variant& v : f.variants)
      if (v.predict) {
        targets.push_back(f.name);
        break;
      }
  std::vector<report::Section> out;
  ProgressLine progress("memhier report");
  // The source texts' GEMM traffic claims need operands far beyond L2 and K of many tiles:
  // the naive rung and the three tiles once more at 4096^3 (not with --quick). At 2048^3 the
  // three operands (48 MiB) fit an H100's 50 MiB L2 and the naive rung reads ~0 % of HBM.
  const std::string large_gemm = "4096x4096x4096";
  if (!quick) targets.push_back("gemm@" + large_gemm);
  for (const std::string& t : targets) {
    const bool large = t.find('@') != std::string::npos;
    const std::string target = large ? t.substr(0, t.find('@')) : t;
    const std::vector<std::string> variants =
        large ? std::vector<std::string>{"naive", "smem_tile16", "smem_tile32", "smem_tile64"}
              : std::vector<std::string>{};
    try {
      const auto items = bench::run_profile(
          target_program(), target, variants, large ? large_gemm : "",
          [&progress](const std::string& s) { progress.step(s); }, !large);
      out.push_back(bench::profile_section(target, items, !large));
      if (large) {  // ids apart from the model-shape section's; the claims table keeps its owner
        out.back().id += "-large";
        out.back().title += " at " + large_gemm + " (the traffic claims)";
        for (report::Table& tb : out.back().tables)
          if (tb.id.rfind("profile-" + target + "-kernels", 0) == 0)
            tb.id = "profile-" + target + "-large-kernels";
      }
    } catch (const std::exception& e) {
      // No ncu or no counters here: the report says why and goes on.
      report::Section s;
      s.id = "profile-" + target + (large ? "-large" : "");
      s.title = "Predicted against measured: " + target;
      s.paragraphs.push_back(std::string("Not measured: ") + e.what());
      out.push_back(std::move(s));
      if (dynamic_cast<const bench::ProfilerUnavailable*>(&e)) break;  // same for every target
    }
  }
  return out;
}

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
