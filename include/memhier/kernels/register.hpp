// The built-in ladders' entry into the registry.
#pragma once

namespace memhier::kernels {

/// Adds every built-in family to the registry, in report order (once; later calls do
/// nothing). Bench, list, profile, the report and the tests call it before walking.
void register_families();

}  // namespace memhier::kernels
