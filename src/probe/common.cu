#include <algorithm>
#include <numeric>
#include <random>

#include "common.cuh"

namespace memhier::probe {
std::vector<std::uint32_t> make_ring(std::size_t slots, std::size_t stride_bytes, std::uint32_t seed) {
  const std::size_t words_per_slot = stride_bytes / 4;
  std::vector<std::uint32_t> order(slots);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937 rng(seed);
  std::shuffle(order.begin() + 1, order.end(), rng);  // slot 0 starts the ring
  std::vector<std::uint32_t> mem(slots * words_per_slot, 0);
  for (std::size_t i = 0; i < slots; ++i) {
    const std::size_t from = order[i], to = order[(i + 1) % slots];
    mem[from * words_per_slot] = static_cast<std::uint32_t>(to * stride_bytes);
  }
  return mem;
}

report::Table claims_table(const std::string& probe_name, const std::vector<ClaimRow>& rows) {
  report::Table t;
  t.id = probe_name + "-claims";
  t.title = "Claims against this card";
  t.columns = {{"source", "", "source"},
               {"claim", "", "claim"},
               {"measured here", "", "measured"},
               {"verdict", "", "verdict"}};
  for (const ClaimRow& r : rows)
    t.rows.push_back({report::Value::str(r.source), report::Value::str(r.claim),
                      report::Value::str(r.measured), report::Value::str(r.verdict)});
  return t;
}

}  // namespace memhier::probe
