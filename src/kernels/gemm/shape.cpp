// The GEMM ladders' shapes (shape.hpp).
#include "shape.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <vector>

#include "memhier/registry/decimal.hpp"
#include "memhier/registry/family.hpp"

namespace memhier::gemm::detail {

Shape parse_shape(const std::string& text, const std::string& family) {
  const std::string what = family + " shape '" + text + "'";
  const std::string form = what + " is not MxNxK or MxNxK:alpha:beta";
  Shape s;
  const std::size_t colon = text.find(':');
  // Extents only: m*n*k is work, not storage; the matrices' sizes are checked below.
  const std::vector<std::int64_t> d = registry::parse_shape(
      text.substr(0, colon), 3, family, std::numeric_limits<double>::infinity());
  for (std::int64_t v : d)
    if (v > std::numeric_limits<int>::max())
      throw std::invalid_argument(what + " has an extent above 2^31-1.");
  s.m = static_cast<int>(d[0]);
  s.n = static_cast<int>(d[1]);
  s.k = static_cast<int>(d[2]);
  const double limit = static_cast<double>(std::numeric_limits<int>::max());
  if (static_cast<double>(s.m) * s.k > limit || static_cast<double>(s.k) * s.n > limit ||
      static_cast<double>(s.m) * s.n > limit)
    throw std::invalid_argument(what + " needs a matrix of more than 2^31-1 elements.");
  if (colon == std::string::npos) return s;
  const std::string rest = text.substr(colon + 1);
  const std::size_t c2 = rest.find(':');
  if (c2 == std::string::npos || rest.find(':', c2 + 1) != std::string::npos)
    throw std::invalid_argument(form + " (alpha and beta after one colon each).");
  const auto number = [&](const std::string& part) {
    const registry::DecimalReal v = registry::read_decimal_real(part);
    if (!v.ok() || std::fabs(v.value) > std::numeric_limits<float>::max())
      throw std::invalid_argument(form + " (alpha and beta must be finite decimal numbers).");
    return static_cast<float>(v.value);
  };
  s.alpha = number(rest.substr(0, c2));
  s.beta = number(rest.substr(c2 + 1));
  s.scaled = true;
  return s;
}

std::string shape_text(const Shape& s) {
  std::string t = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  if (!s.scaled) return t;
  char buf[64];
  std::snprintf(buf, sizeof buf, ":%g:%g", static_cast<double>(s.alpha),
                static_cast<double>(s.beta));
  return t + buf;
}

}  // namespace memhier::gemm::detail
