// The tensor-core GEMM ladder: C = alpha * A * B + beta * C with A and B in bf16, fp32
// accumulation and C in fp32, row-major, any M, N, K, from WMMA fragments read straight
// from global memory to a cp.async pipeline of mma.sync tiles; and the epilogue a layer
// needs fused into C's store (a bias per column, a bf16 C).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "memhier/kernels/tuning_budget.hpp"

namespace memhier::gemm_bf16 {

/// The rungs of the ladder, in rung order (gemm_bf16_rungs.inc); `best` picks the fastest
/// candidate the table marks.
enum class Variant {
#define MEMHIER_RUNG(name, ...) name,
#define MEMHIER_BEST(name, ...) name,
#include "memhier/kernels/gemm_bf16_rungs.inc"
};

/// Every variant, in rung order (best last).
inline constexpr Variant kAllVariants[] = {
#define MEMHIER_RUNG(name, ...) Variant::name,
#define MEMHIER_BEST(name, ...) Variant::name,
#include "memhier/kernels/gemm_bf16_rungs.inc"
};

/// The variant's readable name ("mma_swizzled"), as `memhier bench --variant` takes it.
const char* to_string(Variant v);

/// Every variant, in rung order (best last).
const std::vector<Variant>& all_variants();

/// Parses a readable name; returns false when it names no variant.
bool parse_variant(const std::string& name, Variant* out);

/// C = alpha * A * B + beta * C: A is m x k bf16 (lda >= k), B is k x n bf16 (ldb >= n), C is
/// m x n fp32 (ldc >= n), all row-major device pointers, accumulated in fp32 on the tensor
/// cores, enqueued on `stream`. Throws std::invalid_argument for non-positive sizes, short
/// leading dimensions, null or misaligned pointers (A and B 2-byte, C 4-byte), or a shape too
/// large for the variant's grid. 16-byte accesses are used only where the base is 16-byte
/// aligned and the leading dimension a multiple of 8 elements. BLAS semantics: C is not read
/// when beta == 0; A and B are not read when alpha == 0. `best` tunes once per card and
/// shape (extents, leading dimensions, alignment; it synchronizes `stream` the first time),
/// and keeps the choice in memory and in SGEMM's cache on disk (gemm::tuning_cache_path()).
void gemm_bf16(Variant v, int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda,
               const __nv_bfloat16* B, int ldb, float beta, float* C, int ldc,
               cudaStream_t stream = nullptr);

/// What the epilogue adds to alpha * A * B + beta * C as C is stored, in every variant.
struct Epilogue {
  /// n fp32 values (4-byte aligned), bias[j] added to every element of column j: a linear
  /// layer's bias (y = x W + b). Null: none.
  const float* bias = nullptr;
};

/// gemm_bf16() with an epilogue: C = alpha * A * B + beta * C + bias, fp32 C.
void gemm_bf16(Variant v, int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda,
               const __nv_bfloat16* B, int ldb, float beta, float* C, int ldc,
               const Epilogue& epilogue, cudaStream_t stream = nullptr);

/// The same into a bf16 C (2-byte aligned): the fp32 result (accumulated, scaled, beta * C and
/// the bias added in fp32) rounded to nearest even as it is stored; C is read as bf16 when
/// beta != 0. `best` tunes these calls apart from the fp32 ones (the key names the epilogue).
void gemm_bf16(Variant v, int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda,
               const __nv_bfloat16* B, int ldb, float beta, __nv_bfloat16* C, int ldc,
               const Epilogue& epilogue = {}, cudaStream_t stream = nullptr);

/// Decides `best`'s configuration for this problem now, computing nothing into C: the
/// choice known for this card and shape, else the candidates timed (into a scratch C; it
/// synchronizes `stream`); with `retune`, timed even when known. What `memhier tune` calls to
/// fill the cache ahead of time. Throws what gemm_bf16() throws for bad input.
memhier::tuning::Outcome tune(int m, int n, int k, const __nv_bfloat16* A, int lda,
                              const __nv_bfloat16* B, int ldb, float* C, int ldc,
                              bool retune = false, cudaStream_t stream = nullptr);

/// The candidate (a Variant's name) that `best` runs on the current device for a dense
/// problem (lda = k, ldb = ldc = n, bases from cudaMalloc), or "" when it has not been chosen
/// yet (in this process or in the cache on disk).
std::string best_config(int m, int n, int k);

/// The same for exactly the pointers, leading dimensions and epilogue a call passes: `best`
/// decides per card, extents, leading dimensions, each base's alignment and the epilogue.
std::string best_config(int m, int n, int k, const __nv_bfloat16* A, int lda,
                        const __nv_bfloat16* B, int ldb, const float* C, int ldc,
                        const Epilogue& epilogue = {});
std::string best_config(int m, int n, int k, const __nv_bfloat16* A, int lda,
                        const __nv_bfloat16* B, int ldb, const __nv_bfloat16* C, int ldc,
                        const Epilogue& epilogue = {});

/// Forgets the choices held in memory (the disk cache, gemm::tuning_cache_path(), is read
/// again at the next `best` call).
void forget_tuning();

}  // namespace memhier::gemm_bf16
