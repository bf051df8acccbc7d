// The fault family of the run pipeline's fault tests, registered as a user's own probe and
// family would be: a probe whose CUDA call fails, a probe whose kernel traps (the context
// breaks), a variant that runs out of GPU memory, a kernel that traps at the first shape. Compiled
// into the GPU tests and into memhier_fault_child, the program their report runs to measure the
// rest after the GPU is lost to the test's process (run::Options::isolate_with).
#pragma once

namespace memhier::testing {

/// The fault family's first shape: the one where `traps` traps (it declines the others).
inline constexpr const char* kFirstShape = "1024";

/// Registers the built-in probes and families, then the fault probe and family after them.
void register_faults();

}  // namespace memhier::testing
