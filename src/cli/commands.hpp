// Each subcommand registers its options and sets `rc` when it runs.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "memhier/bench/kernel_bench.hpp"
#include "memhier/bench/probes.hpp"

namespace memhier::cli {

void add_analyze(CLI::App& app, int& rc);
void add_occupancy(CLI::App& app, int& rc);
void add_info(CLI::App& app, int& rc);
void add_list(CLI::App& app, int& rc);
void add_claims(CLI::App& app, int& rc);
void add_probe(CLI::App& app, int& rc);
void add_bench(CLI::App& app, int& rc);
void add_profile(CLI::App& app, int& rc);
void add_simulate(CLI::App& app, int& rc);

/// The families named ("all" or one); throws UsageError for an unknown name.
std::vector<const registry::Family*> select_families(const std::string& name);

/// Runs the ladders with a progress line; bad variants or shapes throw UsageError.
/// `records`, when given, receives every family's bench records as well.
std::vector<report::Section> measure_ladders(const std::vector<const registry::Family*>& fams,
                                             const bench::BenchOptions& opt,
                                             std::vector<registry::BenchRecord>* records = nullptr);

/// The GPU, its context created when `open`, or throws NoDevice (exit 3) with one sentence
/// (no device, or one that is busy or prohibited).
core::DeviceInfo require_device(bool open = true);

/// Runs the probes with a progress line on stderr; bad --only names throw UsageError.
bench::ProbeRun measure_probes(const core::DeviceInfo& dev, bool quick,
                               const std::vector<std::string>& only);
/// Returns the report subcommand, which also runs when no subcommand is given.
CLI::App* add_report(CLI::App& app, int& rc);

}  // namespace memhier::cli
