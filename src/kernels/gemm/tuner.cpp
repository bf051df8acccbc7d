// SGEMM's `best` (gemm/tuner.hpp): the choice per card and exact shape, kept in memory and on
// disk ($MEMHIER_CACHE_DIR/gemm-tuning.json, else $XDG_CACHE_HOME/memhier/... or
// ~/.cache/memhier/...; off with MEMHIER_NO_TUNE_CACHE=1). An entry's key names the device,
// driver, toolkit, runtime, memhier version, candidate list, family and shape, so a change to
// any of them tunes again by itself. A missing, corrupt or unwritable cache never fails a run
// (tuning_cache.cpp).
#include "tuner.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "memhier/core/cache_dir.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/device.hpp"
#include "memhier/kernels/gemm.hpp"
#include "memhier/kernels/gemm_tuning_cache.hpp"
#include "variants.hpp"

#ifndef MEMHIER_VERSION
#define MEMHIER_VERSION "0.0.0"
#endif

namespace memhier::gemm {
namespace detail {

std::string device_key_prefix(int dev, const std::vector<std::string>& candidate_names) {
  cudaDeviceProp prop{};
  MEMHIER_CUDA(cudaGetDeviceProperties(&prop, dev));
  const core::Versions versions = core::cuda_versions();
  tuning::DeviceFacts facts;
  facts.device =
      std::string(prop.name) + "|sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  facts.driver = versions.driver_release + " (CUDA " + versions.driver + ")";
  facts.toolkit = std::to_string(CUDART_VERSION);
  facts.runtime = versions.runtime;
  facts.memhier_version = MEMHIER_VERSION;
  return tuning::key_prefix(facts, candidate_names);
}

namespace {

struct SgemmTraits {
  static constexpr const char* kFamily = "gemm";
  using Params = detail::Params;
  using Variant = gemm::Variant;
  static const std::vector<Variant>& candidates() { return best_candidates(); }
  static Launcher launcher_for(Variant v) { return detail::launcher_for(v); }
  static const char* name(Variant v) { return to_string(v); }
  static bool parse(const std::string& s, Variant* v) { return parse_variant(s, v); }
  static tuning::TileFacts tile(const Launcher& l) {
    tuning::TileFacts t;
    t.tile_m = l.block_tile.bm;
    t.tile_n = l.block_tile.bn;
    return t;
  }
  /// Before (or without) tuning: 128 x 128 tiles fill the SMs only from 2^34 flops (2048^3).
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

tuning::Outcome tune_best(const Params& p, cudaStream_t stream, bool retune) {
  return tuner().outcome(p, stream, retune);
}

std::string cached_best(const tuning::ShapeKey& s) {
  return tuner().cached(s);
}

}  // namespace detail

std::string tuning_cache_path() {
  const char* off = std::getenv("MEMHIER_NO_TUNE_CACHE");
  if (off && *off && std::string(off) != "0") return {};
  const std::string dir = core::cache_dir();
  return dir.empty() ? dir : dir + "/gemm-tuning.json";
}

void forget_tuning() {
  detail::tuner().forget();
}

}  // namespace memhier::gemm
