#include "memhier/registry.hpp"

#include <stdexcept>
#include <utility>

namespace memhier {
namespace {
std::vector<RegistryEntry>& storage() {
  static std::vector<RegistryEntry> entries;
  return entries;
}
}  // namespace

const std::vector<RegistryEntry>& registry() { return storage(); }

void register_entry(RegistryEntry entry) {
  for (const RegistryEntry& e : storage())
    if (e.kind == entry.kind && e.family == entry.family && e.name == entry.name)
      throw std::logic_error("registry: " + entry.kind + " '" + entry.family + "/" + entry.name +
                             "' registered twice");
  storage().push_back(std::move(entry));
}

}  // namespace memhier
