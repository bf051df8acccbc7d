// Private to the GEMM ladder: the parameter block every kernel takes and one host launch
// function per rung (each in its own .cu). Host-only declarations.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "memhier/core/launch.hpp"
#include "memhier/kernels/gemm.hpp"
#include "memhier/kernels/gemm_preselect.hpp"

namespace memhier::gemm::tuning {
struct ShapeKey;
struct Outcome;
}  // namespace memhier::gemm::tuning

namespace memhier::gemm::detail {

/// One validated problem (row-major, device pointers). The vec_* flags say where 16-byte
/// accesses are legal: base pointer 16-byte aligned and leading dimension a multiple of 4.
struct Params {
  int m = 0, n = 0, k = 0;
  float alpha = 1.f, beta = 0.f;
  const float* A = nullptr;
  const float* B = nullptr;
  float* C = nullptr;
  int lda = 0, ldb = 0, ldc = 0;
  bool vec_a = false, vec_b = false, vec_c = false;
};

/// The block tile of a kernel built on block_tile.cuh (BlockTile's parameters) and how
/// it stages k-tiles: through registers (double_buffered_kernel) or by cp.async
/// (cp_async_kernel). What predict() replays; bm == 0 for every other kernel.
struct TileShape {
  int bm = 0, bn = 0, bk = 0, rm = 0, rn = 0;
  bool swizzled = false;
  bool cp_async = false;
};

/// A runnable kernel configuration: its launch, its main kernel, its block and smem.
struct Launcher {
  void (*launch)(const Params&, cudaStream_t) = nullptr;
  const void* (*symbol)() = nullptr;
  int block_threads = 0;
  int dynamic_smem = 0;
  TileShape block_tile = {};
  /// Splits K where its tiles leave the card half idle (always: declines elsewhere).
  gemm::tuning::SplitK split_k = gemm::tuning::SplitK::never;
  /// What a launch at these extents needs made first (staging memory), or null: the tuner
  /// calls it before timing so that no timed run includes an allocation.
  void (*prepare)(const Params&, cudaStream_t) = nullptr;
  /// Runs C's ragged last rows and columns apart from its whole tiles (edges.cpp).
  bool trims_edges = false;
};

// The rungs (gemm_rungs.inc): one launcher per rung, in the rung's .cu.
#define MEMHIER_RUNG(name, launcher, ...) Launcher launcher();
#define MEMHIER_BEST(...)
#include "memhier/kernels/gemm_rungs.inc"

/// Throws, before anything runs, the sentence the edges' candidate `name` declines `p` with
/// where C holds no whole 128x256 tile or no ragged edge (`whole` runs C of whole tiles).
void edges_check(const char* name, const Params& p, const char* whole);

/// The launcher of a variant other than `best` (throws std::invalid_argument for best).
Launcher launcher_for(Variant v);

/// The candidates `best` tunes among, in the order they are tried.
const std::vector<Variant>& best_candidates();

/// The candidate `best` runs for `p` on the current device: the choice known for this card
/// and shape, or one tuned now on `stream` (gemm/tuner.hpp).
Variant choose_best(const Params& p, cudaStream_t stream);

/// choose_best with what it cost; `retune` times the candidates even when a choice is known.
memhier::tuning::Outcome tune_best(const Params& p, cudaStream_t stream, bool retune);

/// The choice known for this card and shape (memory or disk), "" if none yet.
std::string cached_best(const tuning::ShapeKey& s);

/// C = beta * C (zeros when beta == 0, C unread): the alpha == 0 path of every variant.
void launch_scale_c(const Params& p, cudaStream_t stream);

using core::prepare_dynamic_smem;

using core::grid_2d;
dim3 grid_1d(long long blocks, const char* what);

}  // namespace memhier::gemm::detail
