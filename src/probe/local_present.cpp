// The local-memory probe's section from its measurement: the two streams, their ratio, the
// claim judged and the summary's local bandwidth. No CUDA.
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/local.hpp"

namespace memhier::probe {
namespace {

using report::Value;

report::Table streams_table(const LocalResult& m) {
  report::Table t;
  t.id = "local-memory";
  t.title = "A per-thread array streamed through local memory and through global memory";
  t.columns = {{"memory", "", "memory"},
               {"footprint", "B", "footprint_bytes"},
               {"median", "ms", "median_ms"},
               {"bandwidth", "GB/s", "gbps"}};
  const auto footprint = static_cast<std::int64_t>(m.footprint_bytes());
  t.rows.push_back({Value::str("local (dynamically indexed array)"), Value::integer(footprint),
                    Value::num(m.local_ms, 3), Value::num(m.local_gbps, 0)});
  t.rows.push_back({Value::str("global (the same layout and loop)"), Value::integer(footprint),
                    Value::num(m.global_ms, 3), Value::num(m.global_gbps, 0)});
  t.notes.push_back("Bandwidth counts every byte written and read back (" +
                    fmt_mib(m.bytes_per_launch) + " a launch). The kernel's local size is " +
                    std::to_string(m.local_bytes) + " B per thread (cudaFuncGetAttributes) for a " +
                    std::to_string(m.array_bytes) + "-byte array.");
  t.notes.push_back("Local over global: " + fmt(m.local_over_global, 2) +
                    "x the speed (paired median; p10 " + fmt(m.p10, 2) + ", p90 " + fmt(m.p90, 2) +
                    ").");
  if (!m.unmeasured.empty()) t.notes.push_back("n/a: " + m.unmeasured + ".");
  return t;
}

ClaimRow bandwidth_claim(const LocalResult& m) {
  if (!m.unmeasured.empty())
    return {ClaimId::local_bandwidth_3350, "n/a", not_measurable(m.unmeasured)};
  ClaimRow r{ClaimId::local_bandwidth_3350,
             fmt(m.local_gbps) + " GB/s through local memory, " + fmt(m.global_gbps) +
                 " GB/s for the same stream through global memory (" + fmt(m.local_over_global, 2) +
                 "x), " + fmt_mib(m.footprint_bytes()) + " in all",
             judged(m.local_gbps, Claimed::value(3350, "GB/s"),
                    claims::band(ClaimId::local_bandwidth_3350))};
  // 3.35 TB/s is the H100's whole datasheet peak: on the card that runs, a share of its own.
  r.share = {m.local_gbps, 1.0, 1.0, "the H100's 3,350 GB/s"};
  return r;
}

}  // namespace

Result present_local(const LocalResult& m) {
  Result res;
  report::Section& s = res.section;
  s.id = "local-memory";
  s.title = "Local memory: a spilled array streamed";
  const double per_sm = m.sm_count > 0 ? m.footprint_bytes() / m.sm_count : NAN;
  s.paragraphs.push_back(
      "Every resident thread (" + std::to_string(m.threads) + ", every SM full) writes its own " +
      std::to_string(m.array_bytes) +
      "-byte array, then reads it back in the same order, at indices rotated by a run-time "
      "value: dynamic indexing, so the compiler must place the array in local memory (the "
      "kernel's local size says it did). Between a word's write and its read every thread of "
      "the SM writes its whole array: " +
      fmt_mib(per_sm) + " per SM against L1's few hundred KiB, " + fmt_mib(m.footprint_bytes()) +
      " in all, " + fmt(m.footprint_bytes() / static_cast<double>(m.l2_bytes), 0) +
      "x the L2. So the reads miss L1 and L2 and the written lines go back to DRAM: this "
      "measures local memory streaming from HBM, not local hits in L1 (the latency probe times "
      "those). The twin runs the same loop on a global buffer with local memory's layout (word "
      "k of thread t at k x threads + t, so a warp's access is 128 contiguous bytes in both); "
      "the two are timed alternately (paired).");
  s.tables.push_back(streams_table(m));
  add_claims(s, "local-memory", {bandwidth_claim(m)});
  if (m.unmeasured.empty()) {
    TierFigure f;
    f.tier = "local";
    f.bandwidth_gbps = m.local_gbps;
    f.bandwidth_method = "probe local-memory: a " + std::to_string(m.array_bytes) +
                         "-byte per-thread array written and read back, beyond L2";
    res.tiers.push_back(f);
  }
  return res;
}

}  // namespace memhier::probe
