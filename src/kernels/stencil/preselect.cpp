// The stencil tuner's model (memhier/kernels/stencil_tuning.hpp): host-only, no CUDA.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "memhier/kernels/stencil_tuning.hpp"

namespace memhier::stencil::tuning {

std::vector<Prediction> predict(int rows, int cols, int k, const Card& card,
                                const std::vector<Config>& candidates,
                                const std::vector<int>& blocks_per_sm) {
  std::vector<Prediction> out;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Config& c = candidates[i];
    Prediction p;
    p.candidate = i;
    const int occ = i < blocks_per_sm.size() ? blocks_per_sm[i] : 0;
    const bool fits = card.smem_per_block <= 0 || c.smem_bytes(k) <= card.smem_per_block;
    p.blocks_per_sm = fits ? std::min(occ, std::max(c.min_blocks, 1)) : 0;
    const long long tile_h = c.tile_h();
    p.tiles = ((static_cast<long long>(rows) + tile_h - 1) / tile_h) *
              ((static_cast<long long>(cols) + kTileW - 1) / kTileW);
    if (p.blocks_per_sm <= 0 || card.sms <= 0) {
      p.efficiency = 0;
      out.push_back(p);
      continue;
    }
    // One block per tile (stages 1) or a persistent grid (stages 2): either way the tiles
    // go out in rounds of all resident blocks, and the last round may be part full.
    const double slots = static_cast<double>(card.sms) * p.blocks_per_sm;
    const double rounds = std::ceil(static_cast<double>(p.tiles) / slots);
    p.wave_fill = static_cast<double>(p.tiles) / (rounds * slots);
    p.edge_fill = static_cast<double>(rows) * static_cast<double>(cols) /
                  (static_cast<double>(p.tiles) * static_cast<double>(tile_h) * kTileW);
    p.halo = static_cast<double>(tile_h) / static_cast<double>(tile_h + k - 1);
    if (card.inflight_needed_per_sm > 0) {
      // A single-buffered block has its fill in flight only while it is not computing; a
      // double-buffered one always has the next tile's. Heavier filters compute longer.
      const double fill_share = c.stages >= 2 ? 1.0 : 3.0 / (3.0 + k);
      const double inflight = p.blocks_per_sm * c.fill_bytes(k) * fill_share;
      p.inflight = std::min(1.0, inflight / card.inflight_needed_per_sm);
    }
    p.efficiency = p.wave_fill * p.edge_fill * p.halo * p.inflight;
    out.push_back(p);
  }
  const auto rank = [](const Prediction& a, const Prediction& b) {
    const double ea = std::floor(a.efficiency / 0.02), eb = std::floor(b.efficiency / 0.02);
    if (ea != eb) return ea > eb;
    return a.candidate < b.candidate;
  };
  std::stable_sort(out.begin(), out.end(), rank);
  return out;
}

std::vector<std::size_t> preselect(int rows, int cols, int k, const Card& card,
                                   const std::vector<Config>& candidates,
                                   const std::vector<int>& blocks_per_sm, std::size_t top_k,
                                   double keep_within) {
  std::vector<std::size_t> out;
  double best = -1;
  for (const Prediction& p : predict(rows, cols, k, card, candidates, blocks_per_sm)) {
    if (p.efficiency <= 0) continue;
    if (best < 0) best = p.efficiency;
    if (out.size() >= 2 && p.efficiency < keep_within * best) continue;
    out.push_back(p.candidate);
  }
  if (out.size() > std::max<std::size_t>(top_k, 2)) out.resize(std::max<std::size_t>(top_k, 2));
  return out;
}

std::string shape_text(int rows, int cols, int k, int align_in, int align_out) {
  char text[96];
  std::snprintf(text, sizeof text, "%dx%d:%d a%d,%d", rows, cols, k, std::min(align_in, 16),
                std::min(align_out, 16));
  return text;
}

}  // namespace memhier::stencil::tuning
