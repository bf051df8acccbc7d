// The one verification path: outputs against a float64 reference by relative L2 error.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace memhier::core {

/// ||out - ref|| / ||ref|| over all elements; NaN if any output is NaN or infinite (an
/// unwritten, NaN-poisoned element fails), or if the sizes differ. When ref is all
/// zeros the absolute L2 error is returned.
template <typename T>
double rel_l2_error(const std::vector<T>& out, const std::vector<double>& ref) {
  if (out.size() != ref.size()) return std::numeric_limits<double>::quiet_NaN();
  double num = 0, den = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double o = static_cast<double>(out[i]);
    if (!std::isfinite(o)) return std::numeric_limits<double>::quiet_NaN();
    num += (o - ref[i]) * (o - ref[i]);
    den += ref[i] * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

/// The same over a subset: out_at[k] is the output at the k-th sampled index and
/// ref_at[k] its reference (for outputs too large to check on the CPU in full).
inline double rel_l2_error_sampled(const std::vector<double>& out_at,
                                   const std::vector<double>& ref_at) {
  return rel_l2_error(out_at, ref_at);
}

}  // namespace memhier::core
