// The claims Nsight Compute's counters decide (DRAM throughput, L2-bound traffic, warp-stall
// shares), judged from the counters `memhier profile` collected for a family's variants,
// with the memory-system model's prediction beside the measured figure where it has one.
// No CUDA: the profile section passes plain numbers.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "memhier/claims/catalogue.hpp"

namespace memhier::claims {

/// A profiled family's counters: variant -> ncu key (profile::Metric::key) -> value summed
/// over the variant's kernels (rates and shares as ncu gave them for its one kernel).
using ProfiledCounters = std::map<std::string, std::map<std::string, double>>;

/// The checks the counters of `family` at `shape` give (the claims table "profile-<family>");
/// empty for a family none of these claims is about.
std::vector<Check> profile_checks(const std::string& family, const std::string& shape,
                                  const ProfiledCounters& counters);

/// Warp cycles stalled on memory (short scoreboard, MIO throttle, long scoreboard) of one
/// variant's counters: the shares of active warp cycles times those cycles; NaN without them.
double memory_stall_cycles(const std::map<std::string, double>& counters);

}  // namespace memhier::claims
