// 2D fp32 stencil (convolution with a K×K filter, K = 3, 5 or 7), clamp-to-edge borders:
//   out[r][c] = sum_{i,j < K} w[i][j] * in[clamp(r + i - R)][clamp(c + j - R)],  R = K / 2,
// as a ladder of variants from "every tap from global memory" to a register-blocked,
// vectorized, cp.async-filled shared tile. Row-major, densely packed (row pitch = cols).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace memhier::stencil {

/// The variants in rung order (stencil_rungs.inc); `best` runs the best_* configuration
/// tuned for the card and shape.
enum class Variant {
#define MEMHIER_RUNG(name, ...) name,
#define MEMHIER_BEST(name, ...) name,
#include "memhier/kernels/stencil_rungs.inc"
};

/// Every variant, in rung order (best last).
inline constexpr Variant kAllVariants[] = {
#define MEMHIER_RUNG(name, ...) Variant::name,
#define MEMHIER_BEST(name, ...) Variant::name,
#include "memhier/kernels/stencil_rungs.inc"
};

/// The variant's readable name ("register_blocked"), as `memhier bench --variant` takes it.
const char* to_string(Variant v);

/// The variant named `name`; false (and *out untouched) when no variant has that name.
bool variant_from_string(const std::string& name, Variant* out);

/// The configuration that Variant::best runs for filter size `k` before (or without) tuning:
/// at launch-bound shapes, while a stream is captured, or when no candidate could be timed.
/// Throws std::invalid_argument unless k is 3, 5 or 7.
Variant best_variant_for(int k);

/// The configuration that Variant::best runs for this call on the current device: known
/// from the tuning cache (per card, rows, cols, k and the bases' 16-byte alignment; shared
/// with the GEMMs' in gemm::tuning_cache_path()), else decided now by timing the candidates
/// a model of this card keeps on `in` into a scratch output (`out` is not written), as the
/// first stencil2d(best) at a new shape does. Same arguments and errors as stencil2d.
Variant best_variant_at(const float* in, float* out, int rows, int cols, const float* filter, int k,
                        cudaStream_t stream = nullptr);

/// Forgets the tuned choices held in memory (the cache file is read again at the next call).
void forget_tuning();

/// Applies the k×k `filter` (HOST pointer, row-major, k*k floats) to the rows×cols image
/// `in` (device) and writes `out` (device), clamping at the borders, on `stream`.
/// Throws std::invalid_argument (one sentence) for k not in {3, 5, 7}, non-positive
/// extents, null pointers, pointers not aligned to a float, or `in` and `out` overlapping
/// (in place is not supported). Pointers need only 4-byte alignment: the best_* variants
/// use 16-byte accesses where rows and pointers allow and fall back to 4-byte ones
/// elsewhere. The filter is copied before the call returns (cudaMemcpyToSymbolAsync to
/// a per-process __constant__ / __device__ symbol, ordered on `stream`): calls with
/// different filters on different streams must not run concurrently.
void stencil2d(Variant v, const float* in, float* out, int rows, int cols, const float* filter,
               int k, cudaStream_t stream = nullptr);

}  // namespace memhier::stencil
