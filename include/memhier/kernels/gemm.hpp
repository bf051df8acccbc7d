// SGEMM on CUDA cores: C = alpha * A * B + beta * C in fp32, row-major, any M, N, K,
// as a ladder of variants from the naive kernel to a tuned double-buffered kernel.
// No tensor cores anywhere (every variant accumulates with FFMA in fp32).
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "memhier/kernels/tuning_budget.hpp"

namespace memhier::gemm {

/// The rungs of the ladder, in rung order (gemm_rungs.inc); `best` picks a tuned
/// configuration among the candidates the table marks.
enum class Variant {
#define MEMHIER_RUNG(name, ...) name,
#define MEMHIER_BEST(name, ...) name,
#include "memhier/kernels/gemm_rungs.inc"
};

/// Every variant, in rung order (best last).
inline constexpr Variant kAllVariants[] = {
#define MEMHIER_RUNG(name, ...) Variant::name,
#define MEMHIER_BEST(name, ...) Variant::name,
#include "memhier/kernels/gemm_rungs.inc"
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
/// read when alpha == 0 (C = beta * C). `best` tunes once per card and shape (extents,
/// leading dimensions, alignment): the first call at a shape times a few candidates a model
/// of tiles and waves keeps (it synchronizes `stream`), later calls and later processes reuse
/// the choice (see best_config and tuning_cache_path).
void sgemm(Variant v, int m, int n, int k, float alpha, const float* A, int lda, const float* B,
           int ldb, float beta, float* C, int ldc, cudaStream_t stream = nullptr);

/// Decides `best`'s configuration for this problem now, computing nothing into C: the
/// choice known for this card and shape, else the candidates timed (into a scratch C; it
/// synchronizes `stream`); with `retune`, timed even when known. What `memhier tune` calls to
/// fill the cache ahead of time. Throws what sgemm() throws for bad input.
memhier::tuning::Outcome tune(int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                           float* C, int ldc, bool retune = false, cudaStream_t stream = nullptr);

/// The candidate (a Variant's name) that `best` runs on the current device for a dense
/// problem (lda = k, ldb = ldc = n, bases from cudaMalloc), or "" when it has not been chosen
/// yet (in this process or in the cache on disk).
std::string best_config(int m, int n, int k);

/// The same for exactly the pointers and leading dimensions a call passes: `best` decides
/// per card, extents, leading dimensions and each base's alignment.
std::string best_config(int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                        const float* C, int ldc);

/// Where `best` keeps its choices across runs ($MEMHIER_CACHE_DIR/gemm-tuning.json, else
/// $XDG_CACHE_HOME/memhier/gemm-tuning.json or ~/.cache/memhier/gemm-tuning.json); "" when
/// MEMHIER_NO_TUNE_CACHE=1 or no home is known.
std::string tuning_cache_path();

/// Forgets the choices held in memory (the disk cache is re-read at the next `best` call).
void forget_tuning();

}  // namespace memhier::gemm
