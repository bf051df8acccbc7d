// The run pipeline behind `memhier report`: measure (probes, ladders, profiles) -> sections
// -> claims -> document -> writers. Every item runs under a guard (bench/guard.hpp), so a
// failure costs its own row or section only, and every file is written whole
// (report/files.hpp), results.json after each section. The CLI and the bindings call it.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

#include "memhier/report/document.hpp"

namespace memhier::run {

/// The part of the run a progress step belongs to (the CLI shows one line per stage).
enum class Stage { probes, ladders, profiles };

struct Options {
  std::string out;  ///< folder for index.html, report.md, results.json; "" writes none
  bool quick = false;
  bool no_gpu = false;      ///< the models alone, even with a GPU
  bool no_profile = false;  ///< no Nsight Compute runs
  bool no_torch = false;    ///< no PyTorch rows
  report::Meta meta;        ///< where and how the report was made (the caller knows)
  std::function<void(Stage, const std::string&)> progress = [](Stage, const std::string&) {};
};

/// A GPU that is there but refuses a context (exclusive-process mode held by another
/// process, prohibited compute mode): one sentence; the CLI exits 3.
struct DeviceUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Runs everything registered and returns the report. With `out`, creates the folder,
/// rewrites results.json after each measured section (with "partial": true until the end)
/// and writes the three files at the end, each whole or not at all. Throws
/// DeviceUnavailable, std::invalid_argument when the folder cannot be created, or
/// std::runtime_error when a file cannot be written.
report::Document run_report(const Options& options);

}  // namespace memhier::run
