// GPU test of the "registers" probe: the occupancy model must match the CUDA occupancy API
// exactly on every build; times only need to be positive (no timing assertions). It
// asserts on the measurement; the presented section is checked for its tables.
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"
#include "memhier/probe/registers.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeRegisters, ModelMatchesCudaAndFiguresArePlausible) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::RegistersResult m = probe::measure_registers(ctx);
  ASSERT_GE(m.builds.size(), 5u) << "expected the no-bound and four launch-bounds builds";
  EXPECT_EQ(m.builds.front().name, "no bound");
  EXPECT_TRUE(m.has_model) << "memhier's model has no table for this card";

  for (const probe::RegisterBuild& b : m.builds) {
    // Exact: the CPU model reproduces cudaOccupancyMaxActiveBlocksPerMultiprocessor.
    EXPECT_EQ(b.model_blocks, b.cuda_blocks) << b.name;
    EXPECT_GE(b.cuda_blocks, 1) << b.name;
    EXPECT_GT(b.regs, 0) << b.name;
    EXPECT_LE(b.regs, 255) << b.name;
    EXPECT_GE(b.local_bytes, 0) << b.name;
    EXPECT_TRUE(b.occupancy_pct > 0 && b.occupancy_pct <= 100) << b.name;
    EXPECT_TRUE(std::isfinite(b.ms) && b.ms > 0) << b.name;
    // Same arithmetic in every build: outputs agree with the unbounded build.
    EXPECT_LE(b.rel_err, 1e-5) << b.name;
    if (b.max_regs > 0) {
      EXPECT_LE(b.regs, b.max_regs) << b.name;
    }
  }

  // __launch_bounds__(256, m) must leave room for m blocks per SM.
  for (int blocks : {1, 2, 4, 8}) {
    const std::string name = "__launch_bounds__(256," + std::to_string(blocks) + ")";
    const probe::RegisterBuild* b = nullptr;
    for (const probe::RegisterBuild& x : m.builds)
      if (x.name == name) b = &x;
    ASSERT_NE(b, nullptr) << name << " build missing";
    EXPECT_EQ(b->min_blocks, blocks);
    EXPECT_GE(b->cuda_blocks, blocks) << name;
  }

  const probe::Result r = probe::present_registers(m);
  ASSERT_NE(find_table(r.section, "registers"), nullptr);
  EXPECT_EQ(find_table(r.section, "registers")->rows.size(), m.builds.size());
  EXPECT_NE(find_table(r.section, "registers-claims"), nullptr);
}

}  // namespace
}  // namespace memhier::testing
