// PyTorch as a reference line beside memcpy and the vendor library: its own call for each
// ladder's problem (torch.softmax, torch.sum, ...), timed by the Python module
// memhier.torch_reference in a subprocess. Host C++ only: the CLI and the build never need
// Python; without it (or without torch) the rows say why.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "memhier/results/bench_record.hpp"

namespace memhier::bench {

/// One PyTorch measurement as the module returned it.
struct TorchRecord {
  results::BenchRecord record;  ///< family, shape, variant, ms, rel_error, declined
  double p10 = 0, p90 = 0;       ///< percentiles of its repetitions, ms
  int reps = 0;
  bool compare = false;  ///< the call the ladder's rows are compared with (x torch)
};

/// What the PyTorch subprocess gave: records, or why there are none.
struct TorchRun {
  std::string error;  ///< one sentence; "" when it ran
  std::string version, device;
  std::vector<TorchRecord> records;
};

/// Parses the module's stdout (its exit status and stderr explain a failure); a malformed
/// answer becomes an error sentence, never an exception.
TorchRun parse_torch_output(const std::string& out, int exit_status, const std::string& err);

/// The one sentence a reader of the report gets for a failed run of `python` (exit status
/// `exit_status`, `error` as parse_torch_output gave it): a package Python could not import
/// (in any of Python's wordings: "ModuleNotFoundError: No module named 'x'", "Error while
/// finding module specification for ... (ModuleNotFoundError: ...)", "No module named x")
/// names the package and where to install it; an interpreter that could not start says so.
std::string explain_torch_failure(const std::string& python, const std::string& error,
                                  int exit_status);

/// Runs `PYTHON -c <python/memhier/torch_reference.py> --json --case FAMILY SHAPE ...` once for
/// every (family, shape), PYTHON being `python` or else $MEMHIER_PYTHON or python3 (a caller
/// inside Python names its own interpreter); gives up after `timeout_s`. The script is built
/// into the binary, so only torch need be importable there, not memhier's package.
TorchRun run_torch_reference(const std::vector<std::pair<std::string, std::string>>& cases,
                             bool quick, int timeout_s, const std::string& python = "");

/// Adds PyTorch's rows to one family's records, after each shape's vendor row (reference
/// "pytorch", rung 0; declined with the reason when torch did not run), and sets every
/// record's x_torch. Its ratios are of medians from two processes, not paired.
void add_torch_rows(const TorchRun& run, std::vector<results::BenchRecord>* records);

}  // namespace memhier::bench
