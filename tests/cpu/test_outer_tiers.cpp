// The outer tiers' host-side logic: nccl-tests' bus-bandwidth factors and sizes, the sweeps,
// when the peer and collectives probes decline, and the sections (JSON keys, tier figures)
// their presenters make of made-up measurements.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "memhier/probe/allreduce.hpp"
#include "memhier/probe/collectives.hpp"
#include "memhier/probe/host.hpp"
#include "memhier/probe/peer.hpp"
#include "memhier/report/writers.hpp"
#include "memhier/results/claim_id.hpp"

namespace memhier::probe {
namespace {

constexpr std::uint64_t KiB = 1024, MiB = KiB * KiB, GiB = MiB * KiB;

TEST(OuterTiers, BusFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_reduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_gather, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::reduce_scatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_reduce, 1), 0.0);  // one rank moves nothing
  EXPECT_TRUE(std::isnan(bus_factor(Collective::all_gather, 0)));
}

TEST(OuterTiers, SendCountsSplitTheVector) {
  EXPECT_EQ(send_count(Collective::all_reduce, GiB, 2, 4), GiB / 4);
  EXPECT_EQ(send_count(Collective::broadcast, 8, 4, 4), 2u);
  EXPECT_EQ(send_count(Collective::all_gather, GiB, 4, 4), GiB / 16);
  EXPECT_EQ(send_count(Collective::all_gather, 8, 2, 4), 1u);
  EXPECT_EQ(send_count(Collective::all_gather, 4, 2, 4), 0u);  // less than one element a rank
  // reduce-scatter's input is the whole vector, cut to a whole share for every rank
  EXPECT_EQ(send_count(Collective::reduce_scatter, 12 * 4, 8, 4), 8u);
  EXPECT_EQ(send_count(Collective::reduce_scatter, 4, 2, 4), 0u);
  EXPECT_EQ(send_count(Collective::all_reduce, GiB, 0, 4), 0u);
}

TEST(OuterTiers, GeometricSizes) {
  const auto host = geometric_sizes(4 * KiB, GiB, 4);
  ASSERT_EQ(host.size(), 10u);
  EXPECT_EQ(host.front(), 4 * KiB);
  EXPECT_EQ(host.back(), GiB);
  for (std::size_t i = 1; i < host.size(); ++i) EXPECT_EQ(host[i], 4 * host[i - 1]);
  // a cap off the grid ends the sweep with the cap itself
  EXPECT_EQ(geometric_sizes(4 * KiB, 3 * MiB, 4),
            (std::vector<std::uint64_t>{4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, MiB, 3 * MiB}));
  EXPECT_EQ(geometric_sizes(8, 8, 4), (std::vector<std::uint64_t>{8}));
  EXPECT_TRUE(geometric_sizes(0, GiB, 4).empty());
  EXPECT_TRUE(geometric_sizes(4, GiB, 1).empty());
  EXPECT_TRUE(geometric_sizes(GiB, 4, 4).empty());
  const auto huge = geometric_sizes(1, std::numeric_limits<std::uint64_t>::max(), 16);
  EXPECT_EQ(huge.size(), 17u);  // 16^0 .. 16^15, then the maximum: no overflow
  EXPECT_EQ(huge.back(), std::numeric_limits<std::uint64_t>::max());

  const auto coll = collective_sizes(GiB, false);
  EXPECT_EQ(coll.front(), 8u);
  EXPECT_EQ(coll[1], 32u);
  EXPECT_EQ(coll[coll.size() - 2], 512 * MiB);
  EXPECT_EQ(coll.back(), GiB);
  EXPECT_EQ(coll.size(), 15u);
  EXPECT_EQ(collective_sizes(64 * MiB, true).size(), 7u);  // 8 B .. 8 MiB by 16, then 64 MiB
}

TEST(OuterTiers, OneGpuDeclinesThePeerTierAndCollectives) {
  EXPECT_EQ(peer_unavailable(1), "the peer tier needs two GPUs; this machine has one");
  EXPECT_FALSE(peer_unavailable(0).empty());
  EXPECT_EQ(peer_unavailable(2), "");
  EXPECT_EQ(peer_unavailable(8), "");
  EXPECT_EQ(collectives_unavailable(1, true), "collectives need two GPUs; this machine has one");
  EXPECT_EQ(collectives_unavailable(2, true), "");
  const std::string no_nccl = collectives_unavailable(4, false);
  EXPECT_NE(no_nccl.find("without NCCL"), std::string::npos) << no_nccl;
  EXPECT_EQ(no_nccl.find('\n'), std::string::npos);
}

/// The table with this id in the section's JSON, or null.
nlohmann::json table_json(const report::Section& s, const std::string& id) {
  for (const report::Table& t : s.tables)
    if (t.id == id) return report::to_json(t);
  return nullptr;
}

HostResult made_up_host() {
  HostResult m;
  m.max_bytes = 16 * MiB;
  m.host_page_bytes = 4096;
  m.host_memory_bytes = 64 * GiB;
  m.sm_clock_mhz = 1500;
  m.mapped_latency_cycles = 1500;  // 1 us
  m.chase_steps = 512;
  m.chase_ring_bytes = 512 * KiB;
  for (HostDirection dir : {HostDirection::host_to_device, HostDirection::device_to_host})
    for (std::uint64_t bytes : {4 * KiB, 16 * MiB}) {
      const double ce = dir == HostDirection::host_to_device ? 50 : 52;
      m.copies.push_back(
          {HostMemory::pinned, dir, Mover::copy_engine, bytes, 4, 1.0, bytes > MiB ? ce : 1});
      m.copies.push_back(
          {HostMemory::pageable, dir, Mover::copy_engine, bytes, 4, 1.0, bytes > MiB ? 20 : 0.5});
      m.copies.push_back(
          {HostMemory::pinned, dir, Mover::sm, bytes, 4, 1.0, bytes > MiB ? 45 : 0.8});
    }
  m.skipped.push_back(
      {HostMemory::registered, "cudaHostRegister of 16 MiB failed (out of memory)"});
  m.overlap = {16 * MiB, 0.3, 0.3, 0.6, 0.33};
  ManagedMigration fault{ManagedMethod::fault, 16 * MiB, 4096, NAN, 4.0};
  ManagedMigration prefetch{ManagedMethod::prefetch, 16 * MiB, 4096, 0.5, 0.5};
  m.managed = {fault, prefetch};
  return m;
}

TEST(OuterTiers, HostSectionKeysAndTier) {
  const HostResult m = made_up_host();
  ASSERT_NE(find_copy(m, HostMemory::pinned, HostDirection::device_to_host, Mover::sm, 16 * MiB),
            nullptr);
  EXPECT_EQ(find_copy(m, HostMemory::registered, HostDirection::device_to_host, Mover::copy_engine,
                      16 * MiB),
            nullptr);
  const Result r = present_host(m);
  EXPECT_EQ(r.section.id, "host");
  const nlohmann::json sweep = table_json(r.section, "host-sweep");
  ASSERT_TRUE(sweep.is_object());
  ASSERT_EQ(sweep["rows"].size(), m.copies.size());
  for (const char* key : {"memory", "direction", "mover", "bytes", "batch", "us", "gbps"})
    EXPECT_TRUE(sweep["rows"][0].contains(key)) << key;
  EXPECT_NE(sweep.dump().find("registered memory: not measured: cudaHostRegister"),
            std::string::npos);

  const nlohmann::json largest = table_json(r.section, "host-copies");
  ASSERT_TRUE(largest.is_object());
  ASSERT_EQ(largest["rows"].size(), 6u);  // per direction: pinned CE, pinned SM, pageable CE
  EXPECT_DOUBLE_EQ(largest["rows"][0]["of_pinned_copy_engine"].get<double>(), 1.0);

  const nlohmann::json overlap = table_json(r.section, "host-overlap");
  ASSERT_TRUE(overlap.is_object());
  EXPECT_NEAR(overlap["rows"][0]["ratio"].get<double>(), 0.55, 1e-3);
  EXPECT_NEAR(overlap["rows"][0]["ideal_ratio"].get<double>(), 0.5, 1e-3);

  const nlohmann::json managed = table_json(r.section, "host-managed");
  ASSERT_TRUE(managed.is_object());
  ASSERT_EQ(managed["rows"].size(), 2u);
  // the fault path's 4 ms over 4096 pages; four times the prefetch's total
  EXPECT_NEAR(managed["rows"][0]["us_per_page"].get<double>(), 4000.0 / 4096, 1e-3);
  EXPECT_NEAR(managed["rows"][0]["over_prefetch"].get<double>(), 4.0, 1e-9);
  EXPECT_NEAR(managed["rows"][1]["total_ms"].get<double>(), 1.0, 1e-9);

  ASSERT_NE(table_json(r.section, "host-latency"), nullptr);
  // memhier's goals for the tier: 2.5x and 2.6x over pageable, overlap 0.55, faults 4x.
  ASSERT_EQ(r.section.checks.size(), 3u);
  for (const results::Check& c : r.section.checks)
    EXPECT_EQ(c.verdict, results::Verdict::reproduced) << c.measured << ": " << c.detail;
  HostResult slow_pinned = m;
  for (HostCopy& c : slow_pinned.copies)
    if (c.memory == HostMemory::pinned && c.direction == HostDirection::device_to_host) c.gbps = 21;
  EXPECT_EQ(present_host(slow_pinned).section.checks[0].verdict, results::Verdict::refuted);
  HostResult no_managed = m;
  no_managed.managed.clear();
  no_managed.managed_not_measured = "no concurrent managed access";
  EXPECT_EQ(present_host(no_managed).section.checks[2].verdict, results::Verdict::not_measurable);
  ASSERT_EQ(r.tiers.size(), 1u);
  EXPECT_EQ(r.tiers[0].tier, "host");
  EXPECT_EQ(r.tiers[0].bandwidth_gbps, 52);  // the faster pinned copy-engine direction
  EXPECT_NE(r.tiers[0].bandwidth_method.find("device to host"), std::string::npos);
  EXPECT_EQ(r.tiers[0].latency_cycles, 1500);
  EXPECT_NE(r.tiers[0].size.find("64 GiB"), std::string::npos) << r.tiers[0].size;
}

TEST(OuterTiers, PeerSectionMatrixAndTier) {
  PeerResult m;
  m.gpus = 2;
  m.names = {"GPU A", "GPU B"};
  m.buffer_bytes = 256 * MiB;
  m.device_memory_bytes = 80 * GiB;
  m.pairs = {{0, 1, true, 0, true}, {1, 0, true, 0, true}};
  auto copy = [](int s, int d, PeerMethod k, double gbps) {
    PeerCopy c;
    c.src = s;
    c.dst = d;
    c.method = k;
    c.bytes = 256 * MiB;
    c.ms = 1;
    c.gbps = gbps;
    return c;
  };
  m.copies = {copy(0, 1, PeerMethod::copy_engine, 390), copy(0, 1, PeerMethod::sm_load, 380),
              copy(1, 0, PeerMethod::copy_engine, 392),
              copy(0, 1, PeerMethod::copy_engine_both, 750),
              copy(0, 1, PeerMethod::staged_host, 25)};
  PeerCopy declined;
  declined.src = 1;
  declined.dst = 0;
  declined.method = PeerMethod::sm_store;
  declined.not_measured = "no P2P";
  m.copies.push_back(declined);
  m.latencies = {{0, 1, 2000, 1333, ""}, {1, 0, 1900, 1266, ""}};
  const Result r = present_peer(m);
  EXPECT_EQ(r.section.id, "peer");
  const nlohmann::json copies = table_json(r.section, "peer-copies");
  ASSERT_TRUE(copies.is_object());
  ASSERT_EQ(copies["rows"].size(), m.copies.size());
  EXPECT_NEAR(copies["rows"][1]["of_copy_engine"].get<double>(), 380.0 / 390, 1e-3);
  EXPECT_EQ(copies["rows"][5]["not_measured"], "no P2P");
  ASSERT_EQ(r.section.charts.size(), 1u);
  const report::Chart& matrix = r.section.charts[0];
  EXPECT_EQ(matrix.kind, report::Chart::Kind::heatmap);
  ASSERT_EQ(matrix.series.size(), 2u);
  EXPECT_TRUE(std::isnan(matrix.series[0].y[0]));  // no copy from a GPU to itself
  EXPECT_EQ(matrix.series[0].y[1], 390);
  EXPECT_EQ(matrix.series[1].y[0], 392);
  ASSERT_EQ(r.tiers.size(), 1u);
  EXPECT_EQ(r.tiers[0].tier, "peer");
  EXPECT_EQ(r.tiers[0].bandwidth_gbps, 392);  // one way: both-ways rows are not a link's figure
  EXPECT_EQ(r.tiers[0].latency_cycles, 1900);
  // SM loads 380 against the copy engine's 390 GB/s: 0.97x, at least 0.95x
  ASSERT_EQ(r.section.checks.size(), 1u);
  EXPECT_EQ(r.section.checks[0].verdict, results::Verdict::reproduced)
      << r.section.checks[0].detail;
  PeerResult slow = m;
  slow.copies[1].gbps = 300;
  EXPECT_EQ(present_peer(slow).section.checks[0].verdict, results::Verdict::refuted);
}

TEST(OuterTiers, CollectivesSection) {
  CollectivesResult m;
  m.ranks = 2;
  m.nccl_version = 22805;
  m.names = {"A", "B"};
  CollectiveRun run;
  run.op = Collective::all_reduce;
  run.bytes = 64 * MiB;
  run.iterations = 1;
  run.us = 250;
  run.algbw_gbps = 268.4;
  run.busbw_gbps = 268.4;
  m.runs = {run};
  const Result r = present_collectives(m);
  const nlohmann::json t = table_json(r.section, "collectives");
  ASSERT_TRUE(t.is_object());
  ASSERT_EQ(t["rows"].size(), 1u);
  for (const char* key : {"collective", "bytes", "us", "algbw_gbps", "busbw_gbps", "wrong"})
    EXPECT_TRUE(t["rows"][0].contains(key)) << key;
  EXPECT_EQ(t["rows"][0]["collective"], "all-reduce");
  bool says_nvls_off = false;
  for (const std::string& p : r.section.paragraphs)
    says_nvls_off = says_nvls_off || p.find("NCCL_NVLS_ENABLE=0") != std::string::npos;
  EXPECT_TRUE(says_nvls_off);
  EXPECT_NE(r.section.paragraphs[0].find("NCCL 2.28.5"), std::string::npos);
}

TEST(OuterTiers, AllReduceDeclinesInOneSentence) {
  EXPECT_EQ(allreduce_unavailable(1, true, true),
            "the all-reduce ladder needs two GPUs; this machine has one");
  EXPECT_EQ(allreduce_unavailable(2, true, true), "");
  for (const std::string& why :
       {allreduce_unavailable(4, false, true), allreduce_unavailable(4, true, false)}) {
    EXPECT_FALSE(why.empty());
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  }
  EXPECT_NE(allreduce_unavailable(4, true, false).find("peer access"), std::string::npos);
}

TEST(OuterTiers, AllReduceGridKeepsEveryBlockResident) {
  EXPECT_EQ(allreduce_blocks(1, 132), 1);
  EXPECT_EQ(allreduce_blocks(512, 132), 1);
  EXPECT_EQ(allreduce_blocks(513, 132), 2);
  EXPECT_EQ(allreduce_blocks(std::uint64_t{1} << 26, 132), 132);  // one block per SM at most
  EXPECT_EQ(allreduce_blocks(std::uint64_t{1} << 26, 46), 46);
}

// A made-up ladder: one-shot wins small; from 64 MiB two-shot beats one-shot and NCCL beats
// one-shot; from 256 MiB NCCL beats two-shot too.
AllReduceResult made_up_allreduce() {
  AllReduceResult m;
  m.ranks = 2;
  m.nccl_version = 22803;
  m.blocks = 132;
  m.names = {"A", "B"};
  for (ReduceType type : kReduceTypes)
    for (std::uint64_t bytes : {64 * KiB, 256 * KiB, MiB, 64 * MiB, 256 * MiB}) {
      const double nccl = 20 + static_cast<double>(bytes) / 300e3;  // us
      const double one = 8 + static_cast<double>(bytes) / 250e3;
      const double two = 12 + static_cast<double>(bytes) / 290e3;
      for (auto [rung, us] : {std::pair{AllReduceRung::nccl, nccl},
                              std::pair{AllReduceRung::one_shot, one},
                              std::pair{AllReduceRung::two_shot, two}}) {
        AllReduceRun r;
        r.type = type;
        r.rung = rung;
        r.bytes = bytes;
        r.iterations = 1;
        r.us = us;
        r.busbw_gbps = static_cast<double>(bytes) / (us * 1e3);
        r.speedup = nccl / us;
        m.runs.push_back(r);
      }
    }
  return m;
}

TEST(OuterTiers, AllReduceCrossoversAndClaims) {
  const AllReduceResult m = made_up_allreduce();
  EXPECT_EQ(takes_over(m, ReduceType::fp32, AllReduceRung::one_shot, AllReduceRung::two_shot),
            64 * MiB);
  EXPECT_EQ(takes_over(m, ReduceType::bf16, AllReduceRung::two_shot, AllReduceRung::nccl),
            256 * MiB);
  EXPECT_EQ(takes_over(m, ReduceType::fp32, AllReduceRung::one_shot, AllReduceRung::nccl),
            64 * MiB);
  EXPECT_EQ(takes_over(m, ReduceType::fp32, AllReduceRung::nccl, AllReduceRung::one_shot), 0u);

  const Result r = present_allreduce(m);
  const nlohmann::json t = table_json(r.section, "allreduce");
  ASSERT_TRUE(t.is_object());
  EXPECT_EQ(t["rows"].size(), m.runs.size());
  for (const char* key : {"type", "rung", "bytes", "us", "busbw_gbps", "speedup", "wrong"})
    EXPECT_TRUE(t["rows"][0].contains(key)) << key;
  const nlohmann::json x = table_json(r.section, "allreduce-crossovers");
  ASSERT_TRUE(x.is_object());
  EXPECT_EQ(x["rows"][0]["two_over_one"], 64 * MiB);
  ASSERT_EQ(r.section.checks.size(), 2u);
  EXPECT_EQ(r.section.checks[0].id, results::ClaimId::allreduce_one_shot_beats_nccl_small);
  EXPECT_EQ(r.section.checks[0].verdict, results::Verdict::reproduced);
  EXPECT_EQ(r.section.checks[1].id, results::ClaimId::allreduce_best_near_nccl_large);
  // two-shot at 64 MiB: 243.7 / 243.4 us = 1.00x NCCL; at 256 MiB 914.8 / 937.6 = 0.98x
  EXPECT_EQ(r.section.checks[1].verdict, results::Verdict::reproduced);

  AllReduceResult wrong = m;
  for (AllReduceRun& run : wrong.runs)
    if (run.rung == AllReduceRung::one_shot && run.bytes == 64 * KiB) run.wrong = 3;
  EXPECT_NE(present_allreduce(wrong).section.checks[0].verdict, results::Verdict::reproduced);

  AllReduceResult one = m;
  one.ranks = 1;
  for (const auto& c : present_allreduce(one).section.checks)
    EXPECT_EQ(c.verdict, results::Verdict::not_measurable);
}

}  // namespace
}  // namespace memhier::probe
