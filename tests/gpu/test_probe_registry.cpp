// Every probe is registered, in report order, with a run function: the registry entry is
// what `memhier probe` and the report run (measure, then present). Needs no GPU.
#include <string>
#include <vector>

#include "gpu_test_util.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeRegistry, EveryProbeRegisteredWithARunFunction) {
  probe::register_probes();
  std::vector<std::string> names;
  for (const registry::Entry& e : registry::entries())
    if (e.kind == "probe") {
      names.push_back(e.name);
      EXPECT_TRUE(static_cast<bool>(e.run_probe)) << e.name;
      EXPECT_FALSE(e.technique.empty()) << e.name;
    }
  const std::vector<std::string> expected = {
      "latency",        "latency-working-set", "bandwidth",     "shared-stride", "global-stride",
      "l2-working-set", "l2-random",           "l2-persisting", "layout",        "constant",
      "registers",      "smem-dynamic",        "smem-carveout", "caching",       "tma",
      "gather",         "local-memory",        "dsmem",         "l2-partitions", "host",
      "peer",           "collectives",         "allreduce"};
  EXPECT_EQ(names, expected);
}

}  // namespace
}  // namespace memhier::testing
