// Each subcommand registers its options and sets `rc` when it runs.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

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
void add_explain(CLI::App& app, int& rc);
void add_tune(CLI::App& app, int& rc);

/// Returns the report subcommand, which also runs when no subcommand is given.
CLI::App* add_report(CLI::App& app, int& rc);

}  // namespace memhier::cli
