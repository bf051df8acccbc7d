#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/timing.hpp"

namespace memhier::core {
namespace {

// Events created once per call of time_paired and destroyed on every path.
struct EventPair {
  cudaEvent_t start{}, stop{};
  EventPair() {
    MEMHIER_CUDA(cudaEventCreate(&start));
    MEMHIER_CUDA(cudaEventCreate(&stop));
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
};

// The L2 flush: loads that allocate normally in L2 (ld.global.cg), so that reading twice the
// L2's size evicts every line there, writing back the dirty ones now rather than inside the
// next timed launch; the sum goes out only under a condition no input meets, so the loads
// stay.
__global__ void read_to_flush(const float4* __restrict__ p, std::size_t n, float* sink) {
  float s = 0.f;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float4 v = __ldcg(p + i);
    s += v.x + v.y + v.z + v.w;
  }
  if (s == -1.f) *sink = s;  // the buffer holds zeros: never taken
}

/// A buffer of twice the L2, written once (and its dirty lines pushed out once), read before
/// each repetition.
class L2Flush {
 public:
  explicit L2Flush(cudaStream_t stream) : stream_(stream) {
    int dev = 0, l2 = 0;
    MEMHIER_CUDA(cudaGetDevice(&dev));
    MEMHIER_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    MEMHIER_CUDA(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, dev));
    buf_ = DeviceBuffer<float4>(static_cast<std::size_t>(std::max(l2, 1 << 20)) * 2 /
                                sizeof(float4));
    sink_ = DeviceBuffer<float>(1);
    MEMHIER_CUDA(cudaMemsetAsync(buf_.data(), 0, buf_.bytes(), stream_));
    run();  // reading it once leaves its lines in L2 clean; twice, whatever the L2's policy
    run();
  }
  void run() {
    read_to_flush<<<std::max(sms_, 1) * 8, 256, 0, stream_>>>(buf_.data(), buf_.size(),
                                                             sink_.data());
    MEMHIER_CHECK_LAUNCH();
  }

 private:
  cudaStream_t stream_;
  int sms_ = 0;
  DeviceBuffer<float4> buf_;
  DeviceBuffer<float> sink_;
};

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

// The median, extremes and percentiles of one callable's repetitions.
Timing summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  Timing r;
  r.reps = static_cast<int>(ms.size());
  r.min_ms = ms.front();
  r.max_ms = ms.back();
  r.median_ms = quantile(ms, 0.5);
  r.p10_ms = quantile(ms, 0.1);
  r.p90_ms = quantile(ms, 0.9);
  return r;
}

__global__ void spin_kernel(long long cycles, long long* out) {
  const long long start = clock64();
  long long now = start;
  while (now - start < cycles) now = clock64();
  if (threadIdx.x == 0) *out = now - start;
}

}  // namespace

NvtxRange::NvtxRange(const std::string& name) {
  nvtxRangePushA(name.c_str());
}
NvtxRange::~NvtxRange() {
  nvtxRangePop();
}

RatioStats PairedTiming::ratio(std::size_t num, std::size_t den) const {
  std::vector<double> r;
  for (std::size_t j = 0; j < rounds.at(num).size() && j < rounds.at(den).size(); ++j)
    r.push_back(rounds[num][j] / rounds[den][j]);
  if (r.empty()) return {};
  std::sort(r.begin(), r.end());
  return {quantile(r, 0.5), quantile(r, 0.1), quantile(r, 0.9)};
}

PairedTiming time_paired(const std::vector<std::function<void(cudaStream_t)>>& launches,
                         const TimingOptions& opt) {
  if (launches.empty()) throw std::invalid_argument("time_paired: nothing to time");
  NvtxRange range(opt.name.empty() ? std::string("memhier") : opt.name);
  std::unique_ptr<L2Flush> flush;
  if (opt.flush_l2) flush = std::make_unique<L2Flush>(opt.stream);
  for (const auto& launch : launches)
    for (int i = 0; i < opt.warmup; ++i) launch(opt.stream);
  MEMHIER_CUDA(cudaStreamSynchronize(opt.stream));

  EventPair ev;
  PairedTiming out;
  out.rounds.resize(launches.size());
  int done = 0;
  double total = 0;
  while (done == 0 || (done < opt.max_reps && (done < opt.min_reps || total < opt.min_total_ms))) {
    for (std::size_t i = 0; i < launches.size(); ++i) {
      if (flush) flush->run();
      MEMHIER_CUDA(cudaEventRecord(ev.start, opt.stream));
      launches[i](opt.stream);
      MEMHIER_CUDA(cudaEventRecord(ev.stop, opt.stream));
      MEMHIER_CUDA(cudaEventSynchronize(ev.stop));
      float t = 0;
      MEMHIER_CUDA(cudaEventElapsedTime(&t, ev.start, ev.stop));
      out.rounds[i].push_back(t);
      total += t;
    }
    ++done;
  }
  for (const std::vector<double>& ms : out.rounds) out.each.push_back(summarize(ms));
  return out;
}

Timing time_it(const std::function<void(cudaStream_t)>& launch, const TimingOptions& opt) {
  return time_paired({launch}, opt).each.front();
}

double measure_sm_clock_mhz() {
  DeviceBuffer<long long> out(1);
  const long long cycles = 20'000'000;  // ~10 ms at 2 GHz: long enough for event resolution
  Timing t = time_it(
      [&](cudaStream_t s) {
        spin_kernel<<<1, 32, 0, s>>>(cycles, out.data());
        MEMHIER_CHECK_LAUNCH();
      },
      TimingOptions{"sm-clock", 1, 3, 3, 0.0, false, nullptr});
  return static_cast<double>(cycles) / (t.median_ms * 1e3);
}

void reset_persisting_l2() {
  MEMHIER_CUDA(cudaCtxResetPersistingL2Cache());
}

}  // namespace memhier::core
