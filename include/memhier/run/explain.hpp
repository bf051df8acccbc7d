// `memhier explain` as the CLI and the Python package run it: the ceilings of this card (its
// record, measured now when it has none, or the card table's datasheet entry), the user's
// program under Nsight Compute, each kernel diagnosed, one document and one JSON record.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "memhier/bench/explain.hpp"
#include "memhier/report/document.hpp"

namespace memhier::run {

struct ExplainOptions {
  bench::ExplainOptions explain;
  report::Meta meta;
  /// A report's results.json (or .json.gz) whose ladders give the rungs' gains; "" takes
  /// $MEMHIER_RESULTS_DIR/<card>/ or the source tree's docs/results/<card>/.
  std::string record;
  /// Without a saved card record, measure DRAM and L2 bandwidth and DRAM latency now (quick
  /// probes); false: the card table's figures, marked as datasheet ones.
  bool measure = true;
  std::function<void(const std::string&)> progress = [](const std::string&) {};
};

struct ExplainResult {
  report::Document doc;
  nlohmann::json json;  ///< schema "memhier.explain": meta, ceilings, kernels with findings
};

/// Checks the options (std::invalid_argument, before anything runs), then DeviceUnavailable
/// without ncu, readable counters or a GPU (one sentence), then runs and diagnoses; throws
/// std::runtime_error when ncu fails or profiles no kernel.
ExplainResult run_explain(const ExplainOptions& options);

}  // namespace memhier::run
