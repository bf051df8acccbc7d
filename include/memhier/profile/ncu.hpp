// Nsight Compute as a subprocess: find it, build its command line, parse its raw CSV
// page by header name. Pure host C++ (no CUDA), so the parser is tested everywhere.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace memhier::profile {

/// One counter memhier collects: a short key and the Nsight Compute metric behind it.
struct Metric {
  std::string key;      ///< "shared_ld_wavefronts"
  std::string metric;   ///< "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
  std::string title;    ///< "shared ld wavefronts"
  bool access = false;  ///< an access counter (collected for pattern runs too)
  /// Not documented for every card and ncu version: a run that ncu fails is retried without
  /// it, and the counter is missing from that run's rows (see optional_to_leave_out).
  bool optional = false;
};

/// Every counter `memhier profile` collects, in display order.
const std::vector<Metric>& metrics();

/// Every counter `memhier explain` collects of a user's kernels (src/profile/explain_metrics.cpp):
/// access counts per memory space, cache hit rates, DRAM bytes, launch attributes, issue and
/// pipe use, floating-point operations. The keys are the diagnosis's (bench/explain.hpp).
const std::vector<Metric>& explain_metrics();

/// One profiled kernel launch: its name, launch shape and counters by metric key.
struct KernelCounters {
  long id = -1;  ///< ncu's launch ID (its "ID" column): the order of the profiled launches
  std::string name;
  std::string grid, block;               ///< "(5, 1, 1)"
  std::map<std::string, double> values;  ///< by Metric::key; absent when ncu gave none

  double get(const std::string& key) const;  ///< NaN when absent
};

/// ncu's output could not be understood, or ncu failed: one sentence.
struct NcuError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Parses `ncu --csv --page raw --print-units base` output (other lines, such as
/// "==PROF==" messages, are skipped): one KernelCounters per kernel row, columns found by
/// header name. Throws NcuError when no header row is present.
std::vector<KernelCounters> parse_raw_csv(const std::string& text);

/// The same for the counters of `table` (explain_metrics(), say): keys from its Metric::key.
std::vector<KernelCounters> parse_raw_csv(const std::string& text,
                                          const std::vector<Metric>& table);

/// Splits one CSV line (quotes, doubled quotes, commas inside quotes).
std::vector<std::string> split_csv_line(const std::string& line);

/// The ncu executable: $MEMHIER_NCU, then PATH, then the CUDA installation and
/// /opt/nvidia/nsight-compute; nullopt when none exists.
std::optional<std::string> find_ncu();

/// The command line that profiles `target_args` (program first) with every metric but the
/// ones in `leave_out` (Metric::metric names), counting only between cudaProfilerStart and
/// cudaProfilerStop, clocks untouched. `access_only`: only the access counters, no cache
/// flush between passes (patterns).
std::vector<std::string> ncu_command(const std::string& ncu, const std::string& log_file,
                                     const std::vector<std::string>& target_args,
                                     bool access_only = false,
                                     const std::vector<std::string>& leave_out = {});

/// Which launches of a program ncu profiles, and from when.
struct Selection {
  /// Count from the program's start (a user's program); false: only between
  /// cudaProfilerStart and cudaProfilerStop (memhier's own profiled child).
  bool from_start = false;
  std::string kernel_regex;        ///< only kernels whose function name matches; "" all
  bool first_launch_each = false;  ///< only each kernel's first launch (--kernel-id ...:1)
  long launch_skip = 0;            ///< selected launches to pass over before profiling
  long launch_count = 0;           ///< selected launches to profile at most; 0: no limit
  bool flush_caches = true;        ///< flush the caches between replay passes (ncu's default)
};

/// The command line that profiles `target_args` with the counters of `table` but the ones in
/// `leave_out`, the launches `selection` picks, clocks untouched. ncu_command is this with
/// metrics() (or their access part) and a marked range.
std::vector<std::string> ncu_command_for(const std::string& ncu, const std::string& log_file,
                                         const std::vector<Metric>& table,
                                         const Selection& selection,
                                         const std::vector<std::string>& target_args,
                                         const std::vector<std::string>& leave_out = {});

/// After ncu failed a run of `table`'s counters: the optional ones to leave out of one retry
/// (as optional_to_leave_out below, over `table`).
std::vector<std::string> optional_to_leave_out(const std::string& ncu_output,
                                               const std::vector<Metric>& table);

/// After ncu failed a run (`access_only` as for ncu_command): the optional metrics to leave
/// out of one retry, by Metric::metric name. Those its output names (ncu names a metric it
/// does not know); when it names none and gives no reason counters_unavailable_reason knows,
/// every optional metric of the run; otherwise none (a retry would fail the same way).
std::vector<std::string> optional_to_leave_out(const std::string& ncu_output, bool access_only);

/// run_command's status for a command that outlived its time limit (it was killed).
inline constexpr int kTimedOut = -2;

/// Runs a command (no shell interpretation of the arguments); returns its exit status
/// and puts stdout and stderr together in `output`. With `timeout_s` > 0, a command still
/// running after that many seconds is killed with its children (kTimedOut).
int run_command(const std::vector<std::string>& argv, std::string& output, int timeout_s = 0);

/// The seconds one ncu run may take: $MEMHIER_NCU_TIMEOUT when it is a positive number,
/// else 300 (a family's largest ncu run takes about a minute on an H100).
int ncu_timeout_s();

/// A known reason why ncu cannot read counters on this machine (permissions, an
/// unsupported runtime), found in its output; empty when none is recognized.
std::string counters_unavailable_reason(const std::string& ncu_output);

}  // namespace memhier::profile
