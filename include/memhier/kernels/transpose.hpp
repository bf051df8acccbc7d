// Matrix transpose, fp32: a row-major rows x cols matrix in, its row-major cols x rows
// transpose out. One entry point, every rung of the ladder selectable by name.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memhier::transpose {

/// The rungs of the ladder, in order (transpose_rungs.inc); `best` dispatches on shape and
/// alignment: memcpy for 1xN / Nx1, padded when the float4 path cannot run, else the float4
/// rung tuned for this card and shape (best_variant_at).
enum class Variant {
#define MEMHIER_RUNG(name, ...) name,
#define MEMHIER_BEST(name, ...) name,
#include "memhier/kernels/transpose_rungs.inc"
};

/// Every variant, in rung order (best last).
inline constexpr Variant kAllVariants[] = {
#define MEMHIER_RUNG(name, ...) Variant::name,
#define MEMHIER_BEST(name, ...) Variant::name,
#include "memhier/kernels/transpose_rungs.inc"
};

/// The variant's readable name ("padded", "best_64x64"); the registry and --variant use it.
const char* to_string(Variant v);

/// The variant named `name`, or nullopt when there is none.
std::optional<Variant> from_string(const std::string& name);

/// Every variant, in rung order (best last).
std::vector<Variant> all_variants();

/// Throws std::invalid_argument (one sentence) when the kernels cannot index a rows x cols
/// matrix: an extent below 1 or above 2^31-1, or more than 2^31-1 tiles of 32x32.
void check_shape(std::int64_t rows, std::int64_t cols);

/// Writes the transpose of the row-major rows x cols matrix `in` (device memory) to `out`
/// (device memory, cols x rows, row-major), asynchronously on `stream`.
/// Throws std::invalid_argument for a bad shape (see check_shape), a null or not 4-byte
/// aligned pointer, overlapping in/out (no in-place transpose), or an unknown variant.
/// The best_* variants need 16-byte aligned pointers and rows, cols multiples of 4 for
/// their float4 path; otherwise they fall back to the padded kernel (still correct).
/// The tma variant declines (std::invalid_argument, the reason) below compute capability
/// 9.0 and where TMA cannot describe a side: rows or cols not a multiple of 4, or a pointer
/// not 16-byte aligned.
void transpose(Variant v, const float* in, float* out, std::int64_t rows, std::int64_t cols,
               cudaStream_t stream = nullptr);

/// The rung Variant::best runs for this call on the current device (Variant::best itself
/// where it copies a vector with cudaMemcpy): padded where the float4 path cannot run;
/// best_64x64_prefetch below 2^21 elements (launch-bound); otherwise the float4 rung known
/// from the tuning cache (per card, rows and cols; the file every tuned family shares), else
/// decided now by timing the four on `in` into a scratch output (`out` is not written), as
/// the first transpose(best) at a new shape does. Same arguments and errors as transpose.
Variant best_variant_at(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                        cudaStream_t stream = nullptr);

/// Forgets the tuned choices held in memory (the cache file is read again at the next call).
void forget_tuning();

}  // namespace memhier::transpose
