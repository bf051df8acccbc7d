// The GEMM tuner's model, host-only (no CUDA): which candidates are worth timing at a shape,
// from their block tiles and how many of their blocks this card's SMs hold (the tuner reads
// the SM count and the occupancy from the device; the CPU tests pass them as data). How often
// to time them is every tuned family's: memhier/kernels/tuning_budget.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace memhier::gemm::tuning {

/// Whether a candidate splits K over the slots its tiles leave idle (split_count).
enum class SplitK {
  never,       ///< one block a tile
  always,      ///< only where split_count splits; it declines every other shape
  where_idle,  ///< where split_count splits; elsewhere it runs its tiles unsplit
  tail,        ///< whole waves unsplit, the rest split to fill its waves (tail_split_plan)
};

/// What the model knows of one candidate on this card.
struct TileFacts {
  int tile_m = 0, tile_n = 0;  ///< its block tile of C; 0: unknown (ranked after the known)
  int blocks_per_sm = 1;       ///< its blocks resident on one SM; 0: it cannot run here
  int cluster_m = 1;           ///< tile rows one cluster spans (tiles come in whole clusters)
  SplitK split_k = SplitK::never;
  int split_rounds = 0;  ///< SplitK::tail: the most rounds its splits may take (0: any)
  /// Runs only C's whole tiles as tiles (tail-split where that pays) and its ragged last rows
  /// and columns as parts of their own: no tile is spent on an edge, and C without a whole
  /// tile or without a ragged edge is not its to run.
  bool trims_edges = false;
};

/// How many ways a split-K kernel splits K at a shape with `tiles` tiles on a card holding
/// `slots` of its blocks at once: as many as keep one wave (slots / tiles), with at least
/// `min_steps` of its `k_steps` k-blocks a split, at most 16; 1 means it would not split (the
/// tiles fill more than half the card, or K is too short): a SplitK::always kernel declines,
/// a SplitK::where_idle one runs unsplit.
int split_count(long long tiles, long long slots, long long k_steps, int min_steps);

/// How a tail-split kernel runs `tiles` tiles of `k_steps` k-steps each on a card holding `slots`
/// of its blocks at once: the tiles of whole waves a block each, then the rest, too few for a
/// full last wave, each split `splits` ways so that the splits fill their waves: of 2 to 16,
/// the fewest splits whose rounds (ceil(rest x splits / slots) / splits) are at least 5% of a
/// round below those of fewer, each split at least `min_steps` k-steps, their rounds at most
/// `max_rounds` (0: any). splits == 0: it declines (under one wave, which the split-K tiles
/// run; whole waves; or no split saving a sixth of the last round).
struct TailSplitPlan {
  long long whole_tiles = 0;  ///< tiles of the whole waves, a block each
  long long rest_tiles = 0;   ///< the tiles after them
  int splits = 0;             ///< ways each rest tile splits K; 0: the kernel declines
  /// Rounds of tile time: whole waves plus the rest's (one round unsplit).
  double rounds(long long slots) const;
};
TailSplitPlan tail_split_plan(long long tiles, long long slots, long long k_steps, int min_steps,
                              long long max_rounds = 0);

/// Whether a trims_edges candidate runs C of m x n with its tile_m x tile_n tile: C holds a
/// whole tile and has a ragged edge (rows or columns past its whole tiles).
bool edges_apply(long long m, long long n, int tile_m, int tile_n);

/// The sentence a trims_edges candidate `name` declines m x n with where edges_apply is false
/// ("" where it is true); `whole` names the candidate that runs C of whole tiles.
std::string edges_decline(const std::string& name, long long m, long long n, int tile_m,
                          int tile_n, const std::string& whole);

/// One candidate's predicted efficiency at a shape, each factor in (0, 1].
struct Prediction {
  std::size_t candidate = 0;  ///< index into the candidate list
  bool runs = false;          ///< it can run here (a SplitK::always one only where it splits)
  int splits = 1;             ///< the ways it splits K here (tail: the rest's splits)
  long long tiles = 0;        ///< tiles of C, rows rounded up to whole clusters (x splits)
  long long slots = 0;        ///< tiles the card runs at once: SMs x blocks per SM
  double waves = 0;           ///< tiles / slots
  double wave_fill = 1;       ///< waves / the rounds it runs: the last wave's loss
  double edge_fill = 1;       ///< m n / the area the tiles cover: the ragged edge's loss
  double efficiency = 1;      ///< wave_fill x edge_fill
};

/// Every candidate's prediction at m x n on `sms` SMs, best first: those within 5% of the
/// best efficiency as equals, the rest by efficiency in steps of 2%; then the larger tile
/// (more reuse per byte loaded), then the later candidate (the ladder's more refined rung).
/// Candidates that cannot run here come last.
std::vector<Prediction> predict(int m, int n, int sms, const std::vector<TileFacts>& candidates);

/// Knobs of the pre-selection.
struct Preselect {
  std::size_t top_k = 4;  ///< at most this many candidates are timed
  /// A candidate predicted below this fraction of the best one is not timed (unless fewer
  /// than two would be).
  double keep_within = 0.85;
};

/// The candidates worth timing at m x n on `sms` SMs, in the order to time them: a candidate
/// whose tiles fill less than one wave is dropped where a smaller tile fills the card, one
/// predicted below keep_within of the best is dropped, and the rest are taken round robin
/// over tile shapes in predict()'s order (each shape's first, then each shape's second...),
/// cut to top_k. Candidates that cannot run are dropped; unknown tiles come last. Never
/// empty while some candidate can run.
std::vector<std::size_t> preselect(int m, int n, int sms, const std::vector<TileFacts>& candidates,
                                   const Preselect& knobs = {});

}  // namespace memhier::gemm::tuning
