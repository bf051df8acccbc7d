// The claims Nsight Compute's counters decide (DRAM throughput, L2-bound traffic, warp-stall
// shares), judged from the counters `memhier profile` collected for a family's variants,
// with the memory-system model's prediction beside the measured figure where it has one.
// No CUDA: the profile section passes plain numbers.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "memhier/claims/catalogue.hpp"
#include "memhier/results/bench_record.hpp"

namespace memhier::claims {

/// A profiled family's counters: variant -> ncu key -> value (results::ProfiledCounters).
using results::ProfiledCounters;

/// The ladders' profile checks (gemm_profile_checks, ...) are their tables' hooks, declared
/// in ladders.hpp (LadderClaims::profile).

/// The checks the counters of pattern set `set` give (the claims table "profile-<set>");
/// empty for a set none of these claims is about.
std::vector<Check> pattern_set_profile_checks(const std::string& set,
                                              const ProfiledCounters& counters);

/// Warp cycles stalled on memory (short scoreboard, MIO throttle, long scoreboard) of one
/// variant's counters: the shares of active warp cycles times those cycles; NaN without them.
double memory_stall_cycles(const std::map<std::string, double>& counters);

}  // namespace memhier::claims
