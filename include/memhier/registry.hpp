// The one registry: every kernel variant and probe is registered once, and list,
// bench, the tests and the report all iterate it.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace memhier {

namespace probe {
struct Context;
struct Result;
}  // namespace probe

/// A numeric claim from the source texts (../shared/seeds) that an entry tests.
struct Claim {
  std::string source;  ///< seed file and section, e.g. "002 §Bank conflict degree by stride"
  std::string text;
};

struct RegistryEntry {
  std::string kind;       ///< "kernel" or "probe"
  std::string family;     ///< "transpose", "latency", ...
  std::string name;       ///< "padded_tile"
  int rung = 0;           ///< place on the family's ladder (kernels)
  std::string technique;  ///< one line
  Claim claim;
  /// Probes: runs the measurement and returns its tables and charts.
  std::function<probe::Result(probe::Context&)> run_probe;
};

/// All entries, in registration order.
const std::vector<RegistryEntry>& registry();

/// Adds an entry; a second entry with the same kind, family and name is an error.
void register_entry(RegistryEntry entry);

}  // namespace memhier
