// `memhier explain`'s profiled run: the user's program under Nsight Compute (profile's driver,
// explain's counters, the launches the selection picks), its rows in launch order.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "memhier/bench/explain.hpp"
#include "memhier/bench/profile.hpp"
#include "profile_items.hpp"

namespace memhier::bench {
namespace {

struct Attempt {
  int rc = 0;
  std::string all;  ///< the log, then the console output
  std::vector<profile::KernelCounters> rows;
};

Attempt attempt(const std::string& ncu, const ExplainOptions& o, const profile::Selection& sel,
                const std::vector<std::string>& leave_out, int limit) {
  const std::string log_name = temp_file("ncu's output");
  Attempt a;
  std::string output;
  a.rc = profile::run_command(profile::ncu_command_for(ncu, log_name, profile::explain_metrics(),
                                                       sel, o.program, leave_out),
                              output, limit);
  std::ifstream log(log_name);
  std::stringstream text;
  text << log.rdbuf();
  std::filesystem::remove(log_name);
  a.all = text.str() + "\n" + output;
  if (a.rc == profile::kTimedOut)
    throw std::runtime_error("Nsight Compute timed out after " + std::to_string(limit) + " s on " +
                             o.program.front() +
                             " (--timeout sets the limit; fewer kernels, --launch-count, "
                             "profile faster).");
  try {
    a.rows = profile::parse_raw_csv(text.str(), profile::explain_metrics());
  } catch (const profile::NcuError&) {
    a.rows.clear();
  }
  return a;
}

}  // namespace

ExplainRun profile_program(const ExplainOptions& o,
                           const std::function<void(const std::string&)>& progress) {
  auto [sel, said] = explain_selection(o);
  const std::optional<std::string> ncu = profile::find_ncu();
  if (!ncu)
    throw ProfilerUnavailable(
        "Nsight Compute (ncu) was not found on PATH, in the CUDA installation or under "
        "/opt/nvidia/nsight-compute; install it or set MEMHIER_NCU to its path.");
  const int limit = o.timeout_s > 0 ? o.timeout_s : profile::ncu_timeout_s();
  progress("explain: " + o.program.front() + " under ncu");
  Attempt a = attempt(*ncu, o, sel, {}, limit);
  // A counter this card or ncu version does not know costs only its own column: once more
  // without the optional ones ncu named.
  if (a.rows.empty() || !profile::counters_unavailable_reason(a.all).empty()) {
    const std::vector<std::string> drop =
        profile::optional_to_leave_out(a.all, profile::explain_metrics());
    if (!drop.empty()) {
      progress("explain: once more without " + std::to_string(drop.size()) +
               " counters this ncu does not know");
      a = attempt(*ncu, o, sel, drop, limit);
    }
  }
  if (const std::string why = profile::counters_unavailable_reason(a.all); !why.empty())
    throw ProfilerUnavailable("cannot read hardware counters: " + why + ".");
  if (a.rows.empty()) {
    const std::string tail = a.all.size() > 2000 ? a.all.substr(a.all.size() - 2000) : a.all;
    if (a.rc != 0)
      throw std::runtime_error("Nsight Compute failed on " + o.program.front() + " (exit status " +
                               std::to_string(a.rc) + "); its last output:\n" + tail);
    throw std::runtime_error("Nsight Compute profiled no kernel of " + o.program.front() +
                             ": it launched none that the selection picks (" + said + ")");
  }
  std::sort(a.rows.begin(), a.rows.end(), [](const auto& x, const auto& y) { return x.id < y.id; });
  said += " " + std::to_string(a.rows.size()) + (a.rows.size() == 1 ? " launch" : " launches") +
          " profiled.";
  if (static_cast<long>(a.rows.size()) >= sel.launch_count)
    said += " The limit of " + std::to_string(sel.launch_count) +
            " was reached: the program may launch more kernels than these (--launch-skip " +
            std::to_string(sel.launch_skip + sel.launch_count) + " goes on from there).";
  if (a.rc != 0) said += " The program exited with status " + std::to_string(a.rc) + ".";
  ExplainRun run;
  run.program = o.program;
  run.selection = sel;
  run.selection_said = said;
  for (profile::KernelCounters& k : a.rows) {
    KernelDiagnosis d;
    d.counters = std::move(k);
    run.kernels.push_back(std::move(d));
  }
  return run;
}

}  // namespace memhier::bench
