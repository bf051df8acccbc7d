#include "memhier/kernels/register.hpp"

#include "kernels/families.hpp"
#include "memhier/registry/registry.hpp"

namespace memhier::kernels {

void register_families() {
  static bool done = false;
  if (done) return;
  done = true;
#define MEMHIER_FAMILY(name) registry::add_family(name##_family());
#include "kernels/families.inc"
#undef MEMHIER_FAMILY
}

}  // namespace memhier::kernels
