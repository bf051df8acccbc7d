// Grid sizing for the elementwise kernels.
#include <stdexcept>
#include <string>

#include "variants.hpp"

namespace memhier::elementwise::detail {

unsigned blocks_for(std::size_t threads) {
  const std::size_t blocks = threads == 0 ? 1 : (threads - 1) / kBlock + 1;
  if (blocks > 0x7fffffffu)
    throw std::invalid_argument("elementwise: " + std::to_string(threads) +
                                " threads need more blocks than one launch allows (2^31 - 1).");
  return static_cast<unsigned>(blocks);
}

}  // namespace memhier::elementwise::detail
