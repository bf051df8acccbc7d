#include <vector>

#include "families.hpp"

namespace memhier::bench {
namespace {
std::vector<Family>& storage() {
  static std::vector<Family> f;
  return f;
}
}  // namespace

void register_kernels() {
  static bool done = false;
  if (done) return;
  done = true;
  using namespace memhier::kernels;
  // CMake lists the ladders this tree has (src/kernels/<family>/family.cu), in report order.
  const std::vector<Family (*)()> makers{
#include "memhier_families.inc"
  };
  for (auto make : makers) {
    Family f = make();
    for (const Variant& v : f.variants)
      register_entry(RegistryEntry{"kernel", f.name, v.name, v.rung, v.technique, v.claim, {}});
    storage().push_back(std::move(f));
  }
}

const std::vector<Family>& families() { return storage(); }

const Family* find_family(const std::string& name) {
  for (const Family& f : storage())
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace memhier::bench
