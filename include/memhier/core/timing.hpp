// The one timing harness: warm-up, CUDA events, many repetitions, the median and
// the spread, an optional L2 flush between repetitions, NVTX ranges by name. Several
// callables can be timed paired (their repetitions alternating), so that a ratio of two
// of them is taken per pair, under the same conditions, not between separate medians.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace memhier::core {

struct TimingOptions {
  std::string name;  ///< NVTX range name
  int warmup = 3;
  // Paired, the repetitions counted are rounds (one repetition of every callable each), and
  // the GPU time is summed over all callables.
  int min_reps = 10;
  int max_reps = 1000;
  double min_total_ms = 30.0;  ///< repeat until both min_reps and this much GPU time
  /// Before each repetition, read a buffer twice the L2's size that nothing writes: L2 then
  /// holds no line of the problem and none dirty, so no repetition pays to write back what
  /// an earlier one (or a flush by stores) left there.
  bool flush_l2 = false;
  cudaStream_t stream = nullptr;
};

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0, p10_ms = 0, p90_ms = 0;
  int reps = 0;
  /// (p90 - p10) / median: how noisy the figure is.
  double spread() const { return median_ms > 0 ? (p90_ms - p10_ms) / median_ms : 0.0; }
};

/// The median and the 10th and 90th percentiles of a set of per-pair ratios.
struct RatioStats {
  double median = 0, p10 = 0, p90 = 0;
};

/// What time_paired measured: each callable's own timing, and every repetition's time
/// (rounds[i][j]: callable i in round j), from which ratio() pairs any two of them.
struct PairedTiming {
  std::vector<Timing> each;
  std::vector<std::vector<double>> rounds;
  /// Over the rounds, time of callable `num` / time of callable `den` in the same round.
  RatioStats ratio(std::size_t num, std::size_t den) const;
};

/// Times the callables paired: each round runs every one of them once, in the order
/// given (so the last one's outputs are what the buffers hold afterwards), each preceded
/// by the same L2 flush when opt.flush_l2 and timed with its own events. Rounds go on
/// until opt.min_reps rounds and opt.min_total_ms of GPU time summed over all callables
/// (so pairing N callables splits the time one would get, rather than multiplying it),
/// at most opt.max_reps rounds. Each callable is warmed up opt.warmup times first.
/// Throws CudaError; std::invalid_argument with no callable.
PairedTiming time_paired(const std::vector<std::function<void(cudaStream_t)>>& launches,
                         const TimingOptions& opt = {});

/// Times `launch` (which enqueues work on the given stream) with CUDA events around
/// each repetition: time_paired with one callable. Throws CudaError.
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
