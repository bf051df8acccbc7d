// The name lookup every family builds from its rung table: one {value, name} array per
// family (expanded from its .inc), searched both ways by these two templates.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace memhier::registry {

/// One row of a family's name table: an enum value and the name the CLI and bench spell.
template <typename E>
struct Named {
  E value;
  const char* name;
};

/// The name of `v` in `table`, or "unknown" for a value the table does not hold.
template <typename E, std::size_t N>
constexpr const char* name_of(const Named<E> (&table)[N], E v) {
  for (const Named<E>& row : table)
    if (row.value == v) return row.name;
  return "unknown";
}

/// The value named `name` in `table`, or nullopt.
template <typename E, std::size_t N>
constexpr std::optional<E> from_name(const Named<E> (&table)[N], std::string_view name) {
  for (const Named<E>& row : table)
    if (name == row.name) return row.value;
  return std::nullopt;
}

}  // namespace memhier::registry
