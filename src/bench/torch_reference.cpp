// PyTorch's reference rows: the subprocess, its JSON and the rows it adds to a ladder.
#include "memhier/bench/torch_reference.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace memhier::bench {

extern const char kTorchReferenceScript[];  // python/memhier/torch_reference.py (CMake)

namespace {

using results::BenchRecord;

// The last non-empty line of a process's stderr: its error, as one line.
std::string last_line(const std::string& text) {
  std::size_t end = text.find_last_not_of(" \n\r\t");
  if (end == std::string::npos) return {};
  const std::size_t start = text.find_last_of('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

// Runs argv with stdout and stderr captured; the exit status, 127 when it could not start,
// -1 when it outlived `timeout_s` (it is killed then).
int run_captured(const std::vector<std::string>& argv, int timeout_s, std::string* out,
                 std::string* err) {
  int o[2], e[2];
  if (::pipe(o) != 0) return 127;
  if (::pipe(e) != 0) {
    ::close(o[0]);
    ::close(o[1]);
    return 127;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {o[0], o[1], e[0], e[1]}) ::close(fd);
    return 127;
  }
  if (pid == 0) {
    ::dup2(o[1], STDOUT_FILENO);
    ::dup2(e[1], STDERR_FILENO);
    for (int fd : {o[0], o[1], e[0], e[1]}) ::close(fd);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::_Exit(127);
  }
  ::close(o[1]);
  ::close(e[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  std::array<pollfd, 2> fds{pollfd{o[0], POLLIN, 0}, pollfd{e[0], POLLIN, 0}};
  std::array<std::string*, 2> sinks{out, err};
  int open = 2;
  bool timed_out = false;
  std::array<char, 4096> buf;
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    if (::poll(fds.data(), fds.size(), static_cast<int>(left.count())) < 0) break;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf.data(), buf.size());
      if (n > 0) {
        sinks[i]->append(buf.data(), static_cast<std::size_t>(n));
      } else {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (const pollfd& p : fds)
    if (p.fd >= 0) ::close(p.fd);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  if (::waitpid(pid, &status, 0) < 0) return 127;
  if (timed_out) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

double number(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : NAN;
}

std::string text(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The first record of `shape` satisfying `pred`, or nullptr.
template <class Pred>
const BenchRecord* first(const std::vector<BenchRecord>& rs, const std::string& shape, Pred pred) {
  for (const BenchRecord& r : rs)
    if (r.shape == shape && pred(r)) return &r;
  return nullptr;
}

}  // namespace

TorchRun parse_torch_output(const std::string& out, int exit_status, const std::string& err) {
  TorchRun run;
  nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    const std::string why = last_line(err);
    run.error = exit_status == 127 ? "no Python interpreter could be started"
                : why.empty()      ? "the PyTorch timing printed no JSON (exit status " +
                                    std::to_string(exit_status) + ")"
                              : why;
    return run;
  }
  if (!text(j, "error").empty() || exit_status != 0 || !j.contains("records") ||
      !j["records"].is_array()) {
    run.error = !text(j, "error").empty()
                    ? text(j, "error")
                    : "the PyTorch timing ended with exit status " + std::to_string(exit_status);
    return run;
  }
  run.version = text(j, "torch");
  run.device = text(j, "device");
  for (const nlohmann::json& e : j["records"]) {
    if (!e.is_object()) continue;
    TorchRecord t;
    BenchRecord& r = t.record;
    r.family = text(e, "family");
    r.shape = text(e, "shape");
    r.variant = text(e, "variant");
    r.reference = "pytorch";
    r.declined = text(e, "declined");
    r.rel_error = number(e, "rel_error");
    r.ms = number(e, "ms");
    t.p10 = number(e, "p10");
    t.p90 = number(e, "p90");
    t.reps = static_cast<int>(std::isfinite(number(e, "reps")) ? number(e, "reps") : 0);
    t.compare = e.value("compare", false);
    r.verified = r.declined.empty() && r.ms > 0;
    if (!r.verified && r.declined.empty()) r.declined = "no time in PyTorch's answer";
    if (r.verified) r.spread = (t.p90 - t.p10) / r.ms;
    run.records.push_back(t);
  }
  return run;
}

TorchRun run_torch_reference(const std::vector<std::pair<std::string, std::string>>& cases,
                             bool quick, int timeout_s, const std::string& interpreter) {
  const char* env = std::getenv("MEMHIER_PYTHON");
  const std::string python = !interpreter.empty() ? interpreter : env && *env ? env : "python3";
  // The report's per-shape budget (25 ms, at least 7 and at most 200 repetitions; --quick 5).
  std::vector<std::string> argv{python,
                                "-c",
                                kTorchReferenceScript,
                                "--json",
                                "--budget-ms",
                                quick ? "5" : "25",
                                "--min-reps",
                                quick ? "3" : "7"};
  for (const auto& [family, shape] : cases) argv.insert(argv.end(), {"--case", family, shape});
  std::string out, err;
  const int status = run_captured(argv, timeout_s, &out, &err);
  if (status == -1) {
    TorchRun run;
    run.error = "PyTorch's timing (memhier/torch_reference.py under " + python + ") ran past " +
                std::to_string(timeout_s) + " s and was stopped";
    return run;
  }
  TorchRun run = parse_torch_output(out, status, err);
  if (!run.error.empty()) run.error = explain_torch_failure(python, run.error, status);
  return run;
}

std::string explain_torch_failure(const std::string& python, const std::string& error,
                                  int exit_status) {
  static const std::string kNoModule = "No module named ";
  const std::size_t at = error.find(kNoModule);
  if (at != std::string::npos) {
    std::size_t from = at + kNoModule.size(), to = std::string::npos;
    if (from < error.size() && error[from] == '\'') to = error.find('\'', ++from);
    if (to == std::string::npos) to = error.find_first_of(" )\n", from);
    const std::string name = error.substr(from, to == std::string::npos ? to : to - from);
    return python + " cannot import the Python package '" + name +
           "' (install it there, or set MEMHIER_PYTHON to an interpreter that has it)";
  }
  if (exit_status == 127 && error.rfind("no Python", 0) == 0)
    return "no Python interpreter '" + python + "' could be started (set MEMHIER_PYTHON)";
  return error;
}

void add_torch_rows(const TorchRun& run, std::vector<BenchRecord>* records) {
  // A stage that did not run adds no rows: its one reason is said once, by the caller.
  if (records->empty() || !run.error.empty()) return;
  const BenchRecord& facts = records->front();  // the family's number type and bound
  const std::string family = facts.family;
  std::vector<std::string> shapes;
  for (const BenchRecord& r : *records)
    if (std::find(shapes.begin(), shapes.end(), r.shape) == shapes.end()) shapes.push_back(r.shape);
  const std::string note = "timed by PyTorch " + run.version + " on " + run.device +
                           " in a separate process (same method, not paired: its ratios are of "
                           "medians)";
  std::vector<BenchRecord> out;
  for (const std::string& shape : shapes) {
    std::vector<BenchRecord> rows;
    if (!run.error.empty()) {
      BenchRecord r;
      r.family = family;
      r.number_type = facts.number_type;
      r.bound = facts.bound;
      r.shape = shape;
      r.variant = "PyTorch";
      r.reference = "pytorch";
      r.declined = run.error;
      rows.push_back(r);
    }
    const BenchRecord* copy =
        first(*records, shape, [](const BenchRecord& r) { return r.variant == "cudaMemcpy D2D"; });
    const BenchRecord* vendor = first(*records, shape, [](const BenchRecord& r) {
      return r.rung == 0 && !r.ceiling && r.reference.empty() && r.verified && r.ms > 0;
    });
    // The flops of the problem, from any row that has them (GFLOP/s x ms = flops / 1e6).
    const BenchRecord* flops = first(
        *records, shape, [](const BenchRecord& r) { return std::isfinite(r.gflops) && r.ms > 0; });
    double compare_ms = NAN;
    for (const TorchRecord& t : run.records) {
      if (t.record.family != family || t.record.shape != shape) continue;
      BenchRecord r = t.record;
      r.number_type = facts.number_type;
      r.bound = facts.bound;
      if (r.verified) {
        r.note = note + "; " + std::to_string(t.reps) + " repetitions";
        if (copy && copy->ms > 0) {
          r.gbps = copy->gbps * copy->ms / r.ms;
          r.frac_memcpy = copy->ms / r.ms;
        }
        if (vendor) r.x_vendor = vendor->ms / r.ms;
        if (flops) {
          r.gflops = flops->gflops * flops->ms / r.ms;
          r.peak_pct = flops->peak_pct * flops->ms / r.ms;
          r.peak_kind = flops->peak_kind;
        }
        if (t.compare) compare_ms = r.ms;
      }
      rows.push_back(r);
    }
    // The shape's rows, PyTorch's after its last reference row (ceilings and vendor).
    std::size_t at = out.size();
    for (const BenchRecord& r : *records) {
      if (r.shape != shape) continue;
      out.push_back(r);
      if (r.rung == 0) at = out.size();
    }
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), rows.begin(), rows.end());
    for (BenchRecord& r : out)
      if (r.shape == shape && r.ms > 0 && std::isfinite(compare_ms)) r.x_torch = compare_ms / r.ms;
  }
  *records = std::move(out);
}

}  // namespace memhier::bench
