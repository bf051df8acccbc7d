// The models' predictions for the source texts' classic tables, as report sections.
// Pure C++: these run on any machine, GPU or not.
#pragma once

#include "memhier/report/document.hpp"

namespace memhier::bench {

/// Bank-conflict degree and wavefronts for strides 1..33 and 64, for 4-, 8- and
/// 16-byte accesses, beside the claimed gcd(stride, 32).
report::Section predicted_bank_strides();

/// The transpose tile variants (unpadded, padded, swizzled) and the naive
/// transpose's global accesses.
report::Section predicted_transpose_tiles();

/// The global-memory scenarios of the CS 380 lecture: aligned, permuted, misaligned, one word,
/// scattered; sectors, lines and bus utilization for caching and non-caching loads.
report::Section predicted_coalescing();

}  // namespace memhier::bench
