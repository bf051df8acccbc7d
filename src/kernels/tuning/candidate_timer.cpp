// The timing loop of the tuner (candidate_timer.hpp).
#include "candidate_timer.hpp"

#include <algorithm>
#include <stdexcept>

#include "memhier/core/check.hpp"
#include "memhier/kernels/tuning_budget.hpp"

namespace memhier::tuning {

Timed time_candidates(std::size_t scratch_bytes, const std::vector<ScratchLaunch>& warm,
                      const std::vector<ScratchLaunch>& full, double first_budget_ms,
                      double second_budget_ms, cudaStream_t stream,
                      const std::vector<SliceLaunch>& slice) {
  struct Scratch {
    void* c = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    ~Scratch() {
      if (c) cudaFree(c);
      if (start) cudaEventDestroy(start);
      if (stop) cudaEventDestroy(stop);
    }
  } s;
  Timed out;
  out.ms.assign(full.size(), -1.0);
  if (cudaMalloc(&s.c, scratch_bytes) != cudaSuccess) {
    cudaGetLastError();  // out of memory is not sticky: fall back, do not fail the run
    s.c = nullptr;
    return out;
  }
  MEMHIER_CUDA(cudaEventCreate(&s.start));
  MEMHIER_CUDA(cudaEventCreate(&s.stop));
  const auto timed = [&](const ScratchLaunch& launch) {
    ++out.launches;
    MEMHIER_CUDA(cudaEventRecord(s.start, stream));
    launch(s.c, stream);
    MEMHIER_CUDA(cudaEventRecord(s.stop, stream));
    MEMHIER_CUDA(cudaEventSynchronize(s.stop));
    float ms = 0;
    MEMHIER_CUDA(cudaEventElapsedTime(&ms, s.start, s.stop));
    out.gpu_ms += ms;
    return static_cast<double>(ms);
  };
  const auto at_share = [&](std::size_t i, double share, double* ran) {
    return timed([&](void* c, cudaStream_t st) { *ran = slice[i](c, st, share); });
  };
  const auto run = [&](std::size_t i) {
    if (!(out.share < 1)) return timed(full[i]);
    double ran = 1;
    return at_share(i, out.share, &ran);
  };
  // The first candidate's run on the smallest slice: how long a whole run would take (a slice
  // runs in about its share of the time), so a long shape's first call never runs one whole.
  const auto first_run = [&](std::size_t i) {
    double ran = 1;
    const double probe = at_share(i, 0.0, &ran);
    if (!(ran < 1)) return probe;  // the smallest slice is the whole problem
    const double share = look_share(probe / ran, full.size(), first_budget_ms);
    if (!(share < 1)) return timed(full[i]);
    out.share = share;
    double again = 1;
    const double ms = at_share(i, share, &again);
    return again == ran ? std::min(ms, probe) : ms;
  };
  // Round 1: each candidate warmed up on a corner, then once at the full shape (a few times
  // where a run is short).
  double spent = 0;
  for (std::size_t i = 0; i < full.size() && (out.timed < 2 || spent < first_budget_ms); ++i) {
    try {
      timed(warm[i]);
      out.ms[i] = out.timed == 0 && slice.size() == full.size() ? first_run(i) : run(i);
      // Short runs take the minimum of several samples (first_look_samples).
      const int more = first_look_samples(out.ms[i]) - 1;
      for (int r = 0; r < more; ++r) out.ms[i] = std::min(out.ms[i], run(i));
      spent += out.ms[i] * more;
    } catch (const std::invalid_argument&) {
      continue;  // this candidate cannot run here (device, grid or shared-memory limits)
    } catch (const core::CudaError&) {
      // A launch the device refuses (resources) is not sticky: skip the candidate. A fault
      // is: the stream reports it again, and it is the caller's to see.
      if (cudaStreamSynchronize(stream) != cudaSuccess) throw;
      cudaGetLastError();
      continue;
    }
    ++out.timed;
    spent += out.ms[i];
    if (out.fastest < 0 || out.ms[i] < out.ms[static_cast<std::size_t>(out.fastest)])
      out.fastest = static_cast<int>(i);
  }
  if (out.fastest < 0) return out;
  // Round 2: a second look at the contenders, as often as the budget allows.
  const double first = out.ms[static_cast<std::size_t>(out.fastest)];
  std::vector<std::size_t> contenders;
  for (std::size_t i = 0; i < full.size(); ++i)
    if (out.ms[i] >= 0 && out.ms[i] <= 1.1 * first) contenders.push_back(i);
  const int reps = repetitions(first, contenders.size(), second_budget_ms);
  for (int r = 0; r < reps; ++r)
    for (std::size_t i : contenders) out.ms[i] = std::min(out.ms[i], run(i));
  for (std::size_t i : contenders)
    if (out.ms[i] < out.ms[static_cast<std::size_t>(out.fastest)])
      out.fastest = static_cast<int>(i);
  return out;
}

}  // namespace memhier::tuning
