// The timing loop both GEMM tuners share (gemm/tuner.hpp): the candidates the model kept, in
// its order, are each warmed up on a corner of the problem (its module loads, its launch path
// runs: microseconds) and run once at the full shape while a first budget of GPU time lasts;
// those within 10% of the fastest are run again as often as a second budget allows; the
// fastest minimum wins. Everything runs into a scratch C the caller never sees.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

namespace memhier::gemm::detail {

/// One candidate's launch into `scratch` on a stream.
using ScratchLaunch = std::function<void(void* scratch, cudaStream_t)>;

/// What a timing round found.
struct Timed {
  int fastest = -1;        ///< index of the fastest candidate; -1 when none ran
  std::vector<double> ms;  ///< each candidate's minimum in ms, -1 for one not timed
  int timed = 0;           ///< candidates that ran
  int launches = 0;        ///< launches, warm-ups included
};

/// Times the candidates in order while fewer than two ran or their full runs took less than
/// `first_budget_ms` (tuning::first_look_count): `warm[i]` once, then `full[i]` once; then
/// those within 10% of the fastest `full` again (tuning::repetitions over `second_budget_ms`). The
/// scratch is `scratch_bytes` of device memory allocated here. A candidate that throws
/// std::invalid_argument (it cannot run this shape or device), or whose launch the device refuses
/// without a sticky error, is skipped. Returns fastest -1 when no scratch memory could be had (not
/// sticky: the caller falls back).
Timed time_candidates(std::size_t scratch_bytes, const std::vector<ScratchLaunch>& warm,
                      const std::vector<ScratchLaunch>& full, double first_budget_ms,
                      double second_budget_ms, cudaStream_t stream);

/// Rows and columns of the corner a candidate warms up on.
inline constexpr int kWarmExtent = 256;

/// time_candidates over `candidates` run on the caller's A and B (`p`: either GEMM's Params,
/// float C) into a scratch C with alpha 1 and beta 0, each launched through
/// `launcher_for(candidate).launch(params, stream)`; the warm-up is the top-left corner of at
/// most kWarmExtent rows and columns (same k, leading dimensions and bases).
template <class Params, class Variant, class LauncherFor>
Timed time_on_scratch(const Params& p, const std::vector<Variant>& candidates,
                      LauncherFor launcher_for, double first_budget_ms, double second_budget_ms,
                      cudaStream_t stream) {
  std::vector<ScratchLaunch> warm, full;
  for (Variant v : candidates) {
    const auto make = [&p, l = launcher_for(v)](bool corner) {
      return [&p, l, corner](void* scratch, cudaStream_t st) {
        Params q = p;
        q.C = static_cast<float*>(scratch);
        q.alpha = 1.f;
        q.beta = 0.f;  // the scratch is never read
        if (corner) {
          q.m = std::min(q.m, kWarmExtent);
          q.n = std::min(q.n, kWarmExtent);
        }
        l.launch(q, st);
      };
    };
    warm.push_back(make(true));
    full.push_back(make(false));
  }
  return time_candidates(
      static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.ldc) * sizeof(float), warm, full,
      first_budget_ms, second_budget_ms, stream);
}

}  // namespace memhier::gemm::detail
