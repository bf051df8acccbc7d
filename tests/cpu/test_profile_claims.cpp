// The claims profiler counters decide: verdicts from synthetic counters, and each profile
// checker's claims match the catalogue's checked_by both ways.
#include <gtest/gtest.h>

#include <algorithm>

#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/ladders.hpp"
#include "memhier/claims/profile_claims.hpp"

using namespace memhier::claims;

namespace {

std::map<std::string, double> stalls(double short_sb, double mio, double long_sb, double warps) {
  return {{"stall_short_scoreboard_pct", short_sb},
          {"stall_mio_throttle_pct", mio},
          {"stall_long_scoreboard_pct", long_sb},
          {"warps_active", warps}};
}

Check by_id(const std::vector<Check>& checks, ClaimId id) {
  for (const Check& c : checks)
    if (c.id == id) return c;
  throw std::runtime_error("no check " + std::string(name(id)));
}

}  // namespace

TEST(ProfileClaims, StallCyclesAreSharesOfActiveWarpCycles) {
  EXPECT_DOUBLE_EQ(memory_stall_cycles(stalls(10, 20, 30, 1000)), 600);
  EXPECT_TRUE(std::isnan(memory_stall_cycles({{"warps_active", 5}})));
}

TEST(ProfileClaims, PaddingStallsFromTheTransposePair) {
  ProfiledCounters c;
  c["tile"] = stalls(10, 50, 0, 1000);    // 600 stall cycles
  c["padded"] = stalls(10, 10, 0, 1000);  // 200: 67% removed
  const auto checks = transpose_profile_checks("1000x772", c);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].verdict, Verdict::reproduced) << checks[0].detail;
  c["padded"] = stalls(10, 50, 0, 1000);  // nothing removed
  EXPECT_EQ(transpose_profile_checks("1000x772", c)[0].verdict, Verdict::refuted);
  c.erase("padded");
  EXPECT_EQ(transpose_profile_checks("1000x772", c)[0].verdict, Verdict::not_measurable);
}

TEST(ProfileClaims, GemmBandwidthNeedsABigShape) {
  ProfiledCounters c;
  c["naive"]["dram_pct"] = 9.0;
  EXPECT_EQ(by_id(gemm_profile_checks("4096x4096x4096", c), ClaimId::gemm_8pct_bandwidth).verdict,
            Verdict::reproduced);
  // A small GEMM leaves the claim to the large profile: no row at all, not "not measurable".
  EXPECT_THROW(by_id(gemm_profile_checks("257x255x129", c), ClaimId::gemm_8pct_bandwidth),
               std::runtime_error);
  EXPECT_THROW(by_id(gemm_profile_checks("2048x2048x2048", c), ClaimId::gemm_8pct_bandwidth),
               std::runtime_error);
  EXPECT_NO_THROW(by_id(gemm_profile_checks("257x255x129", c), ClaimId::padding_stalls_67pct));
  c["naive"]["dram_pct"] = 60.0;
  EXPECT_EQ(by_id(gemm_profile_checks("4096x4096x4096", c), ClaimId::gemm_8pct_bandwidth).verdict,
            Verdict::refuted);
}

TEST(ProfileClaims, TileTrafficIsNaiveOverTiledL2Sectors) {
  ProfiledCounters c;
  c["naive"]["l2_sm_sectors"] = 6400;
  c["smem_tile16"]["l2_sm_sectors"] = 400;  // 16x
  c["smem_tile32"]["l2_sm_sectors"] = 200;  // 32x
  c["smem_tile64"]["l2_sm_sectors"] = 100;  // 64x
  const std::vector<Check> checks = gemm_profile_checks("4096x4096x4096", c);
  const Check& t = by_id(checks, ClaimId::tile_traffic_reduction);
  EXPECT_EQ(t.verdict, Verdict::reproduced) << t.detail << " / " << t.measured;
  EXPECT_THROW(by_id(gemm_profile_checks("257x255x129", c), ClaimId::tile_traffic_reduction),
               std::runtime_error);
  c["smem_tile64"]["l2_sm_sectors"] = 1600;  // 4x: outside a factor 2 of 64x
  EXPECT_EQ(

      by_id(gemm_profile_checks("4096x4096x4096", c), ClaimId::tile_traffic_reduction).verdict,
      Verdict::refuted);
}

TEST(ProfileClaims, BusUtilizationFromSectorsPerRequest) {
  ProfiledCounters c;
  const auto load = [&c](const std::string& item, double sectors, double predicted) {
    c[item]["global_ld_requests"] = 10;
    c[item]["global_ld_sectors"] = 10 * sectors;
    c[item]["predicted_global_ld_requests"] = 1;
    c[item]["predicted_global_ld_sectors"] = predicted;
  };
  load("ld 4B stride 1 misaligned by 4 B", 5, 5);  // 128 / 160 = 80 %
  load("ld 4B broadcast", 1, 1);                   // 4 / 32 = 12.5 %
  load("ld 4B scattered words in 1 MiB", 31, 31);  // 128 / (31 x 32)
  const Check ok = by_id(pattern_set_profile_checks("global-stride", c),
                         ClaimId::coalescing_scenarios_utilization);
  EXPECT_EQ(ok.verdict, Verdict::reproduced) << ok.detail << " / " << ok.measured;
  load("ld 4B broadcast", 2, 1);  // the card fetched two sectors for one word
  const Check bad = by_id(pattern_set_profile_checks("global-stride", c),
                          ClaimId::coalescing_scenarios_utilization);
  EXPECT_EQ(bad.verdict, Verdict::refuted) << bad.detail;
  EXPECT_EQ(by_id(pattern_set_profile_checks("global-stride", {}),
                  ClaimId::coalescing_scenarios_utilization)
                .verdict,
            Verdict::not_measurable);
}

// The ladders' profile hooks are checked against the catalogue through the registry
// (tests/registry/test_registry.cpp); the pattern sets here.
TEST(ProfileClaims, PatternSetCheckersMatchTheCatalogue) {
  for (const char* set : {"global-stride", "shared-stride"}) {
    const Checker by = Checker::profile(set);
    std::set<ClaimId> ids;
    for (const Check& ch : pattern_set_profile_checks(set, {})) {
      ids.insert(ch.id);
      const Claim& c = claim(ch.id);
      EXPECT_TRUE(std::count(c.checked_by.begin(), c.checked_by.end(), by))
          << name(ch.id) << " is checked by profile " << set << "; say so";
    }
    for (const Claim& c : catalogue())
      if (std::count(c.checked_by.begin(), c.checked_by.end(), by)) {
        EXPECT_TRUE(ids.count(c.id)) << name(c.id) << " claims profile-" << set << " checks it";
      }
  }
}

TEST(ProfileClaims, CheckerReadsAsProfile) {
  EXPECT_EQ(Checker::profile("gemm").describe(), "profile gemm");
  EXPECT_EQ(Checker::profile("gemm").owner(), "profile-gemm");
  EXPECT_EQ(Checker::bench("gemm").describe(), "bench gemm");
  EXPECT_EQ(Checker::probe("latency").describe(), "probe latency");
  EXPECT_EQ(Checker::probe("latency").owner(), "latency");
}
