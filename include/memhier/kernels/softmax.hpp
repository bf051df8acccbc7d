// Row softmax, fp32, row-major: y[r][c] = exp(x[r][c] - max_r) / sum_c exp(x[r][c] - max_r).
// One entry point for every rung of the ladder; `best` dispatches on the shape the way
// OneFlow's softmax does (a warp per row, a block per row, a cluster per row, uncached).
#pragma once

#include <cuda_runtime_api.h>

#include <optional>
#include <string>

namespace memhier::softmax {

/// The rungs of the ladder, in order (softmax_rungs.inc); `best` dispatches on the shape.
enum class Variant {
#define MEMHIER_RUNG(name, ...) name,
#define MEMHIER_BEST(name, ...) name,
#include "memhier/kernels/softmax_rungs.inc"
};

/// Every variant, in rung order (best last).
inline constexpr Variant kAllVariants[] = {
#define MEMHIER_RUNG(name, ...) Variant::name,
#define MEMHIER_BEST(name, ...) Variant::name,
#include "memhier/kernels/softmax_rungs.inc"
};

/// The variant's readable name ("warp_per_row").
const char* to_string(Variant v);

/// The variant called `name`, or nullopt.
std::optional<Variant> variant_from_string(const std::string& name);

/// The variant `best` runs for this shape on the current device with 16-byte-aligned
/// pointers (one of warp_per_row, block_per_row, cluster_per_row, uncached). Throws
/// std::invalid_argument for a bad shape.
Variant best_variant(int rows, int cols);

/// Softmax over each row of `in` (rows x cols, row-major, device memory) into `out`, on
/// `stream`. Throws std::invalid_argument (one sentence) for null or overlapping pointers,
/// pointers not aligned to 4 bytes, non-positive shapes or more than 2^30 columns, or a
/// variant that cannot hold a row this long (warp_per_row: cols <= 1024; block_per_row and
/// cluster_per_row: the row or its chunk must fit in shared memory). Rows that are not
/// 16-byte aligned (cols % 4 != 0 or an offset pointer) fall back to scalar accesses. A row
/// of all -inf has no softmax (NaN or zeros, by path). Throws core::CudaError for a failed
/// CUDA call.
void softmax(Variant v, const float* in, float* out, int rows, int cols,
             cudaStream_t stream = nullptr);

}  // namespace memhier::softmax
