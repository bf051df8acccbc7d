// GPU test of the "registers" probe: the occupancy model must match the CUDA occupancy API
// exactly on every build; times only need to be positive (no timing assertions).
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeRegisters, ModelMatchesCudaAndFiguresArePlausible) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::Result r = run_probe("registers", ctx);
  const report::Table* t = find_table(r.section, "registers");
  ASSERT_NE(t, nullptr) << "table 'registers' missing";
  ASSERT_GE(t->rows.size(), 5u) << "expected the no-bound and four launch-bounds builds";

  const int variant = column(*t, "variant"), regs = column(*t, "regs"),
            local = column(*t, "local_bytes"), model = column(*t, "model_blocks_per_sm"),
            cuda = column(*t, "cuda_blocks_per_sm"), occ = column(*t, "occupancy_pct"),
            ms = column(*t, "ms"), rel = column(*t, "relative"), err = column(*t, "max_rel_err");
  for (int c : {variant, regs, local, model, cuda, occ, ms, rel, err}) ASSERT_GE(c, 0);

  for (const auto& row : t->rows) {
    const std::string name = row[variant].display();
    // Exact: the CPU model reproduces cudaOccupancyMaxActiveBlocksPerMultiprocessor.
    EXPECT_EQ(row[model].number, row[cuda].number) << name;
    EXPECT_GE(row[cuda].number, 1) << name;
    EXPECT_GT(row[regs].number, 0) << name;
    EXPECT_LE(row[regs].number, 255) << name;
    EXPECT_GE(row[local].number, 0) << name;
    EXPECT_TRUE(row[occ].number > 0 && row[occ].number <= 100) << name;
    EXPECT_TRUE(std::isfinite(row[ms].number) && row[ms].number > 0) << name;
    EXPECT_TRUE(std::isfinite(row[rel].number) && row[rel].number > 0) << name;
    // Same arithmetic in every build: outputs agree with the unbounded build.
    EXPECT_LE(row[err].number, 1e-5) << name;
  }

  // __launch_bounds__(256, m) must leave room for m blocks per SM.
  for (int m : {1, 2, 4, 8}) {
    const std::string name = "__launch_bounds__(256," + std::to_string(m) + ")";
    const double blocks = lookup(*t, "variant", name, "cuda_blocks_per_sm");
    ASSERT_FALSE(std::isnan(blocks)) << name << " row missing";
    EXPECT_GE(blocks, m) << name;
  }
  EXPECT_NE(find_table(r.section, "registers-claims"), nullptr);
}

}  // namespace
}  // namespace memhier::testing
