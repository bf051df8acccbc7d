// The one tuner every tuned family's `best` goes through: a choice per card and exact problem,
// from memory, else from the cache on disk (memhier/kernels/tuning_cache.hpp; the file is
// cache_path()), else tuned now: the family's model orders the candidates worth timing on this
// card and those are timed on the caller's inputs into a scratch output (candidate_timer.hpp).
// A family supplies a Traits type (gemm/tuner.hpp, stencil/tuner.cpp):
//   kFamily; Problem; Choice; Facts (what the model reads from a device, once per device);
//   candidates(); name(c); parse(name, &c); untuned(p) (what runs without tuning);
//   worth_tuning(p); shape_text(p) (the key's shape part); tuned_on(p) (readable shape);
//   facts(dev, candidates); order(p, facts) (indices into candidates(), in timing order);
//   time(p, choices, first_ms, second_ms, stream) (a Timed over `choices`).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/tuning/candidate_timer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/kernels/tuning_budget.hpp"
#include "memhier/kernels/tuning_cache.hpp"

namespace memhier::tuning {

/// The key prefix of device `dev` for a candidate list: its name and compute capability,
/// driver, toolkit, runtime, memhier version and the candidates' names (tuning/device_key.cpp).
std::string device_key_prefix(int dev, const std::vector<std::string>& candidate_names);

/// Where `best` keeps its choices across runs, every family's in one file
/// ($MEMHIER_CACHE_DIR/gemm-tuning.json, else $XDG_CACHE_HOME/memhier/... or
/// ~/.cache/memhier/...); "" when MEMHIER_NO_TUNE_CACHE=1 (tuning/device_key.cpp).
std::string cache_path();

/// The GPU time a first call may spend: full runs of the candidates in the model's order
/// while their sum is under kFirstLookMs (at least two), then a second look at the close ones
/// within kSecondLookMs: the budget is GPU time, so a card that runs a shape slower times fewer
/// candidates (at least two) and a faster one more, each a few times.
inline constexpr double kFirstLookMs = 15.0;
inline constexpr double kSecondLookMs = 12.0;

/// The choice for one problem and what it cost.
template <class Choice>
struct Chosen {
  Choice choice{};
  bool cached = false;  ///< found in memory or on disk: nothing was timed
  bool tuned = false;   ///< timed now (false also when tuning was not possible)
  TuningCost cost;      ///< zero unless tuned
};

template <class Traits>
class Tuner {
 public:
  using Problem = typename Traits::Problem;
  using Choice = typename Traits::Choice;
  using Facts = typename Traits::Facts;

  /// What `best` runs for `p` on the current device; `retune` times it again even when a
  /// choice is known.
  Chosen<Choice> choose(const Problem& p, cudaStream_t stream, bool retune = false) {
    Chosen<Choice> out;
    out.choice = Traits::untuned(p);
    if (!Traits::worth_tuning(p)) return out;
    const std::vector<Choice>& all = Traits::candidates();
    out.cost.candidates = static_cast<int>(all.size());
    int dev = 0;
    MEMHIER_CUDA(cudaGetDevice(&dev));
    const std::string key = entry_key(prefix(dev), Traits::kFamily, Traits::shape_text(p));
    const auto tune = [&]() -> nlohmann::json {
      // Tuning synchronizes and allocates: not allowed while the stream is being captured.
      cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
      if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
      }
      if (capture != cudaStreamCaptureStatusNone) return nullptr;
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<Choice> order;
      for (std::size_t i : Traits::order(p, facts(dev))) order.push_back(all[i]);
      const Timed t = Traits::time(p, order, kFirstLookMs, kSecondLookMs, stream);
      out.cost.timed = t.timed;
      out.cost.launches = t.launches;
      out.cost.gpu_ms = t.gpu_ms;
      out.cost.ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (t.fastest < 0) return nullptr;  // no scratch memory, or no candidate ran
      return entry(p, order, t, out.cost);
    };
    bool tuned = false;
    const auto start = std::chrono::steady_clock::now();
    const std::string name = memo_.choose(key, cache_path(), retune, valid, tune, &tuned);
    // The whole decision, the cache file's merged write included (the entry holds the timing).
    if (tuned)
      out.cost.ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
    Choice c;
    if (!name.empty() && Traits::parse(name, &c)) {
      out.choice = c;
      out.cached = !tuned;
      out.tuned = tuned;
    }
    if (!out.tuned) out.cost = {out.cost.candidates, 0, 0, 0.0, 0.0};
    return out;
  }

  /// choose() as plain data, for `memhier tune`.
  Outcome outcome(const Problem& p, cudaStream_t stream, bool retune) {
    const Chosen<Choice> c = choose(p, stream, retune);
    Outcome o;
    o.config = Traits::name(c.choice);
    o.cached = c.cached;
    o.tuned = c.tuned;
    o.cost = c.cost;
    return o;
  }

  /// The choice known for a problem whose key's shape part is `shape` on the current device
  /// ("" if none, and without a usable device), the disk cache included; never tunes.
  std::string known(const std::string& shape) {
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
      cudaGetLastError();  // a query: no device knows nothing, and is no error here
      return {};
    }
    return memo_.known(entry_key(prefix(dev), Traits::kFamily, shape), cache_path(), valid);
  }

  /// Forgets the choices held in memory (the disk is read again at the next call).
  void forget() { memo_.forget(); }

 private:
  /// A remembered name is one of today's candidates (an older table's is not).
  static bool valid(const std::string& name) {
    Choice c;
    const std::vector<Choice>& all = Traits::candidates();
    return Traits::parse(name, &c) && std::find(all.begin(), all.end(), c) != all.end();
  }

  std::string prefix(int dev) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = prefixes_.find(dev);
    if (it == prefixes_.end()) {
      std::vector<std::string> names;
      for (Choice c : Traits::candidates()) names.emplace_back(Traits::name(c));
      it = prefixes_.emplace(dev, device_key_prefix(dev, names)).first;
    }
    return it->second;
  }

  /// What the family's model reads from device `dev`, once per device.
  Facts facts(int dev) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = facts_.find(dev);
    if (it == facts_.end())
      it = facts_.emplace(dev, Traits::facts(dev, Traits::candidates())).first;
    return it->second;
  }

  /// The cache entry of a tuning: the choice, each timed candidate's minimum and the cost.
  static nlohmann::json entry(const Problem& p, const std::vector<Choice>& order, const Timed& t,
                              const TuningCost& cost) {
    nlohmann::json e;
    e["choice"] = Traits::name(order[static_cast<std::size_t>(t.fastest)]);
    e["tuned_on"] = Traits::tuned_on(p);
    nlohmann::json ms = nlohmann::json::object();
    for (std::size_t i = 0; i < order.size(); ++i)
      if (t.ms[i] >= 0) ms[Traits::name(order[i])] = t.ms[i];
    e["min_ms"] = ms;
    e["tuning_ms"] = cost.ms;
    e["gpu_ms"] = cost.gpu_ms;
    e["timed"] = cost.timed;
    e["candidates"] = cost.candidates;
    e["launches"] = cost.launches;
    if (t.share < 1) e["timed_share"] = t.share;  // min_ms are of that share of K
    return e;
  }

  std::mutex mu_;  // prefixes_ and facts_
  Memo memo_;
  std::map<int, std::string> prefixes_;  // device -> key prefix
  std::map<int, Facts> facts_;
};

}  // namespace memhier::tuning
