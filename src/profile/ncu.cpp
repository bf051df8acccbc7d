#include "memhier/profile/ncu.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace memhier::profile {
namespace fs = std::filesystem;

const std::vector<Metric>& metrics() {
  // The compared counters are the SASS-attributed ones (sm__sass_*): they count what each
  // instruction's addresses need. l1tex__data_pipe_* also counts wavefronts lost to other
  // L1 traffic in a busy kernel (seen on an H100: 582,521 against 524,288 for a padded,
  // conflict-free transpose tile), so it is shown for reference, never compared.
  static const std::vector<Metric> m = {
      {"shared_ld_instructions", "sm__sass_inst_executed_op_shared_ld.sum", "shared ld instr",
       true},
      {"shared_ld_wavefronts", "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
       "shared ld wavefronts", true},
      // ldmatrix (LDSM) is its own op on sm_90: the model's shared loads are op_ld + op_ldsm.
      {"shared_ldsm_wavefronts", "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
       "shared ldmatrix wavefronts", true, true},
      {"shared_ld_wavefronts_l1", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
       "shared ld wavefronts (L1 data stage)", true},
      {"shared_ld_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
       "shared ld bank conflicts", true},
      {"shared_st_instructions", "sm__sass_inst_executed_op_shared_st.sum", "shared st instr",
       true},
      {"shared_st_wavefronts", "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
       "shared st wavefronts", true},
      {"shared_st_wavefronts_l1", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
       "shared st wavefronts (L1 data stage)", true},
      {"shared_st_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
       "shared st bank conflicts", true},
      {"global_ld_instructions", "sm__sass_inst_executed_op_global_ld.sum", "global ld instr",
       true},
      {"global_ld_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
       "global ld requests", true},
      {"global_ld_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global ld sectors",
       true},
      {"global_st_instructions", "sm__sass_inst_executed_op_global_st.sum", "global st instr",
       true},
      {"global_st_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
       "global st requests", true},
      {"global_st_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "global st sectors",
       true},
      {"local_ld_sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "local ld sectors",
       false},
      {"local_st_sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "local st sectors",
       false},
      // The memory-system model's counterparts (memhier simulate), and the warp-stall shares
      // the stall claim reads (share of active warp cycles, and the warp cycles themselves).
      {"dram_read_bytes", "dram__bytes_read.sum", "DRAM bytes read", false},
      {"dram_write_bytes", "dram__bytes_write.sum", "DRAM bytes written", false},
      {"l1_hit_rate_pct", "l1tex__t_sector_hit_rate.pct", "L1 sector hit rate %", false},
      {"l2_hit_rate_pct", "lts__t_sector_hit_rate.pct", "L2 sector hit rate %", false},
      {"l2_sm_sectors", "lts__t_sectors_srcunit_tex.sum", "L2 sectors from L1", false},
      // Every L2 lookup, whatever its source (the SMs, the fabric, the launch's own): the
      // marker kernel's give the floor each launch adds to lts__t_sector_hit_rate.
      {"l2_lookup_hits", "lts__t_sectors_lookup_hit.sum", "L2 sector lookup hits", false},
      {"l2_lookup_misses", "lts__t_sectors_lookup_miss.sum", "L2 sector lookup misses", false},
      {"stall_short_scoreboard_pct",
       "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct", "stall short scoreboard %",
       false},
      {"stall_mio_throttle_pct", "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct",
       "stall MIO throttle %", false},
      {"stall_long_scoreboard_pct", "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
       "stall long scoreboard %", false},
      {"warps_active", "smsp__warps_active.sum", "active warp cycles", false},
      {"dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput %",
       false},
      {"sm_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput %", false},
      {"achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active",
       "achieved occupancy %", false},
      // How busy the warp schedulers and the tensor pipes were: the share of active cycles on
      // which a scheduler issued, and on which the tensor pipe worked (all of it; its HMMA
      // part, which mma.sync and WMMA use; its GMMA part, Hopper's wgmma). Optional: the
      // names come from ncu users' reports, not from one list for every card.
      {"issue_active_pct", "smsp__issue_active.avg.pct_of_peak_sustained_active",
       "issue slots busy %", false, true},
      {"tensor_pipe_pct", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
       "tensor pipe %", false, true},
      {"tensor_hmma_pct", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
       "tensor pipe HMMA %", false, true},
      {"tensor_gmma_pct", "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
       "tensor pipe GMMA (wgmma) %", false, true},
      {"registers", "launch__registers_per_thread", "registers/thread", false},
      {"duration_ns", "gpu__time_duration.sum", "duration ns", false},
  };
  return m;
}

double KernelCounters::get(const std::string& key) const {
  const auto it = values.find(key);
  return it == values.end() ? NAN : it->second;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        cur += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (ch != '\r') {
      cur += ch;
    }
  }
  out.push_back(cur);
  return out;
}

namespace {

// "1,048,576" or "12.5" -> number; nullopt for "n/a", "" and text.
std::optional<double> parse_number(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') return std::nullopt;
  return v;
}

bool is_integer(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::vector<KernelCounters> parse_raw_csv(const std::string& text) {
  return parse_raw_csv(text, metrics());
}

std::vector<KernelCounters> parse_raw_csv(const std::string& text,
                                          const std::vector<Metric>& table) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  std::vector<KernelCounters> out;
  std::map<std::string, std::string> key_of_metric;
  for (const Metric& m : table) key_of_metric[m.metric] = m.key;
  while (std::getline(in, line)) {
    if (line.rfind("==", 0) == 0) continue;  // ==PROF== / ==WARNING== lines
    const std::vector<std::string> cells = split_csv_line(line);
    if (header.empty()) {
      if (!cells.empty() && cells[0] == "ID") header = cells;
      continue;
    }
    if (cells.size() != header.size() || !is_integer(cells[0])) continue;  // units row, noise
    KernelCounters k;
    k.id = std::stol(cells[0]);
    for (std::size_t i = 0; i < header.size(); ++i) {
      const std::string& h = header[i];
      if (h == "Kernel Name")
        k.name = cells[i];
      else if (h == "Grid Size")
        k.grid = cells[i];
      else if (h == "Block Size")
        k.block = cells[i];
      else if (const auto it = key_of_metric.find(h); it != key_of_metric.end()) {
        if (const auto v = parse_number(cells[i])) k.values[it->second] = *v;
      }
    }
    out.push_back(std::move(k));
  }
  if (header.empty())
    throw NcuError("Nsight Compute printed no CSV table (no line starting with \"ID\").");
  return out;
}

std::optional<std::string> find_ncu() {
  auto executable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (const char* env = std::getenv("MEMHIER_NCU"); env && *env) {
    if (executable(env)) return std::string(env);
    return std::nullopt;  // an explicit choice that does not exist is not overridden
  }
  if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':'))
      if (!dir.empty() && executable(fs::path(dir) / "ncu"))
        return (fs::path(dir) / "ncu").string();
  }
  std::vector<fs::path> candidates;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* root = std::getenv(var); root && *root)
      candidates.push_back(fs::path(root) / "bin" / "ncu");
  candidates.push_back("/usr/local/cuda/bin/ncu");
  std::error_code ec;
  std::vector<fs::path> opt;
  for (const auto& e : fs::directory_iterator("/opt/nvidia/nsight-compute", ec))
    opt.push_back(e.path() / "ncu");
  std::sort(opt.rbegin(), opt.rend());  // the newest version first
  candidates.insert(candidates.end(), opt.begin(), opt.end());
  for (const fs::path& p : candidates)
    if (executable(p)) return p.string();
  return std::nullopt;
}

std::vector<std::string> ncu_command_for(const std::string& ncu, const std::string& log_file,
                                         const std::vector<Metric>& table,
                                         const Selection& selection,
                                         const std::vector<std::string>& target_args,
                                         const std::vector<std::string>& leave_out) {
  std::string list;
  for (const Metric& m : table) {
    if (std::find(leave_out.begin(), leave_out.end(), m.metric) != leave_out.end()) continue;
    list += (list.empty() ? "" : ",") + m.metric;
  }
  std::vector<std::string> argv = {ncu,    "--csv",           "--page", "raw", "--print-units",
                                   "base", "--clock-control", "none"};
  if (!selection.flush_caches) argv.insert(argv.end(), {"--cache-control", "none"});
  argv.insert(argv.end(), {"--profile-from-start", selection.from_start ? "on" : "off"});
  const std::string regex = selection.kernel_regex.empty() ? ".*" : selection.kernel_regex;
  if (selection.first_launch_each)
    argv.insert(argv.end(), {"--kernel-id", "::regex:" + regex + ":1"});
  else if (!selection.kernel_regex.empty())
    argv.insert(argv.end(), {"--kernel-name", "regex:" + regex});
  if (selection.launch_skip > 0)
    argv.insert(argv.end(), {"--launch-skip", std::to_string(selection.launch_skip)});
  if (selection.launch_count > 0)
    argv.insert(argv.end(), {"--launch-count", std::to_string(selection.launch_count)});
  argv.insert(argv.end(), {"--metrics", list, "--log-file", log_file});
  argv.insert(argv.end(), target_args.begin(), target_args.end());
  return argv;
}

std::vector<std::string> ncu_command(const std::string& ncu, const std::string& log_file,
                                     const std::vector<std::string>& target_args, bool access_only,
                                     const std::vector<std::string>& leave_out) {
  std::vector<Metric> table;
  for (const Metric& m : metrics())
    if (m.access || !access_only) table.push_back(m);
  Selection marked;
  // Counting addresses needs no cold caches: skip the flush between passes (faster).
  marked.flush_caches = !access_only;
  return ncu_command_for(ncu, log_file, table, marked, target_args, leave_out);
}

int run_command(const std::vector<std::string>& argv, std::string& output, int timeout_s) {
  output.clear();
  int fds[2];
  if (argv.empty() || ::pipe(fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    ::setpgid(0, 0);  // its own process group: a timeout kills ncu and the program it runs
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::_Exit(127);
  }
  ::setpgid(pid, pid);  // also here: whichever runs first, the group exists before a kill
  ::close(fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  bool timed_out = false;
  std::array<char, 4096> buf;
  for (;;) {
    int wait_ms = -1;
    if (timeout_s > 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(left.count());
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fds[0], buf.data(), buf.size());
    if (n <= 0) break;
    output.append(buf.data(), static_cast<std::size_t>(n));
  }
  if (timed_out) ::kill(-pid, SIGKILL);
  ::close(fds[0]);
  int status = 0;
  if (::waitpid(pid, &status, 0) < 0) return -1;
  if (timed_out) return kTimedOut;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int ncu_timeout_s() {
  const char* env = std::getenv("MEMHIER_NCU_TIMEOUT");
  if (env && *env) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (*end == '\0' && v > 0 && v <= 86400) return static_cast<int>(v);
  }
  return 300;
}

std::vector<std::string> optional_to_leave_out(const std::string& ncu_output,
                                               const std::vector<Metric>& table) {
  std::vector<std::string> named, all;
  for (const Metric& m : table) {
    if (!m.optional) continue;
    all.push_back(m.metric);
    // ncu may name the metric or only its base (the part before the first '.').
    if (ncu_output.find(m.metric.substr(0, m.metric.find('.'))) != std::string::npos)
      named.push_back(m.metric);
  }
  if (!named.empty()) return named;
  return counters_unavailable_reason(ncu_output).empty() ? all : std::vector<std::string>{};
}

std::vector<std::string> optional_to_leave_out(const std::string& ncu_output, bool access_only) {
  std::vector<Metric> table;
  for (const Metric& m : metrics())
    if (m.access || !access_only) table.push_back(m);
  return optional_to_leave_out(ncu_output, table);
}

std::string counters_unavailable_reason(const std::string& out) {
  if (out.find("ERR_NVGPUCTRPERM") != std::string::npos)
    return "this user may not read the GPU performance counters (ERR_NVGPUCTRPERM)";
  if (out.find("LibraryNotLoaded") != std::string::npos)
    return "Nsight Compute could not load its profiling library here (LibraryNotLoaded)";
  if (out.find("not supported") != std::string::npos && out.find("evice") != std::string::npos)
    return "Nsight Compute does not support this device or runtime";
  return {};
}

}  // namespace memhier::profile
