// The GEMM tuner's model, host-only (no CUDA): which candidates are worth timing at a shape,
// from their block tiles and how many of their blocks this card's SMs hold (the tuner reads
// the SM count and the occupancy from the device; the CPU tests pass them as data), and how
// often to time them so that a first call at a large shape stays cheap.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace memhier::gemm::tuning {

/// What the model knows of one candidate on this card.
struct TileFacts {
  int tile_m = 0, tile_n = 0;  ///< its block tile of C; 0: unknown (ranked after the known)
  int blocks_per_sm = 1;       ///< its blocks resident on one SM; 0: it cannot run here
  int cluster_m = 1;           ///< tile rows one cluster spans (tiles come in whole clusters)
};

/// One candidate's predicted efficiency at a shape, each factor in (0, 1].
struct Prediction {
  std::size_t candidate = 0;  ///< index into the candidate list
  long long tiles = 0;        ///< tiles of C, rows rounded up to whole clusters
  long long slots = 0;        ///< tiles the card runs at once: SMs x blocks per SM
  double waves = 0;           ///< tiles / slots
  double wave_fill = 1;       ///< tiles / (whole waves x slots): the last wave's loss
  double edge_fill = 1;       ///< m n / the area the tiles cover: the ragged edge's loss
  double efficiency = 1;      ///< wave_fill x edge_fill
};

/// Every candidate's prediction at m x n on `sms` SMs, best first: by efficiency in steps of
/// 2%, then the larger tile (more reuse per byte loaded), then the later candidate (the
/// ladder's more refined rung). Candidates that cannot run here come last.
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

/// Timed repetitions for each candidate still in contention after every candidate ran once:
/// as many as fit `budget_ms` of GPU time (the fastest first run's `first_ms` each), at least
/// 1 (a second look, against a first run's noise) and at most 20.
int repetitions(double first_ms, std::size_t contenders, double budget_ms);

/// Runs of one candidate in the first look: one, or where a run is short as many as fit
/// 0.2 ms (at most 16), since one sample of a run of microseconds is noise and the cut to
/// the second look rests on it.
int first_look_samples(double run_ms);

/// The most GPU time a first call spends timing candidates of `run_ms` each: full runs while
/// the first look's sum is under `first_budget_ms` (at least two), then `contenders` rerun
/// repetitions(run_ms, contenders, second_budget_ms) times. The warm-ups, on a corner of the
/// problem, are negligible at large shapes.
double first_call_gpu_ms(double run_ms, std::size_t candidates, std::size_t contenders,
                         double first_budget_ms, double second_budget_ms);

/// How many candidates the first look times: in order, while fewer than two ran or their sum
/// is under `first_budget_ms`, at most `candidates` (the count time_candidates stops at).
std::size_t first_look_count(double run_ms, std::size_t candidates, double first_budget_ms);

/// What tuning one shape cost: how many candidates there were, how many the model kept and
/// were timed, the launches (warm-ups included) and the wall time from the first call to the
/// choice.
struct TuningCost {
  int candidates = 0;
  int timed = 0;
  int launches = 0;
  double ms = 0;
};

/// What `best` decided for one problem: the candidate it runs, whether that came from the
/// cache (memory or disk: nothing timed), whether it was timed now, and what that cost.
struct Outcome {
  std::string config;
  bool cached = false;
  bool tuned = false;
  TuningCost cost;
};

}  // namespace memhier::gemm::tuning
