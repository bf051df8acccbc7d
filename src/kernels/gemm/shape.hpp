// The GEMM ladders' shapes as the CLI writes them ("MxNxK" or "MxNxK:alpha:beta"), host-only:
// both ladders (fp32 and bf16) and their check_shape and cases read them the same way.
#pragma once

#include <string>

namespace memhier::gemm::detail {

struct Shape {
  int m = 0, n = 0, k = 0;
  float alpha = 1.f, beta = 0.f;
  bool scaled = false;  ///< alpha and beta were given
};

/// Parses "MxNxK" or "MxNxK:alpha:beta" for `family` (named in the messages); throws
/// std::invalid_argument with one sentence for anything else, an extent above 2^31-1 or a
/// matrix of more than 2^31-1 elements.
Shape parse_shape(const std::string& text, const std::string& family);

/// The shape as the bench writes it: "MxNxK", with ":alpha:beta" when they were given.
std::string shape_text(const Shape& s);

}  // namespace memhier::gemm::detail
