// explain's vocabulary of findings: each kind's name, the technique that fixes it and the
// source text that teaches it, and the memhier rungs that demonstrate it with their measured
// gains from a card's results record. Host-only.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "../claims/rungs.hpp"
#include "memhier/bench/explain.hpp"
#include "memhier/claims/catalogue.hpp"

namespace memhier::bench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool finite(double v) { return std::isfinite(v); }

struct SourceText {
  const char* technique;
  const char* source;  // as claims cite it: "001 §..." parts joined by "; "
};

// The technique and the source text that teaches it, per kind.
SourceText teaching(FindingKind kind) {
  switch (kind) {
    case FindingKind::uncoalesced_global:
      return {
          "make consecutive lanes touch consecutive addresses (swap the index that follows "
          "threadIdx.x, or stage the tile through shared memory so both sides are "
          "coalesced)",
          "001 §Memory Coalescing: THE Most Important Optimization"};
    case FindingKind::shared_bank_conflicts:
      return {
          "pad the shared array by one word per row ([32][33]) or XOR-swizzle the column "
          "index, so a warp's lanes fall in different banks",
          "002 §Why Stride-33 Has No Conflicts; 002 §Swizzled Shared Memory Access"};
    case FindingKind::register_spills:
      return {
          "keep fewer values live (constant indices keep small arrays in registers) or give "
          "the kernel more registers (__launch_bounds__ with fewer blocks per SM)",
          "001 §Register Spilling: The Silent Catastrophe"};
    case FindingKind::low_occupancy:
      return {"",
              "003 §The Occupancy vs. Performance Trade-off; "
              "001 §Impact of __launch_bounds__ on a Real Kernel (Softmax, A100)"};
    case FindingKind::dram_excess:
      return {
          "reuse what was loaded: tile through shared memory or registers, and order the "
          "blocks so the working set fits in L2",
          "001 §Kernel Performance: With vs Without Shared Memory Tiling (V100); 001 §L2 Cache"};
    case FindingKind::latency_bound:
      return {
          "put more bytes in flight per thread: wider loads (float4), several independent "
          "loads before their first use, more resident warps",
          "001 §Vectorized Loads: float4"};
    case FindingKind::near_ceiling:
      return {
          "memory offers no more here: move fewer bytes (fuse with the kernels beside it, a "
          "narrower number type) or spend the effort on another kernel",
          "001 §The Optimization Hierarchy: What to Fix First"};
    case FindingKind::compute_bound:
      return {
          "fewer or cheaper operations: tensor cores (bf16, tf32) for matrix products, "
          "register tiling so each loaded value feeds several FMAs",
          "002 §GEMM Performance (A100, M=N=K=4096, FP32)"};
  }
  return {"", ""};
}

}  // namespace

const char* to_string(FindingKind kind) {
  switch (kind) {
    case FindingKind::uncoalesced_global:
      return "uncoalesced-global";
    case FindingKind::shared_bank_conflicts:
      return "shared-bank-conflicts";
    case FindingKind::register_spills:
      return "register-spills";
    case FindingKind::low_occupancy:
      return "low-occupancy";
    case FindingKind::dram_excess:
      return "dram-excess";
    case FindingKind::latency_bound:
      return "latency-bound";
    case FindingKind::near_ceiling:
      return "near-ceiling";
    case FindingKind::compute_bound:
      return "compute-bound";
  }
  return "";
}

std::string finding_source(FindingKind kind) {
  return claims::cite(teaching(kind).source);
}

const std::vector<FindingKind>& all_finding_kinds() {
  static const std::vector<FindingKind> k = {
      FindingKind::uncoalesced_global, FindingKind::shared_bank_conflicts,
      FindingKind::register_spills,    FindingKind::low_occupancy,
      FindingKind::dram_excess,        FindingKind::latency_bound,
      FindingKind::near_ceiling,       FindingKind::compute_bound};
  return k;
}

std::string finding_technique(FindingKind kind) { return teaching(kind).technique; }

std::map<FindingKind, RungGain> rung_gains(const nlohmann::json* record) {
  std::map<FindingKind, RungGain> out = {
      {FindingKind::uncoalesced_global,
       {"gemm", claims::rung(gemm::Variant::naive), claims::rung(gemm::Variant::coalesced), kNaN,
        ""}},
      {FindingKind::shared_bank_conflicts,
       {"transpose", claims::rung(transpose::Variant::tile),
        claims::rung(transpose::Variant::padded), kNaN, ""}},
      {FindingKind::low_occupancy,
       {"softmax", claims::rung(softmax::Variant::vectorized),
        claims::rung(softmax::Variant::launch_bounds), kNaN, ""}},
      {FindingKind::dram_excess,
       {"gemm", claims::rung(gemm::Variant::coalesced), claims::rung(gemm::Variant::smem_tile32),
        kNaN, ""}},
      {FindingKind::latency_bound,
       {"elementwise", claims::rung(elementwise::Variant::scalar),
        claims::rung(elementwise::Variant::float4_unroll4), kNaN, ""}},
      {FindingKind::compute_bound,
       {"gemm", claims::rung(gemm::Variant::smem_tile32), claims::rung(gemm::Variant::reg_tile_2d),
        kNaN, ""}},
  };
  if (!record || !record->is_object() || !record->contains("sections")) return out;
  for (auto& [kind, g] : out) {
    const std::string id = "bench-" + g.family;
    for (const nlohmann::json& s : (*record)["sections"]) {
      if (s.value("id", "") != id || !s.contains("tables")) continue;
      for (const nlohmann::json& t : s["tables"]) {
        if (t.value("id", "") != id || !t.contains("rows")) continue;
        // The first shape at which both rungs were timed.
        std::map<std::string, std::pair<double, double>> at;  // shape -> (from ms, to ms)
        std::vector<std::string> order;
        for (const nlohmann::json& r : t["rows"]) {
          if (!r.is_object() || !r.contains("ms") || !r["ms"].is_number()) continue;
          const std::string v = r.value("variant", ""), shape = r.value("shape", "");
          if (v != g.from && v != g.to) continue;
          if (!at.count(shape)) {
            at[shape] = {kNaN, kNaN};
            order.push_back(shape);
          }
          (v == g.from ? at[shape].first : at[shape].second) = r["ms"].get<double>();
        }
        for (const std::string& shape : order) {
          const auto [from_ms, to_ms] = at[shape];
          if (finite(from_ms) && finite(to_ms) && to_ms > 0) {
            g.gain = from_ms / to_ms;
            g.shape = shape;
            break;
          }
        }
      }
    }
  }
  return out;
}
}  // namespace memhier::bench
