// Private to the bf16 GEMM ladder: the parameter block every kernel takes and one host
// launcher per rung (each in its own .cu). Host-only declarations.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "memhier/core/launch.hpp"
#include "memhier/kernels/gemm_bf16.hpp"
#include "memhier/kernels/gemm_preselect.hpp"
#include "output.hpp"

namespace memhier::gemm::tuning {
struct ShapeKey;
struct Outcome;
}  // namespace memhier::gemm::tuning

namespace memhier::gemm_bf16::detail {

/// One validated problem (row-major, device pointers; C and the epilogue's bias in COut).
/// vec_a / vec_b say where 16-byte (8-element) accesses are legal: base 16-byte aligned and
/// leading dimension a multiple of 8.
struct Params {
  int m = 0, n = 0, k = 0;
  float alpha = 1.f, beta = 0.f;
  const __nv_bfloat16* A = nullptr;
  const __nv_bfloat16* B = nullptr;
  COut C;
  int lda = 0, ldb = 0, ldc = 0;
  bool vec_a = false, vec_b = false;
};

/// A runnable kernel: its launch, its main kernel, its block and dynamic shared memory, and
/// for best's model (gemm/tuner.hpp) its block tile of C (0: not given) and the tile rows one
/// cluster spans.
struct Launcher {
  void (*launch)(const Params&, cudaStream_t) = nullptr;
  const void* (*symbol)() = nullptr;
  int block_threads = 0;
  int dynamic_smem = 0;
  int tile_m = 0, tile_n = 0;
  int cluster_m = 1;
  /// Splits K where its tiles leave half the card or more idle (always: declines elsewhere).
  gemm::tuning::SplitK split_k = gemm::tuning::SplitK::never;
  int split_rounds = 0;  ///< SplitK::tail: the most rounds its splits may take (0: any)
  /// What a launch at these extents needs made first (staging memory), or null: the tuner
  /// calls it before timing so that no timed run includes an allocation.
  void (*prepare)(const Params&, cudaStream_t) = nullptr;
};

// The rungs (gemm_bf16_rungs.inc): one launcher per rung, in the rung's .cu.
#define MEMHIER_RUNG(name, launcher, ...) Launcher launcher();
#define MEMHIER_BEST(...)
#include "memhier/kernels/gemm_bf16_rungs.inc"

/// The launcher of a variant other than `best` (throws std::invalid_argument for best).
Launcher launcher_for(Variant v);

/// The candidates `best` tunes among, in table order.
const std::vector<Variant>& best_candidates();

/// The candidate `best` runs for `p` on the current device: the choice known for this card
/// and shape, or one tuned now on `stream` (gemm/tuner.hpp).
Variant choose_best(const Params& p, cudaStream_t stream);

/// choose_best with what it cost; `retune` times the candidates even when a choice is known.
memhier::tuning::Outcome tune_best(const Params& p, cudaStream_t stream, bool retune);

/// The tuning key of a call: its extents, leading dimensions, bases' alignment and epilogue.
gemm::tuning::ShapeKey shape_key(int m, int n, int k, const __nv_bfloat16* A, int lda,
                                 const __nv_bfloat16* B, int ldb, const COut& C, int ldc);

/// The choice known for this card and shape (memory or disk), "" if none yet.
std::string cached_best(const gemm::tuning::ShapeKey& s);

/// C = beta * C + bias (C unread when beta == 0): the alpha == 0 path of every variant.
void launch_scale_c(const Params& p, cudaStream_t stream);

using core::grid_2d;

using core::prepare_dynamic_smem;

}  // namespace memhier::gemm_bf16::detail
