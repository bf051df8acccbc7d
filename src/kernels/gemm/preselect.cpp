// The GEMM tuner's model (see memhier/kernels/gemm_preselect.hpp): tiles and waves only, so
// it ranks what the card's SM count makes of a shape and leaves the kernels' speed to timing.
#include <algorithm>
#include <cmath>

#include "memhier/kernels/gemm_preselect.hpp"

namespace memhier::gemm::tuning {
namespace {

long long ceil_div(long long a, long long b) {
  return (a + b - 1) / b;
}

bool known(const TileFacts& t) {
  return t.tile_m > 0 && t.tile_n > 0;
}

/// Predictions at least this fraction of the best one rank as equal.
constexpr double kTopBand = 0.95;

/// An efficiency in steps of 2%: predictions closer than that rank as equal.
int step(double efficiency) {
  return static_cast<int>(std::floor(efficiency * 50.0 + 1e-9));
}

long long area(const TileFacts& t) {
  return static_cast<long long>(t.tile_m) * t.tile_n;
}

}  // namespace

int split_count(long long tiles, long long slots, long long k_steps, int min_steps) {
  if (tiles <= 0 || slots <= 0) return 1;
  const long long by_k = k_steps / std::max(1, min_steps);
  return static_cast<int>(std::max(1LL, std::min({slots / tiles, by_k, 16LL})));
}

TailSplitPlan tail_split_plan(long long tiles, long long slots, long long k_steps, int min_steps,
                              long long max_rounds) {
  TailSplitPlan plan;
  if (tiles <= 0 || slots <= 0 || k_steps <= 0) return plan;
  plan.rest_tiles = tiles % slots;
  plan.whole_tiles = tiles - plan.rest_tiles;
  if (plan.whole_tiles == 0 || plan.rest_tiles == 0) return plan;
  double best = 1.0;  // the rest unsplit: one round
  for (int s = 2; s <= 16 && k_steps / s >= std::max(1, min_steps); ++s) {
    const long long rounds = ceil_div(plan.rest_tiles * s, slots);
    if (max_rounds > 0 && rounds > max_rounds) break;  // more splits only take more rounds
    const double r = static_cast<double>(rounds) / s;
    if (r < best - 0.05) {
      best = r;
      plan.splits = s;
    }
  }
  if (best > 5.0 / 6.0) plan.splits = 0;
  return plan;
}

bool edges_apply(long long m, long long n, int tile_m, int tile_n) {
  return tile_m > 0 && tile_n > 0 && m >= tile_m && n >= tile_n &&
         (m % tile_m != 0 || n % tile_n != 0);
}

std::string edges_decline(const std::string& name, long long m, long long n, int tile_m,
                          int tile_n, const std::string& whole) {
  if (edges_apply(m, n, tile_m, tile_n)) return "";
  const std::string c = "C of " + std::to_string(m) + "x" + std::to_string(n);
  const std::string tile = std::to_string(tile_m) + "x" + std::to_string(tile_n);
  if (m < tile_m || n < tile_n)
    return name + ": " + c + " holds no whole " + tile +
           " tile: the skinny and split-K candidates run it";
  return name + ": " + c + " has no ragged edge: " + whole + " runs its whole tiles";
}

double TailSplitPlan::rounds(long long slots) const {
  const double whole = slots > 0 ? static_cast<double>(whole_tiles / slots) : 0.0;
  if (rest_tiles == 0) return whole;
  if (splits < 2) return whole + 1.0;
  return whole + static_cast<double>(ceil_div(rest_tiles * splits, slots)) / splits;
}

std::vector<Prediction> predict(int m, int n, int sms, const std::vector<TileFacts>& candidates) {
  std::vector<Prediction> out;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const TileFacts& t = candidates[i];
    Prediction p;
    p.candidate = i;
    p.runs = t.blocks_per_sm > 0;
    if (known(t) && t.blocks_per_sm > 0 && sms > 0 && m > 0 && n > 0) {
      const long long cluster = std::max(1, t.cluster_m);
      // Trimmed edges: only whole tiles are tiles; the model leaves the edges' parts out.
      const long long rows = t.trims_edges ? m / t.tile_m
                                           : ceil_div(ceil_div(m, t.tile_m), cluster) * cluster;
      const long long cols = t.trims_edges ? n / t.tile_n : ceil_div(n, t.tile_n);
      p.tiles = rows * cols;
      p.slots = static_cast<long long>(sms) * t.blocks_per_sm;
      double rounds = static_cast<double>(ceil_div(p.tiles, p.slots));
      if (t.trims_edges && !edges_apply(m, n, t.tile_m, t.tile_n)) {
        p.runs = false;
        p.efficiency = 0;
        out.push_back(p);
        continue;
      }
      if (t.trims_edges || t.split_k == SplitK::tail) {
        // K's length is not the model's: only the last wave's tiles split. A tail split that
        // would not split declines; an edges candidate runs its whole tiles unsplit then.
        const TailSplitPlan plan = tail_split_plan(p.tiles, p.slots, 1LL << 40, 1, t.split_rounds);
        if (!t.trims_edges) p.runs = plan.splits > 1;
        if (plan.splits > 1) {
          p.splits = plan.splits;
          rounds = plan.rounds(p.slots);
        }
      } else if (t.split_k != SplitK::never) {  // K's length only limits how many splits
        p.splits = split_count(p.tiles, p.slots, 1LL << 40, 1);
        if (t.split_k == SplitK::always) p.runs = p.splits > 1;
        p.tiles *= p.splits;
        rounds = static_cast<double>(ceil_div(p.tiles, p.slots));
      }
      p.waves = static_cast<double>(p.tiles) / static_cast<double>(p.slots);
      p.wave_fill = p.waves / rounds;
      p.edge_fill = t.trims_edges ? 1.0
                                  : static_cast<double>(m) * n /
                                        (static_cast<double>(rows) * t.tile_m *
                                         static_cast<double>(cols) * t.tile_n);
      p.efficiency = p.wave_fill * p.edge_fill;
    }
    out.push_back(p);
  }
  // Runnable before not; known tiles before unknown; those within 5% of the best efficiency
  // as equals (a few points of wave fill weigh less than a tile's reuse: on the H200 at 8192^3
  // SGEMM's 64x64 tiles, 98.5% filled, ran at 0.66-0.79 x cuBLAS and its 128x256 and 128x128
  // tiles, 97%, at 0.87-0.93), the rest by efficiency in steps of 2% (the model is not finer
  // than that); then the larger tile, the later candidate.
  double top = 0;
  for (const Prediction& p : out)
    if (p.runs && known(candidates[p.candidate])) top = std::max(top, p.efficiency);
  const auto tier = [&](const Prediction& p) {
    return p.efficiency >= kTopBand * top ? 1 << 20 : step(p.efficiency);
  };
  const auto rank = [&](const Prediction& a, const Prediction& b) {
    const TileFacts& ta = candidates[a.candidate];
    const TileFacts& tb = candidates[b.candidate];
    if (a.runs != b.runs) return a.runs;
    if (known(ta) != known(tb)) return known(ta);
    if (tier(a) != tier(b)) return tier(a) > tier(b);
    if (area(ta) != area(tb)) return area(ta) > area(tb);
    return a.candidate > b.candidate;
  };
  std::stable_sort(out.begin(), out.end(), rank);
  return out;
}

std::vector<std::size_t> preselect(int m, int n, int sms, const std::vector<TileFacts>& candidates,
                                   const Preselect& knobs) {
  const std::vector<Prediction> ranked = predict(m, n, sms, candidates);
  // The smallest tile area among known, runnable candidates that fill at least one wave.
  long long smallest_filling = -1;
  for (const Prediction& p : ranked) {
    const TileFacts& t = candidates[p.candidate];
    if (known(t) && p.runs && p.splits == 1 && p.tiles >= p.slots &&
        (smallest_filling < 0 || area(t) < smallest_filling))
      smallest_filling = area(t);
  }
  std::vector<std::size_t> kept, unknown;
  double best = -1;
  for (const Prediction& p : ranked) {
    const TileFacts& t = candidates[p.candidate];
    if (t.blocks_per_sm <= 0 || (known(t) && !p.runs)) continue;
    if (!known(t)) {
      unknown.push_back(p.candidate);
      continue;
    }
    // Under one wave while a smaller tile fills the card: SMs idle for nothing.
    if (p.splits == 1 && p.tiles < p.slots && smallest_filling >= 0 &&
        smallest_filling < area(t))
      continue;
    if (best < 0) best = p.efficiency;
    if (kept.size() >= 2 && p.efficiency < knobs.keep_within * best) continue;
    kept.push_back(p.candidate);
  }
  // Round robin over tile shapes, in rank order: the first candidates timed are each shape's
  // most promising kernel, since the model cannot tell kernels of one tile apart.
  std::vector<std::vector<std::size_t>> shapes;
  for (std::size_t c : kept) {
    auto same = [&](const std::vector<std::size_t>& g) {
      const TileFacts& f = candidates[g.front()];
      return f.tile_m == candidates[c].tile_m && f.tile_n == candidates[c].tile_n &&
             f.split_k == candidates[c].split_k;
    };
    auto g = std::find_if(shapes.begin(), shapes.end(), same);
    if (g == shapes.end())
      shapes.push_back({c});
    else
      g->push_back(c);
  }
  std::vector<std::size_t> out;
  for (std::size_t round = 0; out.size() < kept.size(); ++round)
    for (const auto& g : shapes)
      if (round < g.size()) out.push_back(g[round]);
  for (std::size_t u : unknown) out.push_back(u);
  if (out.size() > knobs.top_k) out.resize(std::max<std::size_t>(knobs.top_k, 1));
  return out;
}

}  // namespace memhier::gemm::tuning
