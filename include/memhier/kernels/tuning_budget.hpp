// What every tuned family's tuner (kernels/tuning/tuner.hpp) spends and decides, host-only (no
// CUDA): how often the timing loop runs the candidates so that a first call at a large shape
// stays cheap, and the decision with what it cost, as a family's tune() returns it.
#pragma once

#include <cstddef>
#include <string>

namespace memhier::tuning {

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
/// repetitions(run_ms, contenders, second_budget_ms) times; where the looks time a slice
/// (look_share < 1), the same on runs of `run_ms` x the share. Where the smallest slice is
/// `floor_share` < 1 of the problem (a GEMM: slice_k's floor over K), the first candidate's run
/// on it comes first. The warm-ups, on a corner of that slice, are negligible.
double first_call_gpu_ms(double run_ms, std::size_t candidates, std::size_t contenders,
                         double first_budget_ms, double second_budget_ms, double floor_share = 1);

/// How many candidates the first look times: in order, while fewer than two ran or their sum
/// is under `first_budget_ms`, at most `candidates` (the count time_candidates stops at).
std::size_t first_look_count(double run_ms, std::size_t candidates, double first_budget_ms);

/// The share of the problem the looks time: 1, or where a whole run (`run_ms`, the first
/// candidate's) would not let all `candidates` run once within `first_budget_ms`, the share
/// that would (a GEMM of seconds is ranked on a slice of its K, then chosen on that slice).
double look_share(double run_ms, std::size_t candidates, double first_budget_ms);

/// A GEMM's K for a look at `share` of the work: K x share raised to the same remainder mod
/// 64 as K (the K tail, and any alignment it breaks, stay the whole problem's), at least 1024
/// (at 512, SGEMM at 8192^3 on an H200 ranked a kernel 3 % slower at full K first) and at
/// most K.
int slice_k(int k, double share);

/// What tuning one shape cost: how many candidates there were, how many the model kept and
/// were timed, the launches (warm-ups included), the wall time from the first call to the
/// choice, and the GPU time of the launches: the part a busy host does not stretch.
struct TuningCost {
  int candidates = 0;
  int timed = 0;
  int launches = 0;
  double ms = 0;
  double gpu_ms = 0;
};

/// What `best` decided for one problem: the candidate it runs, whether that came from the
/// cache (memory or disk: nothing timed), whether it was timed now, and what that cost.
struct Outcome {
  std::string config;
  bool cached = false;
  bool tuned = false;
  TuningCost cost;
};

}  // namespace memhier::tuning
