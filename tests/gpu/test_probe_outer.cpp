// GPU tests of the outer tiers: the host probe's figures are finite and plausible; the peer
// probe and the collectives decline on one GPU (and `memhier probe peer` ends as a missing
// capability), and on two or more measure every pair and check every collective exactly.
// NCCL runs on one GPU too (one rank), so the collectives' verification is exercised there.
#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "gpu_test_util.hpp"
#include "memhier/probe/allreduce.hpp"
#include "memhier/probe/collectives.hpp"
#include "memhier/probe/host.hpp"
#include "memhier/probe/peer.hpp"
#include "memhier/probe/unavailable.hpp"
#include "memhier/run/pipeline.hpp"

namespace memhier::testing {
namespace {

int visible_gpus() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

TEST(ProbeHost, QuickRunIsPlausible) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::HostResult m = probe::measure_host(ctx);
  ASSERT_FALSE(m.copies.empty());
  for (const probe::HostCopy& c : m.copies)
    EXPECT_TRUE(std::isfinite(c.gbps) && c.gbps > 0 && c.gbps < 5000)
        << to_string(c.memory) << " " << to_string(c.direction) << " " << to_string(c.mover) << " "
        << c.bytes << ": " << c.gbps;
  for (const probe::HostSkip& s : m.skipped)
    std::printf("skipped %s: %s\n", to_string(s.memory), s.why.c_str());
  // Latency gives way to bandwidth: the smallest pinned copy is far slower per byte.
  for (auto dir : {probe::HostDirection::host_to_device, probe::HostDirection::device_to_host}) {
    const auto* small =
        probe::find_copy(m, probe::HostMemory::pinned, dir, probe::Mover::copy_engine, 4096);
    const auto* large =
        probe::find_copy(m, probe::HostMemory::pinned, dir, probe::Mover::copy_engine, m.max_bytes);
    ASSERT_NE(small, nullptr);
    ASSERT_NE(large, nullptr);
    report_figure(std::string("pinned_") +
                      (dir == probe::HostDirection::host_to_device ? "h2d" : "d2h") + "_gbps",
                  large->gbps, "above 4 KiB's", large->gbps > small->gbps);
    EXPECT_GT(large->gbps, small->gbps);
  }
  EXPECT_TRUE(std::isfinite(m.overlap.ratio()) && m.overlap.ratio() > 0.2 &&
              m.overlap.ratio() < 1.3)
      << m.overlap.ratio();
  report_figure("overlap_two_over_one_stream", m.overlap.ratio(), "below 1", m.overlap.ratio() < 1);
  if (m.managed_not_measured.empty()) {
    ASSERT_EQ(m.managed.size(), 4u);
    for (const probe::ManagedMigration& r : m.managed)
      EXPECT_TRUE(std::isfinite(r.total_ms()) && r.total_ms() > 0) << to_string(r.method);
    report_figure("managed_fault_over_prefetch", m.managed[0].total_ms() / m.managed[1].total_ms(),
                  "measured", true);
  }
  EXPECT_TRUE(std::isfinite(m.mapped_latency_cycles) && m.mapped_latency_cycles > 50)
      << m.mapped_latency_cycles;

  const probe::Result r = probe::present_host(m);
  for (const char* id :
       {"host-copies", "host-sweep", "host-overlap", "host-managed", "host-latency"})
    EXPECT_NE(find_table(r.section, id), nullptr) << id;
  ASSERT_EQ(r.tiers.size(), 1u);
  EXPECT_EQ(r.tiers[0].tier, "host");
  EXPECT_TRUE(std::isfinite(r.tiers[0].bandwidth_gbps));
}

TEST(ProbePeer, OneGpuDeclinesInOneSentence) {
  MEMHIER_REQUIRE_GPU(dev);
  if (visible_gpus() != 1) GTEST_SKIP() << "this machine has " << visible_gpus() << " GPUs";
  probe::Context ctx = quick_context(*dev);
  try {
    probe::measure_peer(ctx);
    FAIL() << "the peer probe ran on one GPU";
  } catch (const probe::Unavailable& e) {
    EXPECT_EQ(std::string(e.what()), "the peer tier needs two GPUs; this machine has one");
  }
  EXPECT_THROW(probe::measure_collectives(ctx), probe::Unavailable);
  // `memhier probe peer`: the run ends as a missing capability (exit 3 in the CLI).
  run::ProbeOptions o;
  o.quick = true;
  o.only = {"peer"};
  try {
    run::run_probe(o);
    FAIL() << "memhier probe peer succeeded on one GPU";
  } catch (const run::DeviceUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("needs two GPUs"), std::string::npos) << e.what();
  }
}

TEST(ProbePeer, EveryPairMeasured) {
  MEMHIER_REQUIRE_GPU(dev);
  const int n = visible_gpus();
  if (n < 2) GTEST_SKIP() << probe::peer_unavailable(n);
  probe::Context ctx = quick_context(*dev);
  const probe::PeerResult m = probe::measure_peer(ctx);
  EXPECT_EQ(m.gpus, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const auto* ce = probe::find_peer_copy(m, i, j, probe::PeerMethod::copy_engine);
      ASSERT_NE(ce, nullptr);
      EXPECT_TRUE(std::isfinite(ce->gbps) && ce->gbps > 0) << i << "->" << j;
      const auto* staged = probe::find_peer_copy(m, i, j, probe::PeerMethod::staged_host);
      ASSERT_NE(staged, nullptr);
      EXPECT_TRUE(std::isfinite(staged->gbps) && staged->gbps > 0);
      const auto* load = probe::find_peer_copy(m, i, j, probe::PeerMethod::sm_load);
      ASSERT_NE(load, nullptr);
      if (load->not_measured.empty()) {
        report_figure("sm_load_over_copy_engine", load->gbps / ce->gbps, "at least 0.5",
                      load->gbps >= 0.5 * ce->gbps);
      }
    }
  for (const probe::PeerLatency& l : m.latencies)
    if (l.not_measured.empty()) {
      EXPECT_TRUE(std::isfinite(l.cycles) && l.cycles > 100) << l.cycles;
    }
  const probe::Result r = probe::present_peer(m);
  EXPECT_NE(find_table(r.section, "peer-copies"), nullptr);
  ASSERT_EQ(r.tiers.size(), 1u);
  EXPECT_TRUE(std::isfinite(r.tiers[0].bandwidth_gbps));
}

void expect_exact(const probe::CollectivesResult& m) {
  ASSERT_FALSE(m.runs.empty());
  for (const probe::CollectiveRun& r : m.runs) {
    EXPECT_EQ(r.wrong, 0u) << to_string(r.op) << " at " << r.bytes << " B";
    EXPECT_TRUE(std::isfinite(r.us) && r.us > 0) << to_string(r.op) << " at " << r.bytes;
  }
  for (probe::Collective c : probe::kAllCollectives) {
    bool seen = false;
    for (const probe::CollectiveRun& r : m.runs) seen = seen || r.op == c;
    EXPECT_TRUE(seen) << to_string(c);
  }
}

TEST(ProbeCollectives, ExactOnOneRank) {
  MEMHIER_REQUIRE_GPU(dev);
  if (!probe::nccl_built()) GTEST_SKIP() << probe::collectives_unavailable(1, false);
  probe::Context ctx = quick_context(*dev);
  const probe::CollectivesResult m = probe::measure_collectives_on(ctx, 1);
  EXPECT_EQ(m.ranks, 1);
  expect_exact(m);
}

TEST(ProbeCollectives, ExactOnEveryGpu) {
  MEMHIER_REQUIRE_GPU(dev);
  const int n = visible_gpus();
  if (const std::string why = probe::collectives_unavailable(n, probe::nccl_built()); !why.empty())
    GTEST_SKIP() << why;
  probe::Context ctx = quick_context(*dev);
  const probe::CollectivesResult m = probe::measure_collectives(ctx);
  EXPECT_EQ(m.ranks, n);
  expect_exact(m);
  for (const probe::CollectiveRun& r : m.runs)
    EXPECT_TRUE(std::isfinite(r.busbw_gbps) && r.busbw_gbps > 0);
  const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
  ASSERT_NE(nvls, nullptr);
  EXPECT_EQ(std::string(nvls), "0");
}

void expect_exact(const probe::AllReduceResult& m) {
  ASSERT_FALSE(m.runs.empty());
  for (const probe::AllReduceRun& r : m.runs) {
    EXPECT_EQ(r.wrong, 0u) << to_string(r.type) << " " << to_string(r.rung) << " " << r.bytes;
    EXPECT_TRUE(std::isfinite(r.us) && r.us > 0) << to_string(r.rung) << " " << r.bytes;
    EXPECT_TRUE(std::isfinite(r.speedup) && r.speedup > 0) << to_string(r.rung) << " " << r.bytes;
  }
  for (probe::ReduceType t : probe::kReduceTypes)
    for (probe::AllReduceRung rung : probe::kAllReduceRungs) {
      bool seen = false;
      for (const probe::AllReduceRun& r : m.runs) seen = seen || (r.type == t && r.rung == rung);
      EXPECT_TRUE(seen) << to_string(t) << " " << to_string(rung);
    }
}

// One rank still runs the P2P kernels' barriers (each block meets itself) and every check.
TEST(ProbeAllReduce, ExactOnOneRank) {
  MEMHIER_REQUIRE_GPU(dev);
  if (!probe::nccl_built()) GTEST_SKIP() << probe::allreduce_unavailable(1, false, true);
  probe::Context ctx = quick_context(*dev);
  const probe::AllReduceResult m = probe::measure_allreduce_on(ctx, 1);
  EXPECT_EQ(m.ranks, 1);
  expect_exact(m);
}

TEST(ProbeAllReduce, ExactOnEveryGpu) {
  MEMHIER_REQUIRE_GPU(dev);
  const int n = visible_gpus();
  if (!probe::nccl_built() || n < 2)
    GTEST_SKIP() << probe::allreduce_unavailable(n, probe::nccl_built(), true);
  probe::Context ctx = quick_context(*dev);
  probe::AllReduceResult m;
  try {
    m = probe::measure_allreduce(ctx);
  } catch (const probe::Unavailable& u) {
    GTEST_SKIP() << u.what();  // a pair without peer access
  }
  EXPECT_EQ(m.ranks, n);
  expect_exact(m);
}

}  // namespace
}  // namespace memhier::testing
