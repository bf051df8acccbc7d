// The transpose's `best` through the one tuner (kernels/tuning/tuner.hpp): one of the float4
// rungs per card and shape, kept in the tuning cache every tuned family shares. Which one wins
// moves with the shape: on the lent H200 best_64x64 read 0.97x memcpy at 4096x4096 where
// best_64x64_prefetch read 0.94, and the two tied at 8192x8192 (record at bd384fe). There are
// four candidates, so no model narrows them: all are timed, on the caller's input into a
// scratch output.
#include "kernels/tuning/tuner.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/transpose/variants.hpp"
#include "kernels/tuning/candidate_timer.hpp"
#include "memhier/kernels/transpose.hpp"
#include "memhier/kernels/tuning_cache.hpp"

namespace memhier::transpose {
namespace detail {
namespace {

/// Below this many elements (8 MiB each way) a transpose is launch-bound: the untuned rung runs.
constexpr double kMinTunedElements = 1 << 21;

using memhier::tuning::kWarmExtent;

/// What runs without tuning (and where the float4 rungs cannot: they fall back to padded).
constexpr Variant kUntuned = Variant::best_64x64_prefetch;

struct Problem {
  const float* in = nullptr;
  float* out = nullptr;
  int rows = 0, cols = 0;
};

void launch_variant(Variant v, const float* in, float* out, int rows, int cols, cudaStream_t s) {
  switch (v) {
    case Variant::best_64x64:
      return launch_vectorized_64x64(in, out, rows, cols, s);
    case Variant::best_32x128:
      return launch_vectorized_32x128(in, out, rows, cols, s);
    case Variant::best_64x64_persistent:
      return launch_vectorized_64x64_persistent(in, out, rows, cols, s);
    case Variant::best_64x64_prefetch:
      return launch_vectorized_64x64_prefetch(in, out, rows, cols, s);
    default:
      throw std::invalid_argument("not one of the transpose's tuned rungs.");
  }
}

std::string shape_text(int rows, int cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

struct TransposeTuning {
  static constexpr const char* kFamily = "transpose";
  using Problem = detail::Problem;
  using Choice = Variant;
  struct Facts {};

  static const std::vector<Variant>& candidates() {
    static const std::vector<Variant> all = {Variant::best_64x64_prefetch, Variant::best_64x64,
                                             Variant::best_64x64_persistent,
                                             Variant::best_32x128};
    return all;
  }
  static std::string name(Variant v) { return to_string(v); }
  static bool parse(const std::string& s, Variant* v) {
    const std::optional<Variant> got = from_string(s);
    if (got) *v = *got;
    return got.has_value();
  }
  static Variant untuned(const Problem&) { return kUntuned; }
  static bool worth_tuning(const Problem& p) {
    return vectorizable(p.in, p.out, p.rows, p.cols) &&
           static_cast<double>(p.rows) * p.cols >= kMinTunedElements;
  }
  // Only 16-byte aligned problems are tuned: the extents say the rest.
  static std::string shape_text(const Problem& p) { return detail::shape_text(p.rows, p.cols); }
  static std::string tuned_on(const Problem& p) { return detail::shape_text(p.rows, p.cols); }
  static Facts facts(int, const std::vector<Variant>&) { return {}; }
  static std::vector<std::size_t> order(const Problem&, const Facts&) {
    std::vector<std::size_t> all(candidates().size());
    std::iota(all.begin(), all.end(), std::size_t{0});  // the untuned rung first
    return all;
  }

  static memhier::tuning::Timed time(const Problem& p, const std::vector<Variant>& order,
                                     double first_ms, double second_ms, cudaStream_t stream) {
    std::vector<memhier::tuning::ScratchLaunch> warm, full;
    for (Variant v : order) {
      const auto make = [&p, v](bool corner) {
        return [&p, v, corner](void* scratch, cudaStream_t st) {
          // A corner: the first rows*cols inputs as a smaller dense matrix, always valid.
          const int rows = corner ? std::min(p.rows, kWarmExtent) : p.rows;
          const int cols = corner ? std::min(p.cols, kWarmExtent) : p.cols;
          launch_variant(v, p.in, static_cast<float*>(scratch), rows, cols, st);
        };
      };
      warm.push_back(make(true));
      full.push_back(make(false));
    }
    const std::size_t bytes =
        static_cast<std::size_t>(p.rows) * static_cast<std::size_t>(p.cols) * sizeof(float);
    return memhier::tuning::time_candidates(bytes, warm, full, first_ms, second_ms, stream);
  }
};

memhier::tuning::Tuner<TransposeTuning>& tuner() {
  static auto* t = new memhier::tuning::Tuner<TransposeTuning>();  // never destroyed
  return *t;
}

/// What best runs where nothing is timed: itself (a copy) for a vector, padded where float4
/// cannot move the rows; nullopt where the tuner decides.
std::optional<Variant> untimed(const float* in, const float* out, int rows, int cols) {
  if (rows == 1 || cols == 1) return Variant::best;
  if (!vectorizable(in, out, rows, cols)) return Variant::padded;
  return std::nullopt;
}

}  // namespace

Variant choose_best(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
  if (const std::optional<Variant> v = untimed(in, out, rows, cols)) return *v;
  return tuner().choose({in, out, rows, cols}, stream).choice;
}

memhier::tuning::Outcome tune_best(const float* in, float* out, int rows, int cols, bool retune) {
  if (const std::optional<Variant> v = untimed(in, out, rows, cols)) {
    memhier::tuning::Outcome o;
    o.config = *v == Variant::best ? "cudaMemcpy" : to_string(*v);
    return o;
  }
  return tuner().outcome({in, out, rows, cols}, nullptr, retune);
}

std::string cached_best(int rows, int cols) {
  // cudaMalloc'd bases (the bench's case): aligned, so only the size decides; a null base
  // stands for any 16-byte aligned one.
  if (const std::optional<Variant> v = untimed(nullptr, nullptr, rows, cols))
    return *v == Variant::best ? "" : to_string(*v);
  if (static_cast<double>(rows) * cols < kMinTunedElements) return to_string(kUntuned);
  const std::string known = tuner().known(shape_text(rows, cols));
  return known.empty() ? to_string(kUntuned) : known;
}

}  // namespace detail

void forget_tuning() {
  detail::tuner().forget();
}

}  // namespace memhier::transpose
