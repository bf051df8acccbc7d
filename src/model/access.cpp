// The cost rules for one warp instruction. Every rule the hardware might refine
// (phases, broadcast, sector granularity) lives here and nowhere else.
#include "memhier/model/access.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
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

// Phases a load may merge into one wavefront: the whole warp for 8-byte accesses, each
// half-warp for 16-byte ones (1 for narrower accesses, already one phase).
int phases_per_merge_group(int width_bytes) { return width_bytes == 8 || width_bytes == 16 ? 2 : 1; }

SharedCost shared_cost(const WarpAccess& w) {
  SharedCost c;
  c.lane_bank.fill(-1);
  c.bank_words.fill(0);
  const int per_phase = lanes_per_phase(w.width_bytes);
  c.phases = kWarpSize / per_phase;
  const std::uint64_t width = static_cast<std::uint64_t>(std::max(w.width_bytes, 1));

  // Distinct 32-bit words per bank in each phase: lanes on the same word share it.
  std::vector<std::vector<std::set<std::uint64_t>>> words(c.phases,
                                                          std::vector<std::set<std::uint64_t>>(kBanks));
  std::vector<int> worst(c.phases, 0);
  for (int phase = 0; phase < c.phases; ++phase) {
    for (int lane = phase * per_phase; lane < (phase + 1) * per_phase; ++lane) {
      if (!w.active(lane)) continue;
      const std::uint64_t first = w.address[lane] / kBankWidth;
      const std::uint64_t last = (w.address[lane] + width - 1) / kBankWidth;
      c.lane_bank[lane] = static_cast<int>(first % kBanks);
      for (std::uint64_t word = first; word <= last; ++word) words[phase][word % kBanks].insert(word);
    }
    for (int b = 0; b < kBanks; ++b) {
      const int n = static_cast<int>(words[phase][b].size());
      worst[phase] = std::max(worst[phase], n);
      c.bank_words[b] = std::max(c.bank_words[b], n);
    }
  }
  // Loads only (measured on an H100 with ncu): the phases of a merge group share one
  // wavefront when no bank serves more than one of them a word (double d[lane/2], float4
  // v[lane/4]), or when every lane of the group reads one and the same address (a
  // broadcast). Phases that read the same words otherwise do not merge: quarter-warps
  // that each read the same 64 or 128 bytes (the GEMM B fragments, float4 v[lane%8]) take
  // a wavefront each. Stores never merge.
  const int group = w.is_store ? 1 : phases_per_merge_group(w.width_bytes);
  for (int g = 0; g < c.phases; g += group) {
    int active = 0, sum = 0;
    for (int phase = g; phase < g + group; ++phase) {
      if (worst[phase] == 0) continue;  // a phase with no active lane costs nothing
      ++active;
      sum += worst[phase];
    }
    if (active == 0) continue;
    bool merge = false;
    if (active > 1) {
      bool disjoint = true;  // every bank serves at most one word to one phase
      for (int b = 0; b < kBanks && disjoint; ++b) {
        std::size_t n = 0;
        for (int phase = g; phase < g + group; ++phase) n += words[phase][b].size();
        disjoint = n <= 1;
      }
      std::set<std::uint64_t> addresses;
      for (int lane = g * per_phase; lane < (g + group) * per_phase; ++lane)
        if (w.active(lane)) addresses.insert(w.address[lane]);
      merge = disjoint || addresses.size() == 1;
    }
    if (merge) {
      c.wavefronts += 1;
      c.ideal_wavefronts += 1;
      c.degree = std::max(c.degree, 1);
    } else {
      c.wavefronts += sum;
      c.ideal_wavefronts += active;
      for (int phase = g; phase < g + group; ++phase) c.degree = std::max(c.degree, worst[phase]);
    }
  }
  c.conflicts = c.wavefronts - c.ideal_wavefronts;
  return c;
}

SharedCost ldmatrix_cost(const WarpAccess& w, int matrices) {
  if (matrices != 1 && matrices != 2 && matrices != 4)
    throw std::invalid_argument("ldmatrix reads 1, 2 or 4 matrices");
  if (w.width_bytes != 16) throw std::invalid_argument("ldmatrix rows are 16 bytes");
  // Each matrix alone as a 16-byte load of its 8 lanes: one quarter-warp phase, so the
  // load rules above give its wavefronts with nothing to merge it with.
  SharedCost c;
  c.lane_bank.fill(-1);
  c.bank_words.fill(0);
  c.phases = matrices;
  for (int j = 0; j < matrices; ++j) {
    WarpAccess one = w;
    one.is_store = false;
    one.active_mask = 0xffu << (8 * j);
    const SharedCost m = shared_cost(one);
    c.wavefronts += m.wavefronts;
    c.ideal_wavefronts += m.ideal_wavefronts;
    c.degree = std::max(c.degree, m.degree);
    for (int lane = 8 * j; lane < 8 * j + 8; ++lane) c.lane_bank[lane] = m.lane_bank[lane];
    for (int b = 0; b < kBanks; ++b) c.bank_words[b] = std::max(c.bank_words[b], m.bank_words[b]);
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

void AccessCounts::add_shared(const WarpAccess& w) {
  if (w.active_mask == 0) return;
  const SharedCost c = shared_cost(w);
  if (w.is_store) {
    ++shared_st_instructions;
    shared_st_wavefronts += c.wavefronts;
    shared_st_ideal += c.ideal_wavefronts;
  } else {
    ++shared_ld_instructions;
    shared_ld_wavefronts += c.wavefronts;
    shared_ld_ideal += c.ideal_wavefronts;
  }
}

void AccessCounts::add_ldmatrix(const WarpAccess& w, int matrices) {
  const SharedCost c = ldmatrix_cost(w, matrices);
  ++shared_ld_instructions;
  shared_ld_wavefronts += c.wavefronts;
  shared_ld_ideal += c.ideal_wavefronts;
}

void AccessCounts::add_global(const WarpAccess& w) {
  if (w.active_mask == 0) return;
  const GlobalCost c = global_cost(w);
  if (w.is_store) {
    global_st_requests += c.requests;
    global_st_sectors += c.sectors;
  } else {
    global_ld_requests += c.requests;
    global_ld_sectors += c.sectors;
  }
}

AccessCounts& AccessCounts::operator+=(const AccessCounts& o) {
  shared_ld_instructions += o.shared_ld_instructions;
  shared_st_instructions += o.shared_st_instructions;
  shared_ld_wavefronts += o.shared_ld_wavefronts;
  shared_st_wavefronts += o.shared_st_wavefronts;
  shared_ld_ideal += o.shared_ld_ideal;
  shared_st_ideal += o.shared_st_ideal;
  global_ld_requests += o.global_ld_requests;
  global_ld_sectors += o.global_ld_sectors;
  global_st_requests += o.global_st_requests;
  global_st_sectors += o.global_st_sectors;
  return *this;
}

}  // namespace memhier::model
