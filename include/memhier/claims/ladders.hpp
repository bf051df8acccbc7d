// Claims the kernel ladders test: verdicts computed from the bench records of one run
// (never from figures typed in), and the GEMM table of Shared Memory and Bank Conflicts beside this
// card's.
#pragma once

#include <string>
#include <vector>

#include "memhier/claims/ladder_claims.hpp"
#include "memhier/report/document.hpp"
#include "memhier/report/roofline.hpp"

namespace memhier::claims {

// Only the results layer's types: the kernels' tables include this header to name their
// hooks, and a new claim (claim_ids.inc) must not recompile them.
using results::Check;
using results::ClaimId;
using results::Judgement;
using results::Verdict;

/// The range a measurement must fall in to reproduce a claim.
struct Band {
  double lo = 0, hi = 0;  ///< inclusive; hi may be infinity ("30%+")
};

/// The band the catalogue states for claim `id` (claims::band) applied to a claimed range
/// [lo, hi] (lo == hi for "about x"; hi infinite for "x or more"): ratios and fractions
/// ±25 % by default, a gain under 2x within a factor 2 on the gain (1.25x -> 1.125..1.5x).
Band tolerance_band(ClaimId id, double lo, double hi);

/// Judges a measured ratio (or a fraction, judged and shown in percent) against a band with
/// the one judge: inside the band (at least its low end when hi is infinite) reproduces.
Judgement judge_band(double measured, Band band, bool percent);

/// The checks of the claims each ladder tests, one per claim, from that family's records;
/// a check whose records are absent (another shape, --quick, a variant that did not run
/// or verify) says "not measurable here" and why. A family names its own in its table
/// (registry::Family::claims); these are the ones the built-in ladders name.
std::vector<Check> gemm_checks(const std::vector<results::BenchRecord>& records);
/// The transpose ladder's checks (GPU Memory Hierarchy's table and the padding and swizzle claims).
std::vector<Check> transpose_checks(const std::vector<results::BenchRecord>& records);
/// The softmax ladder's checks (GPU Memory Hierarchy's ladder of times).
std::vector<Check> softmax_checks(const std::vector<results::BenchRecord>& records);
/// The elementwise ladder's checks (float4 against scalar on the largest axpy shape).
std::vector<Check> elementwise_checks(const std::vector<results::BenchRecord>& records);
/// The reduction ladder's checks (cp.async staging against the single pass it builds on, on
/// the largest shape).
std::vector<Check> reduction_checks(const std::vector<results::BenchRecord>& records);
/// The attention ladder's checks (cp.async K/V staging against the same mma.sync kernel
/// without it, at head_dim 128).
std::vector<Check> attention_checks(const std::vector<results::BenchRecord>& records);

/// The GEMM ladder's checks from `memhier profile`'s counters at `shape` (its hook
/// LadderClaims::profile): at a large shape the naive rung's DRAM throughput and the
/// tiles' traffic cut, else the stalls padding removes from the 32x32 tile.
std::vector<Check> gemm_profile_checks(const std::string& shape,
                                       const results::ProfiledCounters& counters);
/// The transpose ladder's check from its profile: the stalls padding removes from the tile.
std::vector<Check> transpose_profile_checks(const std::string& shape,
                                            const results::ProfiledCounters& counters);

/// Shared Memory and Bank Conflicts' GEMM table (naive, tiled, register-tiled, cp.async, cuBLAS on
/// an A100 at 4096^3) beside this run's rungs for each row, with the rows' verdicts.
report::Table gemm_seed_table(const std::vector<results::BenchRecord>& records);

/// gemm_seed_table as the list a family's claims hook returns.
std::vector<report::Table> gemm_seed_tables(const std::vector<results::BenchRecord>& records);

/// What a family's section adds after its ladder: the tables of its claims hook (GEMM: the
/// source's table), then its checks (claims::add_checks: Section::checks and the
/// "bench-<family>-claims" table); nothing for a family whose table names no claims.
void add_ladder_claims(report::Section& section, const std::string& family,
                       const LadderClaims& claims,
                       const std::vector<results::BenchRecord>& records);

/// The claims the roofline answers (the tensor-core ridge point), from one run's roofline.
std::vector<Check> roofline_checks(const report::Roofline& r);

}  // namespace memhier::claims
