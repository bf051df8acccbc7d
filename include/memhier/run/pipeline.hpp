// The run pipeline behind `memhier report`: measure (probes, ladders, the sweep of shapes,
// profiles) -> sections -> claims -> document -> writers. Every item runs under a guard
// (bench/guard.hpp), so a failure costs its own row or section only, and every file is
// written whole (report/files.hpp), results.json after each section. Beside it, the probe and
// bench runs with their JSON records. The CLI and the Python bindings call these in-process, so
// both return the same records.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "memhier/bench/probes.hpp"
#include "memhier/core/device.hpp"
#include "memhier/registry/registry.hpp"
#include "memhier/report/document.hpp"

namespace memhier::run {

/// A measurement on a machine without a usable GPU (none, or one that refuses a context:
/// exclusive-process mode held by another process, prohibited compute mode): one sentence.
/// The CLI exits 3; Python raises NoDeviceError.
struct DeviceUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Where and how a document was made: `command` as the caller names it (the command line,
/// or the Python call), the date, host, toolkit and commit; with `with_device`, the driver
/// and the GPU too.
report::Meta make_meta(const std::string& command, bool with_device);

/// The GPU, its context created when `open`; throws DeviceUnavailable (one sentence).
core::DeviceInfo require_device(bool open = true);

/// The families named ("all" or one registered name); std::invalid_argument for another.
std::vector<const registry::Family*> select_families(const std::string& name);

struct ProbeOptions {
  bool quick = false;
  std::vector<std::string> only;  ///< probe names or families; empty = all
  report::Meta meta;
  std::function<void(const std::string&)> progress = [](const std::string&) {};
};

struct ProbeResult {
  report::Document doc;  ///< the memory-spaces summary, then one section per probe
  bench::ProbeRun run;
  bool quick = false;
  std::string record_not_saved;  ///< why a run of every probe left no card record; "" if saved
};

/// `memhier probe`: checks the names (std::invalid_argument, before any device), then
/// DeviceUnavailable without a GPU, runs the probes and, when every probe ran, saves this
/// card's record for the models (simulate --card this).
ProbeResult run_probe(const ProbeOptions& options);

/// The record `memhier probe --json` prints: the document with the SM clock, the seconds and
/// the mode.
nlohmann::json probe_json(const ProbeResult& result);

struct BenchOptions {
  std::string family;  ///< a registered family or "all"
  std::vector<std::string> variants;
  std::vector<std::string> shapes;
  bool quick = false;
  bool torch = false;        ///< PyTorch's rows (a child process; torch_reference.hpp)
  std::string torch_python;  ///< its interpreter; "" for $MEMHIER_PYTHON or python3
  /// `best` against the vendor at the family's sweep shapes (Family::sweep_shapes) instead
  /// of the ladder; not with variants or shapes.
  bool sweep = false;
  /// The program that measures the rest after a fault loses the GPU to this process, as
  /// Options::isolate_with; "" for none.
  std::string isolate_with;
  report::Meta meta;
  std::function<void(const std::string&)> progress = [](const std::string&) {};
  /// A sentence said once, apart from the progress: the work moved to a child process.
  std::function<void(const std::string&)> say = [](const std::string&) {};
};

/// `memhier bench`: every bad name, variant and shape is a std::invalid_argument before any
/// device is touched; then DeviceUnavailable without a GPU; then the ladders, one section per
/// family (its JSON is report::to_json of it), each family under its guard; after a fault that
/// loses the GPU, the rest in child processes as the report's (isolate_with).
report::Document run_bench(const BenchOptions& options);

struct TuneOptions {
  std::string family;               ///< a registered family whose `best` is tuned
  std::vector<std::string> shapes;  ///< one or more of its shapes ("4096x4096x4096")
  bool retune = false;              ///< time again where the cache knows the shape
  report::Meta meta;
  std::function<void(const std::string&)> progress = [](const std::string&) {};
};

/// `memhier tune`: `best`'s configuration at each shape decided now (or read from the tuning
/// cache) and kept in the cache, one section with what each decision cost. A bad family or
/// shape is a std::invalid_argument before any device is touched; then DeviceUnavailable.
report::Document run_tune(const TuneOptions& options);

/// The part of the report a progress step belongs to (the CLI shows one line per stage).
enum class Stage { probes, ladders, sweep, profiles };

struct Options {
  std::string out;  ///< folder for index.html, report.md, results.json; "" writes none
  bool quick = false;
  bool no_gpu = false;       ///< the models alone, even with a GPU
  bool no_profile = false;   ///< no Nsight Compute runs
  /// No sweep after the ladders (best against the vendor at each family's sweep shapes,
  /// Family::sweep_shapes; with `quick`, three of them). `memhier bench` sets it.
  bool no_sweep = false;
  bool no_torch = false;     ///< no PyTorch rows (python -m memhier.torch_reference, a child)
  std::string torch_python;  ///< its interpreter; "" for $MEMHIER_PYTHON or python3
  /// The program Nsight Compute profiles; "" for memhier-profile-target beside the running
  /// executable (a caller that is not the memhier command names it).
  std::string profile_target;
  /// The program that measures the rest when a kernel fault leaves the GPU lost to this
  /// process (a broken context the driver will not replace): it is run as `PROGRAM report
  /// --continue SPEC` (continue_report) and its measurements join this report. "" for none:
  /// the items after the fault then say the GPU was lost. The memhier command names itself
  /// (self_executable); a caller that is not the memhier command may name it.
  std::string isolate_with;
  bool full = false;  ///< every table open in index.html and report.md (report::Edition)
  /// A recorded results.json (or results.json.gz) rendered instead of measuring: no GPU
  /// touched; the document is the record's, its meta the run that made it.
  std::string from;
  report::Meta meta;  ///< where and how the report was made (the caller knows)
  std::function<void(Stage, const std::string&)> progress = [](Stage, const std::string&) {};
  /// A sentence said once, apart from the progress: the work moved to a child process.
  std::function<void(const std::string&)> say = [](const std::string&) {};
};

/// The document a results.json (gzip'd or not) holds. Throws std::invalid_argument (one
/// sentence) when the file cannot be read or is not a memhier report.
report::Document read_results(const std::string& path);

/// Runs everything registered and returns the report (or, with `from`, the recorded one). With `out`, creates the folder,
/// rewrites results.json after each measured section (with "partial": true until the end)
/// and writes the three files at the end, each whole or not at all. Throws
/// DeviceUnavailable, std::invalid_argument when the folder cannot be created, or
/// std::runtime_error when a file cannot be written. Without a GPU (and without no_gpu) it
/// still makes the models' report, and sets `*no_gpu` (when given) to why there was none, in
/// one sentence: the command then exits 3, as every measuring command does.
report::Document run_report(const Options& options, std::string* no_gpu = nullptr);

/// The running executable's path (/proc/self/exe): the memhier command as Options::isolate_with.
/// std::runtime_error when it cannot be read.
std::string self_executable();

/// The child's side of Options::isolate_with (internal; `memhier report --continue SPEC`):
/// SPEC is the JSON the parent wrote (where to resume, the run's options, the file to write),
/// the measurements from there on go to that file as JSON (bench/continuation.hpp), stopping
/// where the GPU is lost to this process too. std::invalid_argument for a SPEC that is not one,
/// DeviceUnavailable without a usable GPU. `progress` as Options::progress.
void continue_report(const std::string& spec,
                     const std::function<void(Stage, const std::string&)>& progress = {});

}  // namespace memhier::run
