// The device side of `memhier profile`: markers that separate items in Nsight Compute's
// output, and the kernel that executes one access pattern.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "memhier/core/buffer.hpp"
#include "memhier/profile/patterns.hpp"

namespace memhier::profile {

/// The marker kernel's name as ncu prints it (a substring of it).
inline constexpr const char* kMarkerKernel = "memhier_profile_marker";

/// Launches the marker kernel with index + 1 blocks: every kernel ncu lists after it,
/// until the next marker, belongs to item `index`.
void launch_marker(int index, cudaStream_t stream);

/// Executes patterns: one warp, one instruction, on buffers large enough for all of them.
class PatternRunner {
 public:
  explicit PatternRunner(const std::vector<Pattern>& all);
  void run(const Pattern& p, cudaStream_t stream);

 private:
  core::DeviceBuffer<unsigned char> global_;
  std::size_t shared_bytes_ = 0;
};

}  // namespace memhier::profile
