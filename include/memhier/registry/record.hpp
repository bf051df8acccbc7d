// The registry's names for what a family's table and the bench read and write of a ladder:
// the bench record and a profile's counters (plain data, results/bench_record.hpp) and the
// family's claims hooks (claims/ladder_claims.hpp), both from floors under the registry.
#pragma once

#include "memhier/claims/ladder_claims.hpp"
#include "memhier/results/bench_record.hpp"

namespace memhier::registry {

using claims::LadderClaims;
using results::BenchRecord;
using results::Bound;
using results::ProfiledCounters;
using results::Spread;
using results::TuneRecord;

}  // namespace memhier::registry
