// Private to the transpose ladder: one host launch function per variant (each in the .cu
// file named for its technique) and the kernel symbols the registry reports on.
// Callers validate first (transpose() in dispatch.cu does); launchers assume
// 1 <= rows, cols <= 2^31-1 and at most 2^31-1 tiles of 32x32.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "memhier/kernels/transpose.hpp"
#include "memhier/kernels/tuning_budget.hpp"

namespace memhier::transpose::detail {

inline constexpr int kBlockThreads = 256;  ///< every transpose kernel runs 256 threads

/// The tiles of a rows x cols matrix cut into tile_rows x tile_cols tiles; tile t sits at
/// tile row t / tiles_x, tile column t % tiles_x.
struct TileGrid {
  unsigned tiles_x = 0;
  unsigned count = 0;
};

inline TileGrid tile_grid(int rows, int cols, int tile_rows, int tile_cols) {
  const std::int64_t tx = (static_cast<std::int64_t>(cols) + tile_cols - 1) / tile_cols;
  const std::int64_t ty = (static_cast<std::int64_t>(rows) + tile_rows - 1) / tile_rows;
  return {static_cast<unsigned>(tx), static_cast<unsigned>(tx * ty)};
}

/// True when the float4 path may run: both pointers 16-byte aligned and rows, cols
/// multiples of 4 (then every input row and output row starts 16-byte aligned).
bool vectorizable(const float* in, const float* out, int rows, int cols);

// The rungs (transpose_rungs.inc), each launch in its own .cu. A launch runs its rung on a
// validated shape; the float4 ones fall back to launch_padded when !vectorizable(...).
// symbol() is the rung's main kernel, for cudaFuncGetAttributes.
#define MEMHIER_RUNG(name, launch, symbol, ...)                                 \
  void launch(const float* in, float* out, int rows, int cols, cudaStream_t s); \
  const void* symbol();
#define MEMHIER_BEST(...)
#include "memhier/kernels/transpose_rungs.inc"

// tuner.cpp: `best`'s float4 rung per card and shape.

/// The rung `best` runs for this validated call on the current device: best itself for a
/// vector (the caller copies), padded where the float4 path cannot run, best_64x64_prefetch
/// untuned at launch-bound sizes, else from the tuning cache or timed now.
Variant choose_best(const float* in, float* out, int rows, int cols, cudaStream_t stream);

/// choose_best with what it cost (config "cudaMemcpy" for a vector); `retune` times the
/// candidates even when a choice is known.
memhier::tuning::Outcome tune_best(const float* in, float* out, int rows, int cols, bool retune);

/// The rung `best` runs at rows x cols with cudaMalloc'd bases on the current device as far
/// as the cache knows (padded where the float4 path cannot run, "" for a vector); never tunes.
std::string cached_best(int rows, int cols);

}  // namespace memhier::transpose::detail
