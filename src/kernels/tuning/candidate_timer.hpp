// The timing loop every tuned family shares (tuning/tuner.hpp): the candidates the model kept,
// in its order, are each warmed up on a small corner of the problem (its module loads, its
// launch path runs: microseconds) and run once at the full shape while a first budget of GPU
// time lasts; those within 10% of the fastest are run again as often as a second budget
// allows; the fastest minimum wins. Everything runs into a scratch output the caller never
// sees.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace memhier::tuning {

/// Rows and columns of the corner of a problem every tuned family warms a candidate up on.
inline constexpr int kWarmExtent = 256;

/// One candidate's launch into `scratch` on a stream.
using ScratchLaunch = std::function<void(void* scratch, cudaStream_t)>;
/// The same on `share` (0..1) of the problem's work (a GEMM: a slice of its K); returns the
/// share it ran (a slice is rounded and has a floor: share 0 runs the smallest, 1 the whole).
using SliceLaunch = std::function<double(void* scratch, cudaStream_t, double share)>;

/// What a timing round found.
struct Timed {
  int fastest = -1;        ///< index of the fastest candidate; -1 when none ran
  std::vector<double> ms;  ///< each candidate's minimum in ms, -1 for one not timed
  int timed = 0;           ///< candidates that ran
  int launches = 0;        ///< launches, warm-ups included
  double gpu_ms = 0;       ///< the launches' summed event times, warm-ups included
  double share = 1;        ///< the share of the problem `ms` timed (tuning::look_share)
};

/// Times the candidates in order while fewer than two ran or their full runs took less than
/// `first_budget_ms` (tuning::first_look_count): `warm[i]` once, then `full[i]` once (the
/// minimum of up to 16 runs where that many take under 0.2 ms: one sample of a run of
/// microseconds is noise); then
/// those within 10% of the fastest `full` again (tuning::repetitions over `second_budget_ms`). The
/// scratch is `scratch_bytes` of device memory allocated here. A candidate that throws
/// std::invalid_argument (it cannot run this shape or device), or whose launch the device refuses
/// without a sticky error, is skipped. Returns fastest -1 when no scratch memory could be had (not
/// sticky: the caller falls back). With `slice` (one per candidate), the first candidate runs
/// first on the smallest slice, which tells how long a whole run takes without running one;
/// where whole runs would not let every candidate run once in the first budget, that sets a
/// share (tuning::look_share) and both looks time `slice[i]` at it instead of `full[i]`.
Timed time_candidates(std::size_t scratch_bytes, const std::vector<ScratchLaunch>& warm,
                      const std::vector<ScratchLaunch>& full, double first_budget_ms,
                      double second_budget_ms, cudaStream_t stream,
                      const std::vector<SliceLaunch>& slice = {});

}  // namespace memhier::tuning
