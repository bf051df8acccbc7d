// Each subcommand registers its options and sets `rc` when it runs.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "memhier/bench/probes.hpp"

namespace memhier::cli {

void add_analyze(CLI::App& app, int& rc);
void add_occupancy(CLI::App& app, int& rc);
void add_info(CLI::App& app, int& rc);
void add_list(CLI::App& app, int& rc);
void add_probe(CLI::App& app, int& rc);

/// The GPU, or throws NoDevice (exit 3) with one sentence.
core::DeviceInfo require_device();

/// Runs the probes with a progress line on stderr; bad --only names throw UsageError.
bench::ProbeRun measure_probes(const core::DeviceInfo& dev, bool quick,
                               const std::vector<std::string>& only);
/// Returns the report subcommand, which also runs when no subcommand is given.
CLI::App* add_report(CLI::App& app, int& rc);

}  // namespace memhier::cli
