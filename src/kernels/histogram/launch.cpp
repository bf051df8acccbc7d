// Grid sizing for the histogram kernels: the resident grid, shrunk to the input.
#include "memhier/core/launch.hpp"

#include <algorithm>

#include "kernels/histogram/variants.hpp"

namespace memhier::histogram::detail {

int grid_for(const void* kernel, int block_threads, bool prefer_shared, std::size_t items,
             std::size_t items_per_block, int max_per_sm) {
  const std::size_t resident = static_cast<std::size_t>(
      core::resident_grid(kernel, block_threads, 0, max_per_sm, prefer_shared));
  const std::size_t per = std::max<std::size_t>(items_per_block, 1);
  const std::size_t needed = std::max<std::size_t>((items + per - 1) / per, 1);
  return static_cast<int>(std::min(resident, needed));
}

}  // namespace memhier::histogram::detail
