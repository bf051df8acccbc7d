// Matrix transpose, fp32: a row-major rows x cols matrix in, its row-major cols x rows
// transpose out. One entry point, every rung of the ladder selectable by name.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memhier::transpose {

/// The rungs of the ladder, in order; `best` dispatches on shape and alignment.
enum class Variant {
  naive,                  ///< coalesced reads, strided writes (no shared memory)
  tile,                   ///< shared tile [32][32]: coalesced both ways, 32-way bank conflicts
  padded,                 ///< shared tile [32][33]: no bank conflicts
  swizzled,               ///< shared tile [32][32] with XOR swizzle: no conflicts, no padding
  best_64x64,             ///< float4 both ways, 64x64 tile, one tile per block
  best_32x128,            ///< float4 both ways, 32x128 tile, one tile per block
  best_64x64_persistent,  ///< float4 both ways, 64x64 tile, grid of resident blocks, tile loop
  best_64x64_prefetch,    ///< best_64x64, each block first bulk-prefetching a later tile into L2
  best,  ///< memcpy for 1xN / Nx1, best_64x64_prefetch when aligned, padded otherwise
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
void transpose(Variant v, const float* in, float* out, std::int64_t rows, std::int64_t cols,
               cudaStream_t stream = nullptr);

}  // namespace memhier::transpose
