// The report's profile sections: `memhier profile` over every target with a model, and the
// GEMM rungs the source texts' traffic claims need once more at a shape beyond L2.
#include <unistd.h>

#include <climits>
#include <filesystem>

#include "memhier/bench/guard.hpp"
#include "memhier/bench/profile.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/registry/registry.hpp"

namespace memhier::bench {

std::string profile_target_beside_self() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) throw std::runtime_error("cannot find the memhier executable (/proc/self/exe).");
  const std::filesystem::path self(std::string(buf, static_cast<std::size_t>(n)));
  const std::filesystem::path target = self.parent_path() / "memhier-profile-target";
  if (!std::filesystem::exists(target))
    throw ProfilerUnavailable(
        "memhier-profile-target, the process Nsight Compute "
        "profiles, is not beside " +
        self.string() + "; build it.");
  return target.string();
}

namespace {

// The program ncu runs: the one named, or the one beside this executable.
std::string profile_target(const std::string& named) {
  if (named.empty()) return profile_target_beside_self();
  if (!std::filesystem::exists(named))
    throw ProfilerUnavailable(named + ", the process Nsight Compute profiles, is missing.");
  return named;
}

}  // namespace

std::vector<report::Section> measure_profiles(
    bool quick, const std::function<void(const std::string&)>& progress,
    const std::string& target_program) {
  kernels::register_families();
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
  // The source texts' GEMM traffic claims need operands far beyond L2 and K of many tiles:
  // the naive rung and the three tiles once more at 4096^3 (not with --quick). At 2048^3 the
  // three operands (48 MiB) fit a 50 MiB or larger L2 and the naive rung reads ~0 % of HBM.
  const std::string large_gemm = "4096x4096x4096";
  if (!quick) targets.push_back("gemm@" + large_gemm);
  for (const std::string& t : targets) {
    const bool large = t.find('@') != std::string::npos;
    const std::string target = large ? t.substr(0, t.find('@')) : t;
    const std::vector<std::string> variants =
        large ? std::vector<std::string>{"naive", "smem_tile16", "smem_tile32", "smem_tile64"}
              : std::vector<std::string>{};
    try {
      const auto items = run_profile(profile_target(target_program), target, variants,
                                     large ? large_gemm : "", progress, !large);
      out.push_back(profile_section(target, items, !large));
      if (large) {  // ids apart from the model-shape section's; the claims table keeps its owner
        out.back().id += "-large";
        out.back().title += " at " + large_gemm + " (the traffic claims)";
        for (report::Table& tb : out.back().tables)
          if (tb.id.rfind("profile-" + target + "-kernels", 0) == 0)
            tb.id = "profile-" + target + "-large-kernels";
      }
    } catch (const std::exception& e) {
      // No ncu, no counters, a timeout or a CUDA error here: the report says why, goes on.
      report::Section s;
      s.id = "profile-" + target + (large ? "-large" : "");
      s.title = "Predicted against measured: " + target;
      s.paragraphs.push_back("Not measured: " + describe_failure(e).why);
      out.push_back(std::move(s));
      if (dynamic_cast<const ProfilerUnavailable*>(&e)) break;  // same for every target
    }
  }
  return out;
}

}  // namespace memhier::bench
