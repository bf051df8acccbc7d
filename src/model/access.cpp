// The cost rules for one warp instruction. Every rule the hardware might refine
// (phases, broadcast, sector granularity) lives here and nowhere else.
#include "memhier/model/access.hpp"

#include <algorithm>
#include <set>
#include <vector>

namespace memhier::model {
namespace {

constexpr int kBanks = 32;
constexpr std::uint64_t kBankWidth = 4;
constexpr std::uint64_t kSectorBytes = 32;
constexpr std::uint64_t kLineBytes = 128;

// Lanes served together: the whole warp up to 4 bytes, half-warps for 8-byte
// accesses, quarter-warps for 16-byte accesses (each phase moves at most 128 bytes).
int lanes_per_phase(int width_bytes) {
  if (width_bytes == 16) return 8;
  if (width_bytes == 8) return 16;
  return 32;
}

}  // namespace

bool valid_width(int w) { return w == 1 || w == 2 || w == 4 || w == 8 || w == 16; }

SharedCost shared_cost(const WarpAccess& w) {
  SharedCost c;
  c.lane_bank.fill(-1);
  c.bank_words.fill(0);
  const int per_phase = lanes_per_phase(w.width_bytes);
  c.phases = kWarpSize / per_phase;
  const std::uint64_t width = static_cast<std::uint64_t>(std::max(w.width_bytes, 1));

  for (int phase = 0; phase < c.phases; ++phase) {
    // Distinct 32-bit words per bank in this phase: lanes on the same word share it.
    std::vector<std::set<std::uint64_t>> words(kBanks);
    bool any = false;
    for (int lane = phase * per_phase; lane < (phase + 1) * per_phase; ++lane) {
      if (!w.active(lane)) continue;
      any = true;
      const std::uint64_t first = w.address[lane] / kBankWidth;
      const std::uint64_t last = (w.address[lane] + width - 1) / kBankWidth;
      c.lane_bank[lane] = static_cast<int>(first % kBanks);
      for (std::uint64_t word = first; word <= last; ++word) words[word % kBanks].insert(word);
    }
    if (!any) continue;
    int worst = 0;
    for (int b = 0; b < kBanks; ++b) {
      const int n = static_cast<int>(words[b].size());
      worst = std::max(worst, n);
      c.bank_words[b] = std::max(c.bank_words[b], n);
    }
    c.wavefronts += worst;
    c.ideal_wavefronts += 1;
    c.degree = std::max(c.degree, worst);
  }
  c.conflicts = c.wavefronts - c.ideal_wavefronts;
  return c;
}

GlobalCost global_cost(const WarpAccess& w) {
  GlobalCost c;
  std::set<std::uint64_t> sectors, lines, bytes;
  const std::uint64_t width = static_cast<std::uint64_t>(std::max(w.width_bytes, 1));
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!w.active(lane)) continue;
    const std::uint64_t a = w.address[lane];
    for (std::uint64_t s = a / kSectorBytes; s <= (a + width - 1) / kSectorBytes; ++s)
      sectors.insert(s);
    for (std::uint64_t l = a / kLineBytes; l <= (a + width - 1) / kLineBytes; ++l) lines.insert(l);
    for (std::uint64_t b = a; b < a + width; ++b) bytes.insert(b);
  }
  if (sectors.empty()) return c;
  c.requests = 1;
  c.sectors = static_cast<int>(sectors.size());
  c.lines = static_cast<int>(lines.size());
  c.bytes_needed = static_cast<int>(bytes.size());
  c.ideal_sectors = static_cast<int>((bytes.size() + kSectorBytes - 1) / kSectorBytes);
  c.sectors_per_request = static_cast<double>(c.sectors) / c.requests;
  c.caching_utilization =
      static_cast<double>(c.bytes_needed) / static_cast<double>(c.lines * kLineBytes);
  c.noncaching_utilization =
      static_cast<double>(c.bytes_needed) / static_cast<double>(c.sectors * kSectorBytes);
  return c;
}

}  // namespace memhier::model
