// The bandwidth ceilings the ladders are quoted against beside cudaMemcpy: a kernel that
// only reads a buffer and one that only writes it, both with 16-byte accesses over a grid
// that fills the device, so that a read-dominated problem (a reduction, a histogram) is
// measured against the fastest way to read its bytes, not to copy them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace memhier::core {

/// Blocks that fill the current device with the ceiling kernels (SMs x resident blocks).
/// Worked out once, outside any timed region, and passed to the launches below.
int ceiling_blocks();

/// Reads the `bytes` bytes at `src` (a multiple of 16, 16-byte aligned) and adds them up
/// as 32-bit words into `*sum` (one atomicAdd per block): the loads cannot be dropped and
/// only one word is written. Throws std::invalid_argument for a size not a multiple of 16.
void launch_read_only(const void* src, std::size_t bytes, unsigned* sum, int blocks,
                      cudaStream_t stream);

/// Writes `value` to every 32-bit word of the `bytes` bytes at `dst` (a multiple of 16,
/// 16-byte aligned) with 16-byte stores. Throws std::invalid_argument as above.
void launch_write_only(void* dst, std::size_t bytes, unsigned value, int blocks,
                       cudaStream_t stream);

}  // namespace memhier::core
