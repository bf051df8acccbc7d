// One entries function per probe family, declared from probes.inc: <name>_probes() in
// src/probe/<name>.cu returns that family's registry entries.
#pragma once

#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

#define MEMHIER_PROBE(name) std::vector<registry::Entry> name##_probes();
#include "probes.inc"
#undef MEMHIER_PROBE

}  // namespace memhier::probe
