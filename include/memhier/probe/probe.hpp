// Probes: measurements of the card's memory hierarchy. Each family lives in one
// file of src/probe, returns tables and charts (never prints), and carries the seed
// claim it tests.
#pragma once

#include <vector>

#include "memhier/registry/probe_run.hpp"
#include "memhier/registry/registry.hpp"
#include "memhier/report/document.hpp"

namespace memhier::probe {

/// Registers every built-in probe into the registry (once; later calls do nothing).
void register_probes();

/// Every probe's tier figures merged per tier, in the hierarchy's order (registers, shared,
/// L1, L2, HBM, constant, local, host, peer, then any other): the first latency and size given, and
/// the largest bandwidth any method measured with that method's name, so a tier's row is
/// the best this project reaches on it rather than one kernel's figure.
std::vector<TierFigure> merge_tiers(const std::vector<TierFigure>& figures);

/// The "memory spaces" table measured on this card, from the merged tier figures.
report::Section summary_section(const std::vector<TierFigure>& merged, const Context& ctx);

}  // namespace memhier::probe
