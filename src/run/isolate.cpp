// A report's work after a kernel fault that the driver will not let this process recover
// from, measured in a child process: the parent runs `PROGRAM report --continue SPEC`, the
// child measures from the resume point and writes its measurements as JSON, the parent reads
// them back (bench/continuation.hpp).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "measure_report.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/probe/probe.hpp"
#include "memhier/report/files.hpp"

namespace memhier::run {
namespace {

namespace fs = std::filesystem;

// The child's exit status, as a sentence.
std::string exit_sentence(int status) {
  if (WIFEXITED(status)) {
    if (WEXITSTATUS(status) == 127) return "it could not be started";
    return "it exited with status " + std::to_string(WEXITSTATUS(status));
  }
  if (WIFSIGNALED(status)) return "it was killed by signal " + std::to_string(WTERMSIG(status));
  return "it ended abnormally";
}

}  // namespace

std::string self_executable() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) throw std::runtime_error("cannot find the running executable (/proc/self/exe).");
  return std::string(buf, static_cast<std::size_t>(n));
}

namespace detail {

bool measure_in_child(const Options& o, const bench::ResumePoint& at, const Scope& scope,
                      bench::Measured* rest, std::string* why) {
  static std::atomic<int> serial{0};
  std::error_code ec;
  const fs::path out =
      fs::temp_directory_path(ec) /
      ("memhier-continue-" + std::to_string(::getpid()) + "-" + std::to_string(serial++) + ".json");
  if (ec) {
    *why = "no temporary folder for its results (" + ec.message() + ")";
    return false;
  }
  const nlohmann::json spec = {{"resume", bench::to_json(at)},
                               {"quick", o.quick},
                               {"no_profile", o.no_profile},
                               {"no_sweep", o.no_sweep},
                               {"profile_target", o.profile_target},
                               {"families", scope.families},
                               {"variants", scope.variants},
                               {"shapes", scope.shapes},
                               {"out", out.string()}};
  const std::vector<std::string> argv = {o.isolate_with, "report", "--continue", spec.dump()};
  const pid_t pid = ::fork();
  if (pid < 0) {
    *why = "it could not be started (fork failed)";
    return false;
  }
  if (pid == 0) {  // stdout and stderr stay the parent's: its warnings reach the user
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    std::_Exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      *why = "it could not be waited for";
      return false;
    }
  // The file is written whole once the child has measured everything, so it counts even
  // where the child's exit stumbles over its own broken context afterwards.
  const bool wrote = fs::exists(out, ec);
  std::ifstream f(out);
  std::stringstream text;
  text << f.rdbuf();
  fs::remove(out, ec);
  if (!wrote) {
    *why = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "it wrote no results"
                                                         : exit_sentence(status);
    return false;
  }
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  try {
    *rest = bench::measured_from_json(j);
  } catch (const std::invalid_argument& e) {
    *why = std::string("what it wrote is ") + e.what();
    return false;
  }
  return true;
}

}  // namespace detail

void continue_report(const std::string& spec_text,
                     const std::function<void(Stage, const std::string&)>& progress) {
  const nlohmann::json spec = nlohmann::json::parse(spec_text, nullptr, false);
  if (!spec.is_object() || !spec.contains("resume") || !spec.contains("out") ||
      !spec["out"].is_string())
    throw std::invalid_argument(
        "--continue takes the JSON a report writes for its child process (resume, out).");
  const bench::ResumePoint at = bench::resume_point_from_json(spec["resume"]);
  Options o;
  o.quick = spec.value("quick", false);
  o.no_profile = spec.value("no_profile", false);
  o.no_sweep = spec.value("no_sweep", false);
  o.profile_target = spec.value("profile_target", std::string());
  o.no_torch = true;  // the parent adds PyTorch's rows over every family
  if (progress) o.progress = progress;
  probe::register_probes();  // idempotent: what the caller registered besides stays
  kernels::register_families();
  const core::DeviceInfo dev = require_device();
  // The ladders a bench measures (every one for a report), as the parent names them.
  const auto strings = [&spec](const char* key) {
    std::vector<std::string> out;
    if (spec.contains(key) && spec[key].is_array())
      for (const nlohmann::json& e : spec[key])
        if (e.is_string()) out.push_back(e.get<std::string>());
    return out;
  };
  const detail::Scope scope{strings("families"), strings("variants"), strings("shapes")};
  bench::Measured m;
  detail::measure_from(
      o, dev, at, true, m, [](const bench::Measured&) {}, scope);
  report::write_file_atomically(spec["out"].get<std::string>(), bench::to_json(m).dump() + "\n");
}

}  // namespace memhier::run
