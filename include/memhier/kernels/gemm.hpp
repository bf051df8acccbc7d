// SGEMM on CUDA cores: C = alpha * A * B + beta * C in fp32, row-major, any M, N, K,
// as a ladder of variants from the naive kernel to a tuned double-buffered kernel.
// No tensor cores anywhere (every variant accumulates with FFMA in fp32).
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace memhier::gemm {

/// The rungs of the ladder, in rung order; `best` picks a tuned configuration.
enum class Variant {
  naive,            ///< one thread per output, threadIdx.x along the rows of C (uncoalesced)
  coalesced,        ///< one thread per output, threadIdx.x along the columns of C
  smem_tile16,      ///< 16x16 shared-memory tiles
  smem_tile32,      ///< 32x32 shared-memory tiles
  smem_tile64,      ///< 64x64 shared-memory tiles (4 outputs per thread)
  padded,           ///< 32x32 tiles with one column of padding ([32][33])
  reg_tile_1d,      ///< 64x64 block tile, each thread a column of 8 outputs
  reg_tile_2d,      ///< 128x128 block tile, 8x8 outputs per thread
  vectorized,       ///< + float4 loads, A stored transposed in shared memory
  warp_tiled,       ///< + warp tiles (64x64 per warp, 128 threads)
  double_buffered,  ///< two shared stages with register prefetch, conflict-free LDS.128
  cp_async_2stage,  ///< cp.async pipeline, 2 stages
  cp_async_3stage,  ///< cp.async pipeline, 3 stages
  cp_async_4stage,  ///< cp.async pipeline, 4 stages
  swizzled,         ///< cp.async 3 stages, XOR-swizzled shared memory instead of padding
  // Candidates of `best` (all double-buffered unless cp4; BMxBNxBK block tile, TMxTN per thread):
  cfg_128x128x16_8x8,      ///< 128x128x16, 256 threads, one block per SM (167 registers)
  cfg_128x256x8_8x16,      ///< 128x256x8, 256 threads, 8x16 per thread: 95% of issue is FFMA
  cfg_128x64x16_8x4,       ///< 128x64x16, 256 threads: twice the blocks of 128x128
  cfg_64x64x16_4x4,        ///< 64x64x16, 256 threads: four times the blocks, for medium shapes
  cfg_64x64x16_8x4,        ///< 64x64x16, 128 threads, 8x4 per thread: more ILP, fewer warps
  cfg_cp4_128x128x16_8x8,  ///< cp.async 4 stages of 128x128x16 in 64 KiB of dynamic smem
  best,  ///< the fastest candidate for this device and shape class (tuned once, cached)
};

/// The variant's readable name ("double_buffered"), as `memhier bench --variant` takes it.
const char* to_string(Variant v);

/// Every variant, in rung order (best last).
const std::vector<Variant>& all_variants();

/// Parses a readable name; returns false when it names no variant.
bool parse_variant(const std::string& name, Variant* out);

/// C = alpha * A * B + beta * C, fp32, row-major: A is m x k (leading dimension lda >= k),
/// B is k x n (ldb >= n), C is m x n (ldc >= n), all device pointers, enqueued on `stream`.
/// Throws std::invalid_argument for non-positive sizes, short leading dimensions, null or
/// misaligned (not 4-byte) pointers, or a shape too large for the variant's grid. Any
/// alignment works: vectorized rungs use 16-byte accesses only where the base pointer is
/// 16-byte aligned and the leading dimension a multiple of 4, scalar accesses elsewhere.
/// BLAS semantics: C is not read when beta == 0 (NaN there is overwritten); A and B are not
/// read when alpha == 0 (C = beta * C). `best` tunes once per device, shape class and
/// alignment (it synchronizes `stream` the first time and then reuses the choice; see
/// best_config).
void sgemm(Variant v, int m, int n, int k, float alpha, const float* A, int lda, const float* B,
           int ldb, float beta, float* C, int ldc, cudaStream_t stream = nullptr);

/// The candidate (a Variant's name) that `best` runs for this shape on the current device,
/// or "" when it has not been chosen yet (no call at this shape class so far).
std::string best_config(int m, int n, int k, bool aligned = true);

/// Where `best` keeps its choices across runs ($XDG_CACHE_HOME/memhier/gemm-tuning.json or
/// ~/.cache/memhier/gemm-tuning.json); "" when MEMHIER_NO_TUNE_CACHE=1 or no home is known.
std::string tuning_cache_path();

/// Forgets the choices held in memory (the disk cache is re-read at the next `best` call).
void forget_tuning();

}  // namespace memhier::gemm
