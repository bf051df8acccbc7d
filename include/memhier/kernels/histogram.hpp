// 256-bin histograms of uint8 and int32 values: a ladder from one global atomic per
// element to per-lane shared-memory copies fed by 16-byte loads, and `best`.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace memhier::histogram {

/// The variants, in rung order (histogram_rungs.inc).
enum class Variant {
#define MEMHIER_RUNG(name, ...) name,
#define MEMHIER_BEST(name, ...) name,
#include "memhier/kernels/histogram_rungs.inc"
};

/// Every variant, in rung order (best last).
inline constexpr Variant kAllVariants[] = {
#define MEMHIER_RUNG(name, ...) Variant::name,
#define MEMHIER_BEST(name, ...) Variant::name,
#include "memhier/kernels/histogram_rungs.inc"
};

/// The variant's readable name ("lane_privatized"): what --variant takes.
const char* to_string(Variant v);

/// The variant named `name`, or nullopt for an unknown name.
std::optional<Variant> variant_from_string(const std::string& name);

/// Largest element count accepted: every bin is a uint32 and must not wrap.
constexpr std::size_t kMaxElements = 0xFFFFFFFFu;

/// Counts the `n` bytes at device pointer `in` into 256 device bins (`bins[v]` = how many
/// elements equal v). The function zeroes `bins` itself (stream-ordered), so the caller
/// never has to. Any alignment of `in` is accepted (unaligned head and tail bytes are
/// counted one by one). n == 0 only zeroes the bins. Throws std::invalid_argument for a
/// null pointer with n > 0, `bins` not 4-byte aligned, or n > kMaxElements.
void histogram256(Variant v, const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                  cudaStream_t stream = nullptr);

/// The same for int32 values: values in [0, 256) are counted; values outside (negative
/// or >= 256) are skipped, as cub::DeviceHistogram::HistogramEven with levels [0, 256]
/// skips them. `in` must be 4-byte aligned (any 16-byte offset is fine).
void histogram256(Variant v, const std::int32_t* in, std::size_t n, std::uint32_t* bins,
                  cudaStream_t stream = nullptr);

}  // namespace memhier::histogram
