// The registry's storage: entries and families in registration order.
#include "memhier/registry/registry.hpp"

#include <stdexcept>
#include <utility>

namespace memhier::registry {
namespace {

std::vector<Entry>& entry_storage() {
  static std::vector<Entry> entries;
  return entries;
}

std::vector<Family>& family_storage() {
  static std::vector<Family> families;
  return families;
}

}  // namespace

const std::vector<Entry>& entries() {
  return entry_storage();
}

void add_entry(Entry entry) {
  for (const Entry& e : entry_storage())
    if (e.kind == entry.kind && e.family == entry.family && e.name == entry.name)
      throw std::logic_error("registry: " + entry.kind + " '" + entry.family + "/" + entry.name +
                             "' registered twice");
  entry_storage().push_back(std::move(entry));
}

void add_family(Family family) {
  if (find_family(family.name))
    throw std::logic_error("registry: family '" + family.name + "' registered twice");
  for (const Variant& v : family.variants)
    add_entry(Entry{"kernel", family.name, v.name, v.rung, v.technique, v.claim, {}});
  family_storage().push_back(std::move(family));
}

const std::vector<Family>& families() {
  return family_storage();
}

const Family* find_family(const std::string& name) {
  for (const Family& f : family_storage())
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace memhier::registry
