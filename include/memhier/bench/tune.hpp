// `memhier tune`: a family's tuned `best` decided ahead of time at the user's shapes, filling
// the tuning cache, with what each decision cost.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "memhier/registry/registry.hpp"
#include "memhier/report/document.hpp"

namespace memhier::bench {

/// Whether `family`'s `best` is tuned per shape (it has a tune hook).
bool tunable(const registry::Family& family);

/// Throws std::invalid_argument (one sentence) for a family that is not tuned, no shape, or
/// a shape the family cannot parse; touches no GPU.
void check_tune(const registry::Family& family, const std::vector<std::string>& shapes);

/// `best`'s decision at each of `shapes` on the current device (registry::Family::tune), in
/// order; `retune` times the candidates even where the cache knows the shape. check_tune
/// first.
std::vector<registry::TuneRecord> tune_family(
    const registry::Family& family, const std::vector<std::string>& shapes, bool retune,
    const std::function<void(const std::string&)>& progress = [](const std::string&) {});

/// The decisions as a section: per shape the configuration and where it came from, the
/// candidates timed and the wall time of the decision.
report::Section tune_section(const registry::Family& family,
                             const std::vector<registry::TuneRecord>& records);

}  // namespace memhier::bench
