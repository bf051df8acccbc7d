// `best` for both GEMM ladders through the one tuner (kernels/tuning/tuner.hpp): a choice per
// card and exact shape (extents, leading dimensions, pointer alignment). The model
// (gemm_preselect.hpp) keeps the candidates whose tiles suit this card's SMs at this shape,
// and those are timed on the caller's A and B into a scratch C. A family supplies a Traits
// type (gemm/tuner.cpp and gemm_bf16/tuner.cpp):
//   kFamily, Params, Variant, candidates(), launcher_for(v), name(v), parse(name, &v),
//   key(p) (the tuning key's ShapeKey), tile(launcher) (TileFacts without blocks_per_sm),
//   untuned(p) (what runs without tuning), kUntunedIsAPick (untuned(p) is the ladder's pick for
//   speed, timed first; else a fallback).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/tuning/candidate_timer.hpp"
#include "kernels/tuning/tuner.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/kernels/gemm.hpp"
#include "memhier/kernels/gemm_preselect.hpp"
#include "memhier/kernels/gemm_tuning_cache.hpp"

namespace memhier::gemm::detail {

/// Below 2^24 flops a GEMM is launch-bound: not worth a tuning run.
inline bool not_worth_tuning(int m, int n, int k) {
  return 2.0 * m * static_cast<double>(n) * k < 16777216.0;
}

using memhier::tuning::kWarmExtent;

/// Points an fp32 C at the scratch; a family whose C is another type overloads this beside it.
inline void point_c_at(float*& c, void* scratch) {
  c = static_cast<float*>(scratch);
}

/// time_candidates over `candidates` run on the caller's A and B (`p`: either GEMM's Params,
/// float C) into a scratch C with alpha 1 and beta 0, each launched through
/// `launcher_for(candidate).launch(params, stream)`; the warm-up is the top-left corner of at
/// most kWarmExtent rows and columns on the smallest slice of K (same leading dimensions and
/// bases), after the launcher's prepare() for the whole problem. A shape too long to time every
/// candidate whole is ranked on a slice of its K (tuning::slice_k).
template <class Params, class Variant, class LauncherFor>
memhier::tuning::Timed time_on_scratch(const Params& p, const std::vector<Variant>& candidates,
                                       LauncherFor launcher_for, double first_budget_ms,
                                       double second_budget_ms, cudaStream_t stream) {
  std::vector<memhier::tuning::ScratchLaunch> warm, full;
  std::vector<memhier::tuning::SliceLaunch> slice;
  for (Variant v : candidates) {
    const auto make = [&p, l = launcher_for(v)](bool corner) {
      return [&p, l, corner](void* scratch, cudaStream_t st, double share) {
        Params q = p;
        point_c_at(q.C, scratch);
        q.alpha = 1.f;
        q.beta = 0.f;                                // the scratch is never read
        q.k = memhier::tuning::slice_k(p.k, share);  // the first k of A's rows and B's
        if (corner) {
          q.m = std::min(q.m, kWarmExtent);
          q.n = std::min(q.n, kWarmExtent);
        }
        l.launch(q, st);
        return static_cast<double>(q.k) / static_cast<double>(p.k);
      };
    };
    // The warm-up also makes what the whole problem's launches need (staging memory), so that
    // no timed run allocates: at 4099x4097x4093 the staged candidate's first timed run took
    // three times its kernels' time. A candidate that declines the corner because it needs the
    // whole shape's waves (a tail split) warms up on the whole shape's smallest slice instead.
    warm.push_back([&p, prepare = launcher_for(v).prepare, corner = make(true),
                    whole = make(false)](void* c, cudaStream_t st) {
      if (prepare) prepare(p, st);
      try {
        corner(c, st, 0.0);
      } catch (const std::invalid_argument&) {
        whole(c, st, 0.0);
      }
    });
    full.push_back([f = make(false)](void* c, cudaStream_t st) { f(c, st, 1.0); });
    slice.push_back(make(false));
  }
  return memhier::tuning::time_candidates(
      static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.ldc) * sizeof(float), warm, full,
      first_budget_ms, second_budget_ms, stream, slice);
}

/// A GEMM family's Traits as the one tuner takes them: the key from the extents, leading
/// dimensions and alignments; the model of tiles and waves on this card's SMs.
template <class Traits>
struct GemmTuning {
  static constexpr const char* kFamily = Traits::kFamily;
  using Problem = typename Traits::Params;
  using Choice = typename Traits::Variant;
  struct Facts {
    int sms = 0;
    std::vector<tuning::TileFacts> tiles;
  };

  static const std::vector<Choice>& candidates() { return Traits::candidates(); }
  static std::string name(Choice v) { return Traits::name(v); }
  static bool parse(const std::string& s, Choice* v) { return Traits::parse(s, v); }
  static Choice untuned(const Problem& p) { return Traits::untuned(p); }
  static bool worth_tuning(const Problem& p) { return !not_worth_tuning(p.m, p.n, p.k); }
  static std::string shape_text(const Problem& p) { return tuning::shape_text(Traits::key(p)); }
  static std::string tuned_on(const Problem& p) {
    return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
  }
  static std::vector<std::size_t> order(const Problem& p, const Facts& f) {
    std::vector<std::size_t> out = tuning::preselect(p.m, p.n, f.sms, f.tiles, {f.tiles.size()});
    // The wave model sees neither a kernel's speed nor the candidates that decline this
    // shape's alignment (at 3001x7001x2999 it kept TMA kernels that decline and cut the one
    // that stages the operands): what it cut follows, timed while the first look's budget lasts.
    for (std::size_t i = 0; i < f.tiles.size(); ++i)
      if (f.tiles[i].blocks_per_sm > 0 && std::find(out.begin(), out.end(), i) == out.end())
        out.push_back(i);
    // Where what runs untuned is the ladder's own pick for the shape, it is timed first: a
    // first look that times few candidates (a long shape) still weighs it against the rest.
    if (Traits::kUntunedIsAPick) {
      const std::vector<Choice>& all = candidates();
      const auto pick = std::find(all.begin(), all.end(), untuned(p));
      const auto at =
          std::find(out.begin(), out.end(), static_cast<std::size_t>(pick - all.begin()));
      if (pick != all.end() && at != out.end()) std::rotate(out.begin(), at, at + 1);
    }
    return out;
  }
  static memhier::tuning::Timed time(const Problem& p, const std::vector<Choice>& order,
                                     double first_ms, double second_ms, cudaStream_t stream) {
    return time_on_scratch(p, order, Traits::launcher_for, first_ms, second_ms, stream);
  }

  /// Each candidate's tile and resident blocks per SM on device `dev` (0 where the build
  /// has no code for it or its shared memory does not fit).
  static Facts facts(int dev, const std::vector<Choice>& all) {
    Facts out;
    MEMHIER_CUDA(cudaDeviceGetAttribute(&out.sms, cudaDevAttrMultiProcessorCount, dev));
    for (Choice v : all) {
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
      out.tiles.push_back(t);
    }
    return out;
  }
};

/// The one tuner over a GEMM family, with the GEMM key's lookup by ShapeKey.
template <class Traits>
class Tuner : public memhier::tuning::Tuner<GemmTuning<Traits>> {
 public:
  /// The choice known for `s` on the current device ("" if none), the disk cache included.
  std::string cached(const tuning::ShapeKey& s) {
    if (not_worth_tuning(s.m, s.n, s.k)) {
      typename Traits::Params p;
      p.m = s.m;
      p.n = s.n;
      p.k = s.k;
      return Traits::name(Traits::untuned(p));
    }
    return this->known(tuning::shape_text(s));
  }
};

}  // namespace memhier::gemm::detail
