// The "tma" probe's section from its measurements: bandwidth by method, chunk and stages
// (tables and charts), stores, multicast, the edge and swizzle checks, and the claims. No
// CUDA: numbers in, a report section out.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/tma.hpp"

namespace memhier::probe {
namespace {

using report::Value;

report::Table rate_table(const std::string& id, const std::string& title,
                         const std::vector<TmaRate>& rates, double sm_bytes, double chip_bytes) {
  report::Table t;
  t.id = id;
  t.title = title;
  t.caption =
      "chunk: bytes a block moves per stage (one copy instruction for cp.async.bulk and "
      "the tensor box; 16 bytes per thread otherwise); in flight: chunk x stages, per "
      "block and so per SM. One SM: a single block, its source flushed out of L2 first (" +
      fmt_bytes(sm_bytes) + " at most); all SMs: one block per SM streaming " +
      fmt_bytes(chip_bytes) + " from HBM.";
  t.columns = {{"method", "", "method"},      {"chunk", "KiB", "chunk_kib"},
               {"stages", "", "stages"},      {"in flight", "KiB/SM", "in_flight_kib"},
               {"one SM", "GB/s", "sm_gbps"}, {"all SMs", "GB/s", "chip_gbps"},
               {"verified", "", "verified"}};
  for (const TmaRate& r : rates) {
    t.rows.push_back({Value::str(r.method), Value::num(r.chunk_bytes / 1024.0, 0),
                      Value::integer(r.stages), Value::num(r.chunk_bytes * r.stages / 1024.0, 0),
                      Value::num(r.sm_gbps, 1), Value::num(r.chip_gbps, 0),
                      Value::str(r.verified ? "yes" : "NO")});
    if (!r.verified)
      t.notes.push_back("VERIFICATION FAILED for " + r.method + " at " + fmt_bytes(r.chunk_bytes) +
                        " x " + std::to_string(r.stages) + ": its figures are not valid.");
  }
  return t;
}

/// GB/s against bytes in flight per SM, one line per method.
report::Chart rate_chart(const std::string& id, const std::string& title,
                         const std::vector<TmaRate>& rates, bool chip) {
  report::Chart c;
  c.id = id;
  c.title = title;
  c.kind = report::Chart::Kind::line;
  c.x_label = "bytes in flight per SM";
  c.x_unit = "B";
  c.y_label = chip ? "all SMs" : "one SM";
  c.y_unit = "GB/s";
  c.log_x = true;
  std::vector<std::string> methods;
  for (const TmaRate& r : rates)
    if (std::find(methods.begin(), methods.end(), r.method) == methods.end())
      methods.push_back(r.method);
  for (const std::string& m : methods) {
    std::vector<std::pair<double, double>> points;
    for (const TmaRate& r : rates)
      if (r.method == m)
        points.push_back({double(r.chunk_bytes) * r.stages, chip ? r.chip_gbps : r.sm_gbps});
    // Several (chunk, stages) pairs share a total in flight: the best of them.
    std::sort(points.begin(), points.end());
    report::Series s;
    s.name = m;
    for (const auto& [x, y] : points) {
      if (!s.x.empty() && s.x.back() == x) {
        s.y.back() = std::max(s.y.back(), y);
        continue;
      }
      s.x.push_back(x);
      s.y.push_back(y);
    }
    c.series.push_back(std::move(s));
  }
  return c;
}

report::Table multicast_table(const TmaResult& m) {
  report::Table t;
  t.id = "tma-multicast";
  t.title = "TMA multicast to a cluster against separate loads";
  t.caption = "Every block of a cluster streams the same 16 KiB tiles of a " +
              fmt_bytes(m.multicast.empty() ? 0 : m.multicast.front().working_set_bytes) +
              " L2-resident set, four stages in flight and a cluster barrier per tile. GB/s: "
              "bytes landing in shared memory, summed over blocks; L2 serves each tile once per "
              "block (separate) or once per cluster (multicast).";
  t.columns = {{"cluster", "blocks", "cluster"},       {"blocks", "", "blocks"},
               {"separate", "GB/s", "separate_gbps"},  {"multicast", "GB/s", "multicast_gbps"},
               {"multicast / separate", "x", "ratio"}, {"verified", "", "verified"}};
  for (const TmaMulticast& r : m.multicast)
    t.rows.push_back({Value::integer(r.cluster), Value::integer(r.blocks),
                      Value::num(r.separate_gbps, 0), Value::num(r.multicast_gbps, 0),
                      Value::num(r.multicast_gbps / r.separate_gbps, 2),
                      Value::str(r.verified ? "yes" : "NO")});
  for (const TmaMulticast& r : m.multicast)
    if (r.blocks == 0)
      t.notes.push_back("No cluster of " + std::to_string(r.cluster) +
                        " blocks fits this device with 64 KiB of shared memory each.");
  return t;
}

report::Table edges_table(const TmaResult& m) {
  report::Table t;
  t.id = "tma-edges";
  t.title = "What the copy engine does at a tensor's edges and in shared memory";
  t.caption =
      "A 32 x 32 box at column 40, row 20 of a 37 x 53 tensor (row pitch 64 floats): "
      "a load must bring the tensor's elements and zeros outside it (the pitch's padding "
      "columns included), a store must write only inside it; a store's writes past the last "
      "column but inside that row's last 16-byte chunk (padding, since a row pitch is a "
      "multiple of 16 bytes) are counted apart. A 16 x 32 box loaded with "
      "the 128-byte swizzle: each word must sit at its 16-byte chunk XOR its row mod 8.";
  t.columns = {{"check", "", "check"}, {"elements", "", "checked"}, {"wrong", "", "wrong"}};
  t.rows = {
      {Value::str("load across the corner"), Value::integer(static_cast<long long>(m.oob_checked)),
       Value::integer(static_cast<long long>(m.oob_load_wrong))},
      {Value::str("store across the corner (whole buffer checked)"),
       Value::integer(static_cast<long long>(m.oob_store_checked)),
       Value::integer(static_cast<long long>(m.oob_store_wrong))},
      {Value::str("store: written past the last column, inside its 16-byte chunk"),
       Value::integer(static_cast<long long>(m.oob_store_checked)),
       Value::integer(static_cast<long long>(m.oob_store_chunk_spill))},
      {Value::str("128-byte swizzle"), Value::integer(static_cast<long long>(m.swizzle_checked)),
       Value::integer(static_cast<long long>(m.swizzle_wrong))}};
  return t;
}

/// The best all-SM figure of `method` over every chunk and stage count; NaN if none verified.
double best_chip(const TmaResult& m, const std::string& method) {
  double best = NAN;
  for (const TmaRate& r : m.loads)
    if (r.method == method && r.verified && !(r.chip_gbps <= best)) best = r.chip_gbps;
  return best;
}

std::vector<ClaimRow> claims(const TmaResult& m) {
  std::vector<ClaimRow> rows;
  const std::string why = m.unsupported.empty() ? "no figure was measured" : m.unsupported;
  {
    ClaimRow r{ClaimId::tma_hopper_adds_bulk_copies, "", {}};
    int verified = 0;
    std::string text;
    for (const std::string& method :
         {tma_load_methods()[1], tma_load_methods()[2], tma_load_methods()[3]}) {
      bool any = false, all = true;
      for (const TmaRate& x : m.loads)
        if (x.method == method) any = true, all = all && x.verified;
      if (any && all) ++verified;
      text += (text.empty() ? "" : "; ") + method + ": " +
              (any ? (all ? "verified" : "FAILED") : "not run");
    }
    r.measured = m.loads.empty() ? "n/a" : text;
    r.set(judged(m.loads.empty() ? NAN : static_cast<double>(verified),
                 Claimed::value(3, "of 3 copy instructions"),
                 claims::band(ClaimId::tma_hopper_adds_bulk_copies), why));
    rows.push_back(r);
  }
  {
    ClaimRow r{ClaimId::tma_offloads_addressing, "", {}};
    const double tensor = best_chip(m, tma_load_methods()[3]);
    const double threads = best_chip(m, tma_load_methods()[0]);
    const double ratio = tensor / threads;
    r.measured = std::isfinite(ratio)
                     ? "best all-SM rate, one issuing thread per block (2-D tensor boxes): " +
                           fmt(tensor, 0) +
                           " GB/s; 256 threads computing every address "
                           "(ld.global.v4 + st.shared): " +
                           fmt(threads, 0) + " GB/s; " + strf("%.2fx", ratio)
                     : "n/a";
    r.set(judged(ratio, Claimed::value(1, "x the threads' own copies"),
                 claims::band(ClaimId::tma_offloads_addressing), why));
    rows.push_back(r);
  }
  const bool edges = m.oob_checked > 0;
  const double load_wrong = edges ? double(m.oob_load_wrong) : NAN;
  const double store_wrong = edges ? double(m.oob_store_wrong) : NAN;
  const double swz_wrong = m.swizzle_checked > 0 ? double(m.swizzle_wrong) : NAN;
  const std::string edge_text =
      edges ? std::to_string(m.oob_load_wrong) + " of " + std::to_string(m.oob_checked) +
                  " loaded elements wrong, " + std::to_string(m.oob_store_wrong) +
                  " stored elements wrong (" + std::to_string(m.oob_store_chunk_spill) +
                  " more written past the last column inside its 16-byte chunk)"
            : "n/a";
  const Figure load{"loaded elements wrong", load_wrong, Claimed::value(0, "elements"),
                    Tolerance::inside_range()};
  const Figure store{"stored elements wrong", store_wrong, Claimed::value(0, "elements"),
                     Tolerance::inside_range()};
  rows.push_back({ClaimId::tma_tile_one_instruction_bounds,
                  edge_text + " (one instruction each way)", judged_all({load, store}, why)});
  rows.push_back({ClaimId::tma_swizzle_oob_in_hardware,
                  (m.swizzle_checked > 0
                       ? std::to_string(m.swizzle_wrong) + " of " +
                             std::to_string(m.swizzle_checked) + " swizzled words misplaced; "
                       : std::string("n/a; ")) +
                      edge_text,
                  judged_all({{"swizzled words misplaced", swz_wrong, Claimed::value(0, "words"),
                               Tolerance::inside_range()},
                              load,
                              store},
                             why)});
  return rows;
}

}  // namespace

Result present_tma(const TmaResult& m) {
  Result out;
  report::Section& s = out.section;
  s.id = "tma";
  s.title = "TMA and bulk copies: filling shared memory";
  s.paragraphs.push_back(
      "Four ways to move global memory into shared memory: every thread loads 16 bytes and "
      "stores them (ld.global.v4 + st.shared), cp.async of 16 bytes per thread, one "
      "cp.async.bulk per chunk, or one cp.async.bulk.tensor 2-D box per chunk (64 floats by "
      "chunk/256 rows of a 32 KiB-pitch matrix). The last two are issued by one thread: the "
      "Tensor Memory Accelerator computes the addresses. A block of 256 threads keeps 1-4 "
      "chunks in flight; each block sums one word per thread and chunk, checked against plain "
      "loads of the same words.");
  if (!m.unsupported.empty()) {
    s.paragraphs.push_back("Not measured: " + m.unsupported);
    add_claims(s, "tma", claims(m));
    return out;
  }
  s.paragraphs.push_back(
      strf("Issue slots per 16 KiB: each method also runs once at 16 KiB x 2 stages on every SM "
           "inside the NVTX range 'tma issue slots' (kernels tma_probe_load and tma_probe_store), "
           "each launch moving %.0f chunks of 16 KiB, so that Nsight Compute counts what the SMs "
           "issued for it: ncu --nvtx --nvtx-include \"tma issue slots/\" --metrics "
           "smsp__inst_issued.sum memhier probe --only tma --quick, then each launch's count over "
           "%.0f.",
           m.profile_chunks, m.profile_chunks));
  s.tables.push_back(rate_table("tma-loads", "Global to shared memory, by method, chunk and stages",
                                m.loads, m.sm_bytes, m.chip_bytes));
  s.charts.push_back(
      rate_chart("tma-loads-chip", "Global to shared, every SM busy", m.loads, true));
  s.charts.push_back(rate_chart("tma-loads-sm", "Global to shared, one SM alone", m.loads, false));
  s.tables.push_back(rate_table("tma-stores",
                                "Shared to global memory: thread stores against bulk stores",
                                m.stores, m.sm_bytes, m.chip_bytes));
  s.tables.push_back(multicast_table(m));
  s.tables.push_back(edges_table(m));
  add_claims(s, "tma", claims(m));
  return out;
}

}  // namespace memhier::probe
