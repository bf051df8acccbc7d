// `memhier simulate`: each modeled kernel's address stream (Variant::stream) replayed
// through the memory-system model of a card, on the CPU. The same replay gives the
// simulated column of `memhier profile`'s "simulated against measured" table.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "memhier/model/card.hpp"
#include "memhier/model/replay.hpp"
#include "memhier/report/document.hpp"

namespace memhier::bench {

/// One kernel replayed at one shape on one card.
struct SimulateItem {
  std::string family, variant, shape;
  bool modeled = false;  ///< the variant has a stream model
  bool runs = false;     ///< it launches a kernel of ours at this shape (some decline)
  model::SimResult result;
  double cpu_seconds = 0;  ///< how long the replay took
};

/// The families with at least one streamed variant, in registry order.
std::vector<std::string> simulate_targets();

/// Replays one variant of `family` at `shape` on `card` (variant must exist), with the
/// kernel's instruction fetch unless `fetch_code` is false (the accesses alone).
/// Throws std::invalid_argument for a bad shape.
SimulateItem simulate_one(const std::string& family, const std::string& variant,
                          const std::string& shape, const model::Card& card,
                          bool fetch_code = true);

/// Calls replay(i) for every i below n on one worker per core, each taking the next index in
/// turn: replays are independent, each one's figures the same whatever runs beside it. Once
/// all have ended, rethrows the first failure in index order.
void replay_each(std::size_t n, const std::function<void(std::size_t)>& replay);

/// Replays `target` (a family or "all"): the named variants (all when empty) at `shape`
/// (the comparison shapes when empty). Throws std::invalid_argument with one sentence for
/// an unknown family or variant, a malformed shape, or --variant/--size with "all".
std::vector<SimulateItem> simulate(const std::string& target,
                                   const std::vector<std::string>& variants,
                                   const std::string& shape, const model::Card& card);

/// The report section: per kernel, hit rates, sectors, DRAM bytes and the time bound.
report::Section simulate_section(const std::vector<SimulateItem>& items, const model::Card& card);

}  // namespace memhier::bench
