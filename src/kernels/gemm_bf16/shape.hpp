// The bf16 GEMM ladder's shapes: the SGEMM ladder's grammar (gemm/shape.hpp), named
// "gemm_bf16" in its messages.
#pragma once

#include <string>

#include "../gemm/shape.hpp"

namespace memhier::gemm_bf16::detail {

using gemm::detail::Shape;
using gemm::detail::shape_text;

/// Parses "MxNxK" or "MxNxK:alpha:beta"; throws std::invalid_argument with one sentence.
inline Shape parse_shape(const std::string& text) {
  return gemm::detail::parse_shape(text, "gemm_bf16");
}

}  // namespace memhier::gemm_bf16::detail
