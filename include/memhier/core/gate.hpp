// Before an architecture-specific launch: does this build hold code for the current device
// that has the features the kernel needs, and does the device allow its configuration?
// The rules are model::kernel_declines; this reads the kernel and the device.
#pragma once

#include <string>

#include "memhier/model/gate.hpp"

namespace memhier::core {

/// What the program holds of `kernel` for the current device (cudaFuncGetAttributes);
/// present is false when it has no image this device can load. Cached per device.
model::KernelImage kernel_image(const void* kernel);

/// The current device's compute capability, shared-memory opt-in and cluster support.
/// Cached per device.
model::DeviceLimits device_limits();

/// One sentence why `what` (its main kernel `kernel`) cannot run on the current device
/// with `needs`, or "" when it can.
std::string kernel_unsupported(const std::string& what, const void* kernel,
                               const model::KernelNeeds& needs);

/// kernel_unsupported as a decline: throws std::invalid_argument with its sentence.
void require_kernel(const std::string& what, const void* kernel, const model::KernelNeeds& needs);

}  // namespace memhier::core
