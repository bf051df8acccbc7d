// SGEMM's `best` (gemm/tuner.hpp): the choice per card and exact shape, kept in memory and on
// disk (tuning::cache_path(): $MEMHIER_CACHE_DIR/gemm-tuning.json, else
// $XDG_CACHE_HOME/memhier/... or ~/.cache/memhier/...; off with MEMHIER_NO_TUNE_CACHE=1). An
// entry's key names the device, driver, toolkit, runtime, memhier version, candidate list,
// family and shape, so a change to any of them tunes again by itself. A missing, corrupt or
// unwritable cache never fails a run (tuning/cache.cpp).
#include "tuner.hpp"

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "memhier/core/check.hpp"
#include "memhier/kernels/gemm.hpp"
#include "memhier/kernels/gemm_tuning_cache.hpp"
#include "variants.hpp"

namespace memhier::gemm {
namespace detail {

namespace {

struct SgemmTraits {
  static constexpr const char* kFamily = "gemm";
  using Params = detail::Params;
  using Variant = gemm::Variant;
  static const std::vector<Variant>& candidates() { return best_candidates(); }
  static Launcher launcher_for(Variant v) { return detail::launcher_for(v); }
  static const char* name(Variant v) { return to_string(v); }
  static bool parse(const std::string& s, Variant* v) { return parse_variant(s, v); }
  static tuning::ShapeKey key(const Params& p) {
    return tuning::call_shape(p.m, p.n, p.k, p.A, p.lda, p.B, p.ldb, p.C, p.ldc);
  }
  static tuning::TileFacts tile(const Launcher& l) {
    tuning::TileFacts t;
    t.tile_m = l.block_tile.bm;
    t.tile_n = l.block_tile.bn;
    t.split_k = l.split_k;
    t.trims_edges = l.trims_edges;
    return t;
  }
  /// Before (or without) tuning: 128 x 128 tiles fill the SMs only from 2^34 flops (2048^3).
  /// A pick for speed, timed first: at 8192^3 on the H200 the first look times five of the
  /// candidates on a slice of K, and double_buffered (0.94 x cuBLAS there) was not among them.
  static constexpr bool kUntunedIsAPick = true;
  static Variant untuned(const Params& p) {
    return 2.0 * p.m * static_cast<double>(p.n) * p.k >= 17179869184.0 ? Variant::double_buffered
                                                                       : Variant::cfg_64x64x16_4x4;
  }
};

Tuner<SgemmTraits>& tuner() {
  static auto* t = new Tuner<SgemmTraits>();  // never destroyed: usable from static destructors
  return *t;
}

}  // namespace

Variant choose_best(const Params& p, cudaStream_t stream) {
  return tuner().choose(p, stream).choice;
}

memhier::tuning::Outcome tune_best(const Params& p, cudaStream_t stream, bool retune) {
  return tuner().outcome(p, stream, retune);
}

std::string cached_best(const tuning::ShapeKey& s) {
  return tuner().cached(s);
}

}  // namespace detail

std::string tuning_cache_path() {
  return memhier::tuning::cache_path();
}

void forget_tuning() {
  detail::tuner().forget();
}

}  // namespace memhier::gemm
