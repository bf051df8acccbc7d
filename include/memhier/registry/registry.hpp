// The one registry: every kernel family and probe is registered once, and list, bench,
// the run pipeline and the tests walk it. It sits under the kernels and the probes:
// they register into it; nothing here knows a family or a probe by name.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "memhier/registry/family.hpp"
#include "memhier/registry/probe_run.hpp"

namespace memhier {
namespace registry {

/// One registered kernel variant or probe, as `memhier list` shows it.
struct Entry {
  std::string kind;       ///< "kernel" or "probe"
  std::string family;     ///< "transpose", "latency", ...
  std::string name;       ///< "padded_tile"
  int rung = 0;           ///< place on the family's ladder (kernels)
  std::string technique;  ///< one line
  Claim claim;
  /// Probes: runs the measurement and returns its tables and charts.
  std::function<probe::Result(probe::Context&)> run_probe;
  /// Probes: the fewest GPUs it measures (2: the peer tier and the collectives, which
  /// decline on one GPU).
  int min_gpus = 1;
};

/// All entries, in registration order.
const std::vector<Entry>& entries();

/// Adds an entry; a second entry with the same kind, family and name is an error.
void add_entry(Entry entry);

/// Adds a ladder after those registered before it, and an entry of kind "kernel" for
/// each of its variants; a second family of the same name is an error.
void add_family(Family family);

/// Every registered ladder, in registration (report) order.
const std::vector<Family>& families();

/// The ladder called `name`, or nullptr.
const Family* find_family(const std::string& name);

}  // namespace registry
}  // namespace memhier
