#include "memhier/kernels/register.hpp"

#include <vector>

#include "families.hpp"
#include "memhier/registry/registry.hpp"

namespace memhier::kernels {

void register_families() {
  static bool done = false;
  if (done) return;
  done = true;
  // CMake lists the ladders this tree has (src/kernels/<family>/family.cu), in report order.
  const std::vector<registry::Family (*)()> makers{
#include "memhier_families.inc"
  };
  for (auto make : makers) registry::add_family(make());
}

}  // namespace memhier::kernels
