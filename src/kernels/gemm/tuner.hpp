// `best` for both GEMM ladders: a choice per card and exact shape (extents, leading
// dimensions, pointer alignment), from memory, else from the cache on disk
// (gemm_tuning_cache.hpp; gemm::tuning_cache_path()), else tuned now: the model
// (gemm_preselect.hpp) keeps the candidates whose tiles suit this card's SMs at this shape,
// and those are timed on the caller's A and B into a scratch C (candidate_timer.hpp). A
// family supplies a Traits type (gemm/tuner.cpp and gemm_bf16/tuner.cpp):
//   kFamily, Params, Variant, candidates(), launcher_for(v), name(v), parse(name, &v),
//   tile(launcher) (TileFacts without blocks_per_sm), untuned(p) (what runs without tuning).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "candidate_timer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/kernels/gemm.hpp"
#include "memhier/kernels/gemm_preselect.hpp"
#include "memhier/kernels/gemm_tuning_cache.hpp"

namespace memhier::gemm::detail {

/// The key prefix of device `dev` for a candidate list: its name and compute capability,
/// driver, toolkit, runtime, memhier version and the candidates' names (gemm/tuner.cpp).
std::string device_key_prefix(int dev, const std::vector<std::string>& candidate_names);

/// Below 2^24 flops a GEMM is launch-bound: not worth a tuning run.
inline bool not_worth_tuning(int m, int n, int k) {
  return 2.0 * m * static_cast<double>(n) * k < 16777216.0;
}

/// The GPU time a first call may spend: full runs of the candidates in the model's order
/// while their sum is under kFirstLookMs (at least two), then a second look at the close ones
/// within kSecondLookMs: the budget is GPU time, so a card that runs a shape slower times fewer
/// candidates (at least two) and a faster one more, each a few times.
inline constexpr double kFirstLookMs = 15.0;
inline constexpr double kSecondLookMs = 12.0;

/// The choice for one problem and what it cost.
template <class Variant>
struct Chosen {
  Variant choice{};
  bool cached = false;      ///< found in memory or on disk: nothing was timed
  bool tuned = false;       ///< timed now (false also when tuning was not possible)
  tuning::TuningCost cost;  ///< zero unless tuned
};

template <class Traits>
class Tuner {
 public:
  using Params = typename Traits::Params;
  using Variant = typename Traits::Variant;

  /// The problem's key in the cache (extents, leading dimensions, bases' alignment).
  static tuning::ShapeKey shape_key(const Params& p) {
    return tuning::call_shape(p.m, p.n, p.k, p.A, p.lda, p.B, p.ldb, p.C, p.ldc);
  }

  /// What `best` runs for `p` on the current device; `retune` times it again even when a
  /// choice is known.
  Chosen<Variant> choose(const Params& p, cudaStream_t stream, bool retune = false) {
    Chosen<Variant> out;
    out.choice = Traits::untuned(p);
    if (not_worth_tuning(p.m, p.n, p.k)) return out;
    const std::vector<Variant>& all = Traits::candidates();
    out.cost.candidates = static_cast<int>(all.size());
    int dev = 0;
    MEMHIER_CUDA(cudaGetDevice(&dev));
    const std::string key = tuning::entry_key(prefix(dev), Traits::kFamily, shape_key(p));
    const auto tune = [&]() -> nlohmann::json {
      // Tuning synchronizes and allocates: not allowed while the stream is being captured.
      cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
      if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
      }
      if (capture != cudaStreamCaptureStatusNone) return nullptr;
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<Variant> order;
      for (std::size_t i : tuning::preselect(p.m, p.n, sm_count(dev), facts(dev), {all.size()}))
        order.push_back(all[i]);
      const Timed t =
          time_on_scratch(p, order, Traits::launcher_for, kFirstLookMs, kSecondLookMs, stream);
      out.cost.timed = t.timed;
      out.cost.launches = t.launches;
      out.cost.ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (t.fastest < 0) return nullptr;  // no scratch memory, or no candidate ran
      return entry(p, order, t, out.cost);
    };
    bool tuned = false;
    const auto start = std::chrono::steady_clock::now();
    const std::string name = memo_.choose(key, tuning_cache_path(), retune, valid, tune, &tuned);
    // The whole decision, the cache file's merged write included (the entry holds the timing).
    if (tuned)
      out.cost.ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
    Variant v;
    if (!name.empty() && Traits::parse(name, &v)) {
      out.choice = v;
      out.cached = !tuned;
      out.tuned = tuned;
    }
    if (!out.tuned) out.cost = {out.cost.candidates, 0, 0, 0.0};
    return out;
  }

  /// choose() as plain data, for `memhier tune`.
  tuning::Outcome outcome(const Params& p, cudaStream_t stream, bool retune) {
    const Chosen<Variant> c = choose(p, stream, retune);
    tuning::Outcome o;
    o.config = Traits::name(c.choice);
    o.cached = c.cached;
    o.tuned = c.tuned;
    o.cost = c.cost;
    return o;
  }

  /// The choice known for `s` on the current device ("" if none), the disk cache included.
  std::string cached(const tuning::ShapeKey& s) {
    if (not_worth_tuning(s.m, s.n, s.k)) {
      Params p;
      p.m = s.m;
      p.n = s.n;
      p.k = s.k;
      return Traits::name(Traits::untuned(p));
    }
    int dev = 0;
    MEMHIER_CUDA(cudaGetDevice(&dev));
    return memo_.known(tuning::entry_key(prefix(dev), Traits::kFamily, s), tuning_cache_path(),
                       valid);
  }

  /// Forgets the choices held in memory (the disk is read again at the next call).
  void forget() { memo_.forget(); }

 private:
  /// A remembered name is one of today's candidates (an older table's is not).
  static bool valid(const std::string& name) {
    Variant v;
    const std::vector<Variant>& all = Traits::candidates();
    return Traits::parse(name, &v) && std::find(all.begin(), all.end(), v) != all.end();
  }

  std::string prefix(int dev) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = prefixes_.find(dev);
    if (it == prefixes_.end()) {
      std::vector<std::string> names;
      for (Variant v : Traits::candidates()) names.emplace_back(Traits::name(v));
      it = prefixes_.emplace(dev, device_key_prefix(dev, names)).first;
    }
    return it->second;
  }

  static int sm_count(int dev) {
    int sms = 0;
    MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return sms;
  }

  /// Each candidate's tile and resident blocks per SM on device `dev` (0 where the build
  /// has no code for it or its shared memory does not fit), read once per device.
  std::vector<tuning::TileFacts> facts(int dev) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = facts_.find(dev);
    if (it != facts_.end()) return it->second;
    std::vector<tuning::TileFacts> all;
    for (Variant v : Traits::candidates()) {
      const auto l = Traits::launcher_for(v);
      tuning::TileFacts t = Traits::tile(l);
      t.blocks_per_sm = 0;
      cudaFuncAttributes a{};
      int blocks = 0;
      try {
        if (cudaFuncGetAttributes(&a, l.symbol()) == cudaSuccess) {
          core::prepare_dynamic_smem(l.symbol(), l.dynamic_smem, Traits::name(v));
          if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                  &blocks, l.symbol(), l.block_threads, static_cast<std::size_t>(l.dynamic_smem)) ==
              cudaSuccess)
            t.blocks_per_sm = blocks;
        }
      } catch (const std::invalid_argument&) {
        // more shared memory than this device allows: the candidate cannot run here
      } catch (const core::CudaError&) {
      }
      cudaGetLastError();  // a kernel without code for this device is not an error here
      all.push_back(t);
    }
    return facts_.emplace(dev, std::move(all)).first->second;
  }

  /// The cache entry of a tuning: the choice, each timed candidate's minimum and the cost.
  static nlohmann::json entry(const Params& p, const std::vector<Variant>& order, const Timed& t,
                              const tuning::TuningCost& cost) {
    nlohmann::json e;
    e["choice"] = Traits::name(order[static_cast<std::size_t>(t.fastest)]);
    e["tuned_on"] = std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
    nlohmann::json ms = nlohmann::json::object();
    for (std::size_t i = 0; i < order.size(); ++i)
      if (t.ms[i] >= 0) ms[Traits::name(order[i])] = t.ms[i];
    e["min_ms"] = ms;
    e["tuning_ms"] = cost.ms;
    e["timed"] = cost.timed;
    e["candidates"] = cost.candidates;
    e["launches"] = cost.launches;
    return e;
  }

  std::mutex mu_;  // prefixes_ and facts_
  tuning::Memo memo_;
  std::map<int, std::string> prefixes_;  // device -> key prefix
  std::map<int, std::vector<tuning::TileFacts>> facts_;
};

}  // namespace memhier::gemm::detail
