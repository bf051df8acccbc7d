// The one timing harness: warm-up, CUDA events, many repetitions, the median and
// the spread, an optional L2 flush between repetitions, NVTX ranges by name.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>

namespace memhier::core {

struct TimingOptions {
  std::string name;            ///< NVTX range name
  int warmup = 3;
  int min_reps = 10;
  int max_reps = 1000;
  double min_total_ms = 30.0;  ///< repeat until both min_reps and this much GPU time
  bool flush_l2 = false;       ///< overwrite a buffer larger than L2 before each repetition
  cudaStream_t stream = nullptr;
};

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0, p10_ms = 0, p90_ms = 0;
  int reps = 0;
  /// (p90 - p10) / median: how noisy the figure is.
  double spread() const { return median_ms > 0 ? (p90_ms - p10_ms) / median_ms : 0.0; }
};

/// Times `launch` (which enqueues work on the given stream) with CUDA events around
/// each repetition. Throws CudaError.
Timing time_it(const std::function<void(cudaStream_t)>& launch, const TimingOptions& opt = {});

/// The SM clock while busy, MHz, measured by timing a clock64() spin with events.
/// Record it next to any figure given in cycles.
double measure_sm_clock_mhz();

/// Drops persisting-L2 lines and limits (after an access-policy experiment).
void reset_persisting_l2();

/// RAII NVTX range: Nsight Systems shows each measurement by name.
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name);
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace memhier::core
