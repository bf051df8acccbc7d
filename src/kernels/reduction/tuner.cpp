// The reduction's `best` through the one tuner (kernels/tuning/tuner.hpp): one of the
// single-pass configurations per card and n, kept in the tuning cache every tuned family
// shares. They differ in the bytes a thread keeps in flight (4 or 8 float4), the block size
// and the load path (ld.global.nc, the L2::256B prefetch, cp.async through shared memory), the
// knobs a faster or slower memory moves. Three candidates, so no model narrows them: all are
// timed, on the caller's input and workspace into a scratch output.
#include "kernels/tuning/tuner.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "kernels/reduction/variants.hpp"
#include "kernels/tuning/candidate_timer.hpp"
#include "memhier/kernels/reduction.hpp"
#include "memhier/kernels/tuning_cache.hpp"

namespace memhier::reduction {
namespace detail {
namespace {

/// Below this many elements (8 MiB) a reduction is launch-bound: the untuned rung runs.
constexpr std::size_t kMinTunedElements = std::size_t(1) << 21;

/// What runs without tuning (below 2^21 elements, and where a tuning cannot run). A named
/// card's data, not a rule: the H100 measured it fastest at 2^28 (2026-11-22, L2 flushed,
/// median of 80: 354.6 us, CUB 358.8, 256 x 8 float4 368.1, the L2::256B hint 372.7), and the
/// H200's tuner kept it there (3c0ad5c); another card's tuner may choose otherwise.
constexpr Variant kUntuned = Variant::best_b512_v4x4;

/// The warm-up's extent: as many elements as the other families' 256 x 256 corner.
constexpr std::size_t kWarmElements =
    static_cast<std::size_t>(tuning::kWarmExtent) * tuning::kWarmExtent;

struct Problem {
  Op op = Op::sum;
  const float* in = nullptr;
  std::size_t n = 0;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

struct ReductionTuning {
  static constexpr const char* kFamily = "reduction";
  using Problem = detail::Problem;
  using Choice = Variant;
  struct Facts {};

  static const std::vector<Variant>& candidates() { return best_candidates(); }
  static std::string name(Variant v) { return to_string(v); }
  static bool parse(const std::string& s, Variant* v) {
    try {
      *v = variant_from_string(s);
      return true;
    } catch (const std::invalid_argument&) {
      return false;
    }
  }
  static Variant untuned(const Problem&) { return kUntuned; }
  static bool worth_tuning(const Problem& p) { return p.n >= kMinTunedElements; }
  // Every configuration peels a misaligned head, so n alone keys the choice; sum and max read
  // the same bytes and share it.
  static std::string shape_text(const Problem& p) { return std::to_string(p.n); }
  static std::string tuned_on(const Problem& p) {
    return std::to_string(p.n) + " " + to_string(p.op);
  }
  static Facts facts(int, const std::vector<Variant>&) { return {}; }
  static std::vector<std::size_t> order(const Problem&, const Facts&) {
    std::vector<std::size_t> all(candidates().size());
    std::iota(all.begin(), all.end(), std::size_t{0});  // the untuned rung first
    return all;
  }

  static tuning::Timed time(const Problem& p, const std::vector<Variant>& order, double first_ms,
                            double second_ms, cudaStream_t stream) {
    std::vector<tuning::ScratchLaunch> warm, full;
    for (Variant v : order) {
      const auto make = [&p, v](std::size_t n) {
        return [&p, v, n](void* scratch, cudaStream_t st) {
          reduce(v, p.op, p.in, n, static_cast<float*>(scratch), p.workspace, p.workspace_bytes,
                 st);
        };
      };
      warm.push_back(make(std::min(p.n, kWarmElements)));
      full.push_back(make(p.n));
    }
    return tuning::time_candidates(sizeof(float), warm, full, first_ms, second_ms, stream);
  }
};

tuning::Tuner<ReductionTuning>& tuner() {
  static auto* t = new tuning::Tuner<ReductionTuning>();  // never destroyed
  return *t;
}

}  // namespace

const std::vector<Variant>& best_candidates() {
  static const std::vector<Variant> all = {kUntuned, Variant::best_b256_v4x8_l2pf,
                                           Variant::cp_async_pipeline};
  return all;
}

Variant choose_best(Op op, const float* in, std::size_t n, void* workspace,
                    std::size_t workspace_bytes, cudaStream_t stream) {
  return tuner().choose({op, in, n, workspace, workspace_bytes}, stream).choice;
}

tuning::Outcome tune_best(Op op, const float* in, std::size_t n, void* workspace,
                          std::size_t workspace_bytes, bool retune) {
  return tuner().outcome({op, in, n, workspace, workspace_bytes}, nullptr, retune);
}

Variant cached_best(std::size_t n) {
  Problem p;
  p.n = n;
  if (!ReductionTuning::worth_tuning(p)) return kUntuned;
  Variant v = kUntuned;
  const std::string known = tuner().known(ReductionTuning::shape_text(p));
  return !known.empty() && ReductionTuning::parse(known, &v) ? v : kUntuned;
}

}  // namespace detail

void forget_tuning() {
  detail::tuner().forget();
}

}  // namespace memhier::reduction
