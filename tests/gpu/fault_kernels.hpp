// Kernels for the fault-injection tests: one that copies, one that traps (a sticky error
// that leaves the context unusable until cudaDeviceReset).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace memhier::testing {

/// out[i] = in[i] for i < n, on `stream`.
void launch_copy(const float* in, float* out, std::size_t n, cudaStream_t stream);

/// A kernel that executes a trap instruction: the launch fails, and the context with it.
void launch_trap(cudaStream_t stream);

}  // namespace memhier::testing
