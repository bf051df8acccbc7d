// Claims judged from profiler counters (see profile_claims.hpp).
#include "memhier/claims/profile_claims.hpp"

#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/judge.hpp"
#include "memhier/claims/ladders.hpp"
#include "rungs.hpp"

namespace memhier::claims {
namespace {

double get(const ProfiledCounters& c, const std::string& variant, const std::string& key) {
  const auto v = c.find(variant);
  if (v == c.end()) return NAN;
  const auto k = v->second.find(key);
  return k == v->second.end() ? NAN : k->second;
}

// "padding eliminates 67% of the memory stalls": the stall cycles padding removes from the
// unpadded tile `plain`, as a percentage of the unpadded tile's.
Check stall_check(const ProfiledCounters& c, const std::string& plain, const std::string& padded) {
  const auto p = c.find(plain), q = c.find(padded);
  const double before = p == c.end() ? NAN : memory_stall_cycles(p->second);
  const double after = q == c.end() ? NAN : memory_stall_cycles(q->second);
  const double removed = 100.0 * (1.0 - after / before);
  const Judgement j = judge(removed, Claimed::value(67, "%"), band(ClaimId::padding_stalls_67pct),
                            "the profile has no stall counters for " + plain + " and " + padded);
  return {ClaimId::padding_stalls_67pct,
          std::isfinite(removed)
              ? report::strf("%s -> %s: memory stall cycles %.3g -> %.3g (%.0f%% removed)",
                             plain.c_str(), padded.c_str(), before, after, removed)
              : "n/a",
          j};
}

// The GEMM claims speak of large problems: every extent at least 4096 (operands far
// beyond the L2, K spanning many tiles of 64).
bool large_gemm(const std::string& shape) {
  int m = 0, n = 0, k = 0;
  return std::sscanf(shape.c_str(), "%dx%dx%d", &m, &n, &k) == 3 && m >= 4096 && n >= 4096 &&
         k >= 4096;
}

// The naive rung's DRAM throughput.
Check bandwidth_check(const ProfiledCounters& c, const std::string& shape) {
  const double pct = get(c, rung(gemm::Variant::naive), "dram_pct");
  const Judgement j =
      judge(pct, Claimed::value(8.3, "% of peak"), band(ClaimId::gemm_8pct_bandwidth),
            "the profile has no DRAM throughput for naive");
  return {ClaimId::gemm_8pct_bandwidth,
          std::isfinite(pct) ? report::strf("naive at %s: DRAM %.1f%% of peak", shape.c_str(), pct)
                             : "n/a",
          j};
}

// A T x T tile against the naive rung: the sectors that leave the SMs for L2 (L1 misses of
// every load, lts__t_sectors_srcunit_tex), naive over tiled, for T = 16, 32, 64.
Check traffic_check(const ProfiledCounters& c) {
  const double naive = get(c, rung(gemm::Variant::naive), "l2_sm_sectors");
  std::vector<Figure> figures;
  std::string measured;
  const std::pair<int, gemm::Variant> tiles[] = {{16, gemm::Variant::smem_tile16},
                                                 {32, gemm::Variant::smem_tile32},
                                                 {64, gemm::Variant::smem_tile64}};
  for (const auto& [t, v] : tiles) {
    const double cut = naive / get(c, rung(v), "l2_sm_sectors");
    figures.push_back({"T=" + std::to_string(t), cut, Claimed::value(t, "x less traffic"),
                       Tolerance::within_factor(2)});
    if (std::isfinite(cut))
      measured += (measured.empty() ? "" : ", ") + report::strf("T=%d: %.1fx", t, cut);
  }
  const Judgement j = judge_all(figures, "the profile has no L2 sector counts for these rungs");
  return {ClaimId::tile_traffic_reduction,
          measured.empty() ? "n/a" : "L1->L2 sectors, naive over tiled: " + measured, j};
}

// Bus utilization of three warp loads from the global-stride set: bytes the lanes asked
// for over the 32-byte sectors the card fetched per request (Nsight Compute's counts).
Check utilization_check(const ProfiledCounters& c) {
  const auto util = [&c](const std::string& item, double bytes) {
    return 100.0 * bytes /
           (32.0 * get(c, item, "global_ld_sectors") / get(c, item, "global_ld_requests"));
  };
  const std::string misaligned = "ld 4B stride 1 misaligned by 4 B";
  const std::string broadcast = "ld 4B broadcast";
  const std::string scattered = "ld 4B scattered words in 1 MiB";
  // N: the distinct segments the scattered addresses touch, as the model counts them.
  const double n = get(c, scattered, "predicted_global_ld_sectors") /
                   get(c, scattered, "predicted_global_ld_requests");
  const std::vector<Figure> figures = {
      {"misaligned words", util(misaligned, 128), Claimed::range(80, 100, "%"),
       Tolerance::inside_range()},
      {"one word for all lanes", util(broadcast, 4), Claimed::value(12.5, "%"),
       Tolerance::inside_range()},
      {"scattered words (N = " + report::strf("%.0f", n) + ")", util(scattered, 128),
       Claimed::value(100.0 * 128 / (n * 32), "%"), Tolerance::inside_range()}};
  std::string measured;
  for (const Figure& f : figures)
    if (std::isfinite(f.measured))
      measured +=
          (measured.empty() ? "" : ", ") + report::strf("%s %.1f%%", f.label.c_str(), f.measured);
  return {ClaimId::coalescing_scenarios_utilization,
          measured.empty() ? "n/a"
                           : "useful bytes over fetched sectors: " + measured +
                                 " (the 128-byte-line figures: not judged, L1 fetches sectors)",
          judge_all(figures, "the profile has no sector counts for the global-stride loads")};
}

}  // namespace

double memory_stall_cycles(const std::map<std::string, double>& c) {
  auto at = [&c](const char* k) {
    const auto it = c.find(k);
    return it == c.end() ? NAN : it->second;
  };
  const double share = at("stall_short_scoreboard_pct") + at("stall_mio_throttle_pct") +
                       at("stall_long_scoreboard_pct");
  return share / 100.0 * at("warps_active");
}

std::vector<Check> gemm_profile_checks(const std::string& shape, const ProfiledCounters& counters) {
  // The traffic claims speak of large GEMMs only: at a small shape they are left to the
  // large profile (the report's 4096^3 one) instead of adding a "not measurable" row.
  if (large_gemm(shape)) return {bandwidth_check(counters, shape), traffic_check(counters)};
  return {stall_check(counters, rung(gemm::Variant::smem_tile32), rung(gemm::Variant::padded))};
}

std::vector<Check> transpose_profile_checks(const std::string& /*shape*/,
                                            const ProfiledCounters& counters) {
  return {stall_check(counters, rung(transpose::Variant::tile), rung(transpose::Variant::padded))};
}

std::vector<Check> pattern_set_profile_checks(const std::string& set,
                                              const ProfiledCounters& counters) {
  // Pattern sets have no table to name a hook in; this is the one a claim is about.
  if (set == "global-stride") return {utilization_check(counters)};
  return {};
}

}  // namespace memhier::claims
