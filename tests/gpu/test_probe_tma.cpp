// GPU tests of the "tma" probe and of the rungs that use TMA: every copy method's sampled
// words verified, figures positive and under physical ceilings (wide margins, no timing
// assertions), the edge and swizzle checks exact, the rungs running (not declining) where
// TMA can describe the shape and declining with a reason where it cannot. Skipped without a
// GPU; below compute capability 9.0 they check that everything declines, with the reason.
#include <memory>
#include <string>

#include "gpu_test_util.hpp"
#include "memhier/core/tma.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/probe/tma.hpp"
#include "memhier/registry/registry.hpp"

namespace memhier::testing {
namespace {

bool hopper(const core::DeviceInfo& dev) {
  return dev.cc_major >= 9;
}

TEST(ProbeTma, EveryMethodVerifiedAndPlausible) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::TmaResult m = probe::measure_tma(ctx);
  if (!hopper(*dev)) {
    EXPECT_NE(m.unsupported.find("compute capability 9.0"), std::string::npos) << m.unsupported;
    EXPECT_TRUE(m.loads.empty());
    GTEST_SKIP() << m.unsupported;
  }
  ASSERT_TRUE(m.unsupported.empty()) << m.unsupported;
  ASSERT_EQ(m.loads.size(), 4u * 2u) << "4 methods x 1 chunk x 2 stage counts (quick)";
  // HBM feeds the all-SM runs: never above 1.5x the datasheet's DRAM bandwidth. One SM can
  // take at most 128 bytes per clock (with the harness's 25% slack).
  const double dram = 1.5 * dev->peak_dram_gbps();
  const double one_sm = l1_ceiling_gbps(ctx) / dev->sm_count;
  for (const auto* rates : {&m.loads, &m.stores})
    for (const probe::TmaRate& r : *rates) {
      SCOPED_TRACE(r.method + " " + std::to_string(r.chunk_bytes) + " x" +
                   std::to_string(r.stages));
      EXPECT_TRUE(r.verified);
      EXPECT_GT(r.chip_gbps, 10.0);
      EXPECT_LT(r.chip_gbps, dram);
      EXPECT_GT(r.sm_gbps, 0.1);
      EXPECT_LT(r.sm_gbps, one_sm);
    }
  EXPECT_EQ(m.stores.size(), 1u + 2u) << "thread stores once, bulk stores at 2 stage counts";
  EXPECT_GT(m.oob_checked, 0u);
  EXPECT_EQ(m.oob_load_wrong, 0u);
  EXPECT_GT(m.oob_store_checked, 0u);
  EXPECT_EQ(m.oob_store_wrong, 0u);
  // At most the rest of each written row's last 16-byte chunk (3 floats x 17 rows here).
  EXPECT_LE(m.oob_store_chunk_spill, 3u * 17u);
  EXPECT_GT(m.swizzle_checked, 0u);
  EXPECT_EQ(m.swizzle_wrong, 0u);
  ASSERT_EQ(m.multicast.size(), 2u);
  for (const probe::TmaMulticast& r : m.multicast) {
    SCOPED_TRACE("cluster " + std::to_string(r.cluster));
    ASSERT_GT(r.blocks, 0);
    EXPECT_TRUE(r.verified);
    EXPECT_GT(r.separate_gbps, 10.0);
    EXPECT_GT(r.multicast_gbps, 10.0);
    // Bytes delivered to shared memory: each SM takes at most ~128 B per clock.
    EXPECT_LT(r.multicast_gbps, l1_ceiling_gbps(ctx));
  }
  const probe::Result r = probe::present_tma(m);
  for (const char* id : {"tma-loads", "tma-stores", "tma-multicast", "tma-edges", "tma-claims"})
    EXPECT_NE(find_table(r.section, id), nullptr) << id;
}

/// Runs `variant` of `family` at `shape`: "" when it ran and verified, else why not.
std::string run_rung(const std::string& family, const std::string& variant,
                     const std::string& shape) {
  kernels::register_families();
  const registry::Family* f = registry::find_family(family);
  if (!f) return "no family " + family;
  std::unique_ptr<registry::Case> c = f->make_case(shape, 7);
  try {
    c->poison(nullptr);
    c->run(variant, nullptr);
  } catch (const std::invalid_argument& e) {
    return std::string("declined: ") + e.what();
  }
  const double err = c->error();
  return err <= c->tolerance() ? "" : "error " + std::to_string(err);
}

TEST(TmaRungs, RunWhereTmaDescribesTheShapeAndDeclineElsewhere) {
  MEMHIER_REQUIRE_GPU(dev);
  if (!hopper(*dev)) {
    EXPECT_NE(run_rung("transpose", "tma", "64x64").find("compute capability 9.0 or newer"),
              std::string::npos);
    EXPECT_NE(
        run_rung("elementwise", "bulk_copy", "copy:4099").find("compute capability 9.0 or newer"),
        std::string::npos);
    GTEST_SKIP() << "TMA needs compute capability 9.0 or newer; this card is " << dev->cc_major
                 << "." << dev->cc_minor << ".";
  }
  // Partial tiles on both edges, a lone half tile, a tall and a wide one.
  for (const char* shape : {"68x132", "132x68", "4x4", "64x64", "260x1028", "1000x772"})
    EXPECT_EQ(run_rung("transpose", "tma", shape), "") << shape;
  // Rows of 33 floats are 132 bytes: not a 16-byte multiple, so TMA cannot describe them.
  const std::string why = run_rung("transpose", "tma", "33x64");
  EXPECT_NE(why.find("declined"), std::string::npos) << why;
  EXPECT_NE(why.find("16-byte"), std::string::npos) << why;
  for (const char* shape :
       {"copy:1", "copy:4099", "copy:1000003", "axpy:7", "axpy:1025", "axpy:1000003"}) {
    EXPECT_EQ(run_rung("elementwise", "bulk_copy", shape), "") << shape;
  }
}

}  // namespace
}  // namespace memhier::testing
