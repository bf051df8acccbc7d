// Integer helpers shared by the kernels' launch math, their index math and the CPU models.
#pragma once

#include "memhier/core/hd.hpp"

namespace memhier::core {

/// ceil(a / b) for a >= 0, b > 0, without overflow; name T to widen (ceil_div<long long>).
template <typename T>
MEMHIER_HD constexpr T ceil_div(T a, T b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

}  // namespace memhier::core
