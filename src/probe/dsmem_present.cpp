// The dsmem probe's section from its measurement: latency by cluster size and rank, the
// bandwidths against local shared memory, two charts and the claims. No CUDA.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/dsmem.hpp"

namespace memhier::probe {
namespace {

using report::Value;

constexpr const char* kNoFigure = "no figure on this card (see the notes)";

// The remote ranks' cycles of one size (rank 0, the chaser's own block, left out).
std::vector<double> remote_cycles(const DsmemClusterSize& z) {
  return z.cycles.size() > 1 ? std::vector<double>(z.cycles.begin() + 1, z.cycles.end())
                             : std::vector<double>{};
}

double own_cluster_cycles(const DsmemResult& m) {
  std::vector<double> own;
  for (const DsmemClusterSize& z : m.sizes)
    if (!z.cycles.empty()) own.push_back(z.cycles.front());
  return median(own);
}

const DsmemClusterSize* size_of(const DsmemResult& m, int n) {
  for (const DsmemClusterSize& z : m.sizes)
    if (z.size == n && z.skipped.empty()) return &z;
  return nullptr;
}

// Bytes per clock per SM for `blocks` blocks (one per SM) at the measured clock.
double per_sm_clk(double gbps_value, int blocks, double clock_mhz) {
  return blocks > 0 && clock_mhz > 0 ? gbps_value * 1e3 / (blocks * clock_mhz) : NAN;
}

report::Table by_size_table(const DsmemResult& m) {
  report::Table t;
  t.id = "dsmem-by-size";
  t.title = "Latency and bandwidth by cluster size";
  t.columns = {{"cluster", "blocks", "cluster_size"},
               {"at once", "clusters", "active_clusters"},
               {"own block", "cycles", "own_cycles"},
               {"remote", "cycles", "remote_cycles"},
               {"remote", "ns", "remote_ns"},
               {"one-to-one", "GB/s", "one_to_one_gbps"},
               {"all-to-all", "GB/s", "all_to_all_gbps"}};
  for (const DsmemClusterSize& z : m.sizes) {
    const double med = median(remote_cycles(z));
    t.rows.push_back(
        {Value::integer(z.size), Value::integer(z.active_clusters),
         Value::num_or_none(z.cycles.empty() ? NAN : z.cycles.front(), 1),
         Value::num_or_none(med, 1), Value::num_or_none(cycles_to_ns(med, m.sm_clock_mhz), 1),
         Value::num_or_none(z.one_to_one_gbps, 0), Value::num_or_none(z.all_to_all_gbps, 0)});
    if (!z.skipped.empty())
      t.notes.push_back("Cluster size " + std::to_string(z.size) + " not measured: " + z.skipped +
                        ".");
  }
  t.notes.push_back(
      "Plain ld.shared in the block's own shared memory: " + fmt(m.local_cycles, 1) + " cycles (" +
      fmt(cycles_to_ns(m.local_cycles, m.sm_clock_mhz), 1) +
      " ns); own block reads the same ring through the cluster window; remote is the median of "
      "the other ranks (each in the next table).");
  t.notes.push_back("Clusters at once: cudaOccupancyMaxActiveClusters at " +
                    fmt_bytes(static_cast<double>(m.smem_per_block)) +
                    " of shared memory per block, so that each block has an SM to itself.");
  return t;
}

report::Table by_rank_table(const DsmemResult& m) {
  report::Table t;
  t.id = "dsmem-latency";
  t.title = "ld.shared::cluster latency from rank 0 to each rank";
  t.columns = {{"cluster size", "blocks", "cluster_size"},
               {"rank", "", "rank"},
               {"latency", "cycles", "cycles"},
               {"latency", "ns", "ns"},
               {"read back", "", "read_back"}};
  for (const DsmemClusterSize& z : m.sizes)
    for (std::size_t r = 0; r < z.cycles.size(); ++r) {
      const bool ok = r < z.reads_correct.size() && z.reads_correct[r];
      t.rows.push_back({Value::integer(z.size), Value::integer(static_cast<std::int64_t>(r)),
                        Value::num_or_none(z.cycles[r], 1),
                        Value::num_or_none(cycles_to_ns(z.cycles[r], m.sm_clock_mhz), 1),
                        Value::str(ok ? "yes" : "no: the chase ended elsewhere")});
    }
  t.notes.push_back(
      "Rank 0 is the chasing block itself, through the cluster window. Read back: the chase "
      "ended on the slot the target rank's own ring order predicts (each rank orders its ring "
      "differently), so the loads were served by that rank's shared memory.");
  return t;
}

report::Table bandwidth_table(const DsmemResult& m) {
  report::Table t;
  t.id = "dsmem-bandwidth";
  t.title = "Shared-memory read bandwidth: own block against the cluster's";
  t.columns = {{"access", "", "access"},
               {"cluster size", "blocks", "cluster_size"},
               {"blocks", "", "blocks"},
               {"bandwidth", "GB/s", "gbps"},
               {"per SM per clock", "B/clk/SM", "bytes_per_clk_per_sm"},
               {"of local", "x", "of_local"}};
  auto row = [&](const std::string& access, int size, int blocks, double g) {
    t.rows.push_back({Value::str(access), Value::integer(size), Value::integer(blocks),
                      Value::num_or_none(g, 0),
                      Value::num_or_none(per_sm_clk(g, blocks, m.sm_clock_mhz), 1),
                      Value::num_or_none(g / m.local_gbps, 2)});
  };
  row("own block, ld.shared.v4", 1, m.local_blocks, m.local_gbps);
  for (const DsmemClusterSize& z : m.sizes) {
    if (!z.skipped.empty()) continue;
    row("one-to-one (rank + 1)", z.size, z.blocks, z.one_to_one_gbps);
    row("all-to-all (every other rank in turn)", z.size, z.blocks, z.all_to_all_gbps);
  }
  t.notes.push_back(
      "Every block (" + std::to_string(m.threads) +
      " threads, one per SM) reads 16-byte "
      "vectors of a " +
      fmt_bytes(static_cast<double>(m.buffer_bytes)) +
      " buffer, four loads in flight per thread, a warp 512 contiguous bytes per load. "
      "The cluster rows launch as many clusters as fit at once; a GPC's spare SMs stay idle.");
  return t;
}

report::Chart latency_chart(const DsmemResult& m) {
  report::Chart ch;
  ch.id = "dsmem-latency-chart";
  ch.title = "ld.shared::cluster latency from rank 0, by target rank";
  ch.kind = report::Chart::Kind::line;
  ch.x_label = "target rank";
  ch.y_label = "latency";
  ch.y_unit = "cycles";
  for (const DsmemClusterSize& z : m.sizes) {
    if (z.cycles.empty()) continue;
    report::Series s;
    s.name = "cluster of " + std::to_string(z.size);
    for (std::size_t r = 0; r < z.cycles.size(); ++r) {
      s.x.push_back(static_cast<double>(r));
      s.y.push_back(z.cycles[r]);
    }
    ch.series.push_back(std::move(s));
  }
  return ch;
}

report::Chart bandwidth_chart(const DsmemResult& m) {
  report::Chart ch;
  ch.id = "dsmem-bandwidth-chart";
  ch.title = "Distributed shared memory bandwidth by cluster size";
  ch.kind = report::Chart::Kind::bar;
  ch.x_label = "cluster size";
  ch.y_label = "bandwidth";
  ch.y_unit = "GB/s";
  ch.log_y = true;
  report::Series one{"one-to-one", {}, {}}, all{"all-to-all", {}, {}}, own{"own block", {}, {}};
  for (const DsmemClusterSize& z : m.sizes) {
    if (!z.skipped.empty()) continue;
    ch.categories.push_back(std::to_string(z.size));
    one.y.push_back(z.one_to_one_gbps);
    all.y.push_back(z.all_to_all_gbps);
    own.y.push_back(m.local_gbps);
  }
  ch.series = {own, one, all};
  return ch;
}

std::vector<ClaimRow> dsmem_claims(const DsmemResult& m) {
  std::vector<ClaimRow> rows;
  const std::string why = m.declined.empty() ? std::string(kNoFigure) : m.declined;
  int chased = 0, correct = 0;
  for (const DsmemClusterSize& z : m.sizes)
    for (std::size_t r = 1; r < z.reads_correct.size(); ++r) {
      ++chased;
      correct += z.reads_correct[r] ? 1 : 0;
    }
  rows.push_back({ClaimId::dsmem_cluster_shares_shared_memory,
                  chased ? std::to_string(correct) + " of " + std::to_string(chased) +
                               " remote ranks read back their own ring (clusters of 2-16)"
                         : "n/a",
                  judged(chased ? static_cast<double>(correct) / chased : NAN,
                         Claimed::value(1, "of the remote ranks"),
                         claims::band(ClaimId::dsmem_cluster_shares_shared_memory), why)});
  const double remote = dsmem_remote_median(m);
  rows.push_back(
      {ClaimId::dsmem_latency_remote_215_237_cycles_published,
       fmt(remote, 1) + " cycles (" + fmt(cycles_to_ns(remote, m.sm_clock_mhz), 1) +
           " ns): median over every remote rank of every cluster size",
       judged(remote, Claimed::range(215, 237, "cycles"),
              claims::band(ClaimId::dsmem_latency_remote_215_237_cycles_published), why)});
  const double own = own_cluster_cycles(m);
  rows.push_back({ClaimId::dsmem_latency_own_49_cycles_published,
                  fmt(own, 1) + " cycles through the cluster window (plain ld.shared " +
                      fmt(m.local_cycles, 1) + ")",
                  judged(own, Claimed::value(49, "cycles"),
                         claims::band(ClaimId::dsmem_latency_own_49_cycles_published), why)});
  const DsmemClusterSize* two = size_of(m, 2);
  const DsmemClusterSize* sixteen = size_of(m, 16);
  const double a2 = two ? two->all_to_all_gbps : NAN,
               a16 = sixteen ? sixteen->all_to_all_gbps : NAN;
  const std::string why16 = !m.declined.empty() ? m.declined
                            : sixteen           ? std::string(kNoFigure)
                                                : "no cluster of 16 blocks runs on this card";
  rows.push_back(
      {ClaimId::dsmem_all_to_all_3200_400_gbps_published,
       fmt(a2, 0) + " GB/s in clusters of 2, " + fmt(a16, 0) + " GB/s in clusters of 16",
       judged_all(
           {{"clusters of 2", a2, Claimed::value(3200, "GB/s"), Tolerance::within_factor(2)},
            {"clusters of 16", a16, Claimed::value(400, "GB/s"), Tolerance::within_factor(2)}},
           std::isfinite(a2) ? why16 : why)});
  return rows;
}

}  // namespace

double dsmem_remote_median(const DsmemResult& m) {
  std::vector<double> all;
  for (const DsmemClusterSize& z : m.sizes)
    for (double c : remote_cycles(z)) all.push_back(c);
  return median(all);
}

Result present_dsmem(const DsmemResult& m) {
  Result res;
  report::Section& s = res.section;
  s.id = "dsmem";
  s.title = "Distributed shared memory: thread-block clusters";
  if (!m.declined.empty()) {
    s.paragraphs.push_back(m.declined);
    add_claims(s, "dsmem", dsmem_claims(m));
    return res;
  }
  s.paragraphs.push_back(
      "Clusters of 2, 4, 8 and 16 blocks, each block with " +
      fmt_bytes(static_cast<double>(m.smem_per_block)) +
      " of shared memory so that it has an SM to itself (16 needs the non-portable cluster "
      "size, and runs only where a GPC has 16 free SMs). Latency: every block writes a " +
      fmt_bytes(static_cast<double>(m.ring_bytes)) +
      " ring of addresses in the cluster window (from mapa) in its shared memory; thread 0 "
      "of rank 0 follows the ring of each rank in turn, one ld.shared::cluster per hop (" +
      std::to_string(m.steps) + " hops timed with clock64, median of " + std::to_string(m.reps) +
      " launches). Bandwidth: every block of as many clusters as fit at once reads its "
      "neighbour's buffer (one-to-one) or every other rank's in turn (all-to-all), against "
      "the same reads of its own buffer with ld.shared, every SM busy.");
  s.tables.push_back(by_size_table(m));
  s.tables.push_back(by_rank_table(m));
  s.tables.push_back(bandwidth_table(m));
  s.charts.push_back(latency_chart(m));
  s.charts.push_back(bandwidth_chart(m));
  add_claims(s, "dsmem", dsmem_claims(m));
  return res;
}

}  // namespace memhier::probe
