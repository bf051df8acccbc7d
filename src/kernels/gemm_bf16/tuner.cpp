// bf16 GEMM's `best` (gemm/tuner.hpp): the choice per card and exact shape, kept in memory and
// in the GEMM tuning cache on disk beside SGEMM's (gemm::tuning_cache_path(); the family is
// part of each key). A candidate that cannot run on the device or the shape is skipped.
#include "kernels/gemm/tuner.hpp"

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "memhier/kernels/gemm_bf16.hpp"
#include "variants.hpp"

namespace memhier::gemm_bf16 {
namespace detail {
namespace {

namespace tuning = gemm::tuning;

struct Bf16Traits {
  static constexpr const char* kFamily = "gemm_bf16";
  using Params = detail::Params;
  using Variant = gemm_bf16::Variant;
  static const std::vector<Variant>& candidates() { return best_candidates(); }
  static Launcher launcher_for(Variant v) { return detail::launcher_for(v); }
  static const char* name(Variant v) { return to_string(v); }
  static bool parse(const std::string& s, Variant* v) { return parse_variant(s, v); }
  static tuning::ShapeKey key(const Params& p) {
    return shape_key(p.m, p.n, p.k, p.A, p.lda, p.B, p.ldb, p.C, p.ldc);
  }
  static tuning::TileFacts tile(const Launcher& l) {
    tuning::TileFacts t;
    t.tile_m = l.tile_m;
    t.tile_n = l.tile_n;
    t.cluster_m = l.cluster_m;
    t.split_k = l.split_k;
    t.split_rounds = l.split_rounds;
    return t;
  }
  /// untuned() is the fallback that runs on every device, not a pick for speed.
  static constexpr bool kUntunedIsAPick = false;
  /// What runs untuned (tiny shapes, stream capture, no scratch memory): the first
  /// candidate, which runs on every device the ladder supports.
  static Variant untuned(const Params&) { return best_candidates().front(); }
};

gemm::detail::Tuner<Bf16Traits>& tuner() {
  static auto* t = new gemm::detail::Tuner<Bf16Traits>();  // never destroyed
  return *t;
}

}  // namespace

gemm::tuning::ShapeKey shape_key(int m, int n, int k, const __nv_bfloat16* A, int lda,
                                 const __nv_bfloat16* B, int ldb, const COut& C, int ldc) {
  gemm::tuning::ShapeKey s = gemm::tuning::call_shape(m, n, k, A, lda, B, ldb, C.data(), ldc);
  s.epilogue = epilogue_text(C);  // "" for the plain fp32 store: the keys before epilogues
  return s;
}

Variant choose_best(const Params& p, cudaStream_t stream) {
  return tuner().choose(p, stream).choice;
}

memhier::tuning::Outcome tune_best(const Params& p, cudaStream_t stream, bool retune) {
  return tuner().outcome(p, stream, retune);
}

std::string cached_best(const gemm::tuning::ShapeKey& s) {
  return tuner().cached(s);
}

}  // namespace detail

void forget_tuning() {
  detail::tuner().forget();
}

}  // namespace memhier::gemm_bf16
