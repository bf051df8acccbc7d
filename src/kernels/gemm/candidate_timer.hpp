// The timing loop both GEMM tuners share (gemm/tuner.cpp, gemm_bf16/tuner.cpp): each
// candidate runs once to warm up, then 3 to 50 times (about 5 ms in all) into a scratch C
// the tuner's caller never sees, and the fastest minimum wins.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace memhier::gemm::detail {

/// Times `launches[i](scratch, stream)` for every i, the scratch being `scratch_bytes` of
/// device memory allocated here. Returns the index of the fastest, or -1 when none ran or no
/// scratch memory could be had (not sticky: the caller falls back). A candidate that throws
/// std::invalid_argument (it cannot run this shape or device), or whose launch the device
/// refuses without a sticky error, is skipped. `times`, when given, gets each candidate's
/// minimum in ms (-1 for one skipped).
int fastest_candidate(std::size_t scratch_bytes,
                      const std::vector<std::function<void(void*, cudaStream_t)>>& launches,
                      cudaStream_t stream, std::vector<double>* times = nullptr);

/// fastest_candidate over `candidates` run on the caller's A and B (`p`: either GEMM's
/// Params, float C) into a scratch C with alpha 1 and beta 0, each launched through
/// `launcher_for(candidate).launch(params, stream)`.
template <class Params, class Variant, class LauncherFor>
int fastest_on_scratch(const Params& p, const std::vector<Variant>& candidates,
                       LauncherFor launcher_for, cudaStream_t stream,
                       std::vector<double>* times = nullptr) {
  std::vector<std::function<void(void*, cudaStream_t)>> launches;
  for (Variant v : candidates)
    launches.push_back([&p, l = launcher_for(v)](void* scratch, cudaStream_t st) {
      Params q = p;
      q.C = static_cast<float*>(scratch);
      q.alpha = 1.f;
      q.beta = 0.f;  // the scratch is never read
      l.launch(q, st);
    });
  return fastest_candidate(
      static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.ldc) * sizeof(float), launches,
      stream, times);
}

}  // namespace memhier::gemm::detail
