// Private to the stencil ladder: one launch function per variant (each in its own .cu),
// called by stencil2d() after it has validated the arguments.
#pragma once

#include <cuda_runtime_api.h>

namespace memhier::stencil::detail {

/// One validated call: device in/out, host filter (k*k floats), k in {3, 5, 7}.
struct Args {
  const float* in = nullptr;
  float* out = nullptr;
  int rows = 0;
  int cols = 0;
  const float* filter = nullptr;
  int k = 0;
  cudaStream_t stream = nullptr;
};

// naive_global.cu
void run_naive_global(const Args& a);
const void* naive_global_symbol(int k);
constexpr int kNaiveThreads = 256;

// constant_filter.cu
void run_constant_filter(const Args& a);
const void* constant_filter_symbol(int k);
constexpr int kConstantThreads = 256;

// shared_tile.cu
void run_shared_tile(const Args& a);
const void* shared_tile_symbol(int k);
constexpr int kSharedTileThreads = 512;

// register_blocked.cu
void run_register_blocked(const Args& a);
const void* register_blocked_symbol(int k);
constexpr int kRegisterBlockedThreads = 256;

// vec4_async.cu: the two registered configurations of the best rung.
void run_best_128x64(const Args& a);
void run_best_128x32(const Args& a);
const void* best_128x64_symbol(int k);
const void* best_128x32_symbol(int k);
constexpr int kBest128x64Threads = 256;
constexpr int kBest128x32Threads = 128;

// api.cu: the grid for `blocks` tiles, capped by the device's grid limit (every kernel
// walks its tiles with a grid-stride loop, so a capped grid is still complete).
unsigned int grid_for_tiles(long long tiles);

}  // namespace memhier::stencil::detail
