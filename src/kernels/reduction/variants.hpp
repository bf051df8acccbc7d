// Private to the reduction family: one launch function per variant (each in the .cu
// named for its technique), the plan they share, and cached device queries.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "memhier/kernels/reduction.hpp"
#include "memhier/kernels/tuning_budget.hpp"

namespace memhier::reduction::detail {

/// Block size of the classic shared-memory rungs (a power of two, at least 64).
constexpr int kClassicBlock = 256;
/// Elements per block of the rungs that add two elements while loading.
constexpr std::size_t kPairElems = 2 * kClassicBlock;
/// Workspace layout: the single-pass arrival counter at offset 0, block partials after.
constexpr std::size_t kHeaderBytes = 256;

/// One call, planned by api.cu: pointers validated, grid and workspace split chosen.
struct Launch {
  Op op = Op::sum;
  const float* in = nullptr;
  std::size_t n = 0;
  float* out = nullptr;
  float* slots = nullptr;       ///< block partials (workspace + kHeaderBytes)
  std::size_t slots_b = 0;      ///< classic: where the second ping-pong buffer starts
  unsigned* counter = nullptr;  ///< single pass: arrival counter (workspace offset 0)
  unsigned grid = 0;            ///< grid-stride variants: blocks in the grid
  cudaStream_t stream = nullptr;
};

/// A grid-stride variant's configuration: block size, float4 per thread per step, and
/// the sum kernel whose occupancy sizes the grid (the max kernel uses the same grid).
struct GridConfig {
  int block_threads = 0;
  int unroll = 0;
  const void* sum_kernel = nullptr;
};

// The rungs (reduction_rungs.inc), each in its own .cu: classic rungs run the same kernel
// in every pass until one block writes `out` (symbol(): that kernel); grid-stride rungs run
// a grid of at most (resident blocks per SM) x SMs blocks, sized from config().
#define MEMHIER_CLASSIC_RUNG(name, launch, symbol, ...) \
  void launch(const Launch& l);                         \
  const void* symbol();
#define MEMHIER_GRID_RUNG(name, launch, config, ...) \
  void launch(const Launch& l);                      \
  GridConfig config();
#define MEMHIER_BEST(...)
#include "memhier/kernels/reduction_rungs.inc"

// tuner.cpp: `best`'s single-pass configuration per card and n.

/// The configurations `best` chooses among, the one it runs untuned first.
const std::vector<Variant>& best_candidates();

/// The configuration `best` runs for this validated call on the current device: the untuned
/// one under 2^21 elements (launch-bound), else the one the tuning cache knows for n, else
/// timed now on `in` and `workspace` (sized for best) into a scratch output.
Variant choose_best(Op op, const float* in, std::size_t n, void* workspace,
                    std::size_t workspace_bytes, cudaStream_t stream);

/// choose_best with what it cost; `retune` times the candidates even when a choice is known.
memhier::tuning::Outcome tune_best(Op op, const float* in, std::size_t n, void* workspace,
                                   std::size_t workspace_bytes, bool retune);

/// The configuration `best` runs for n as far as the cache knows; never tunes.
Variant cached_best(std::size_t n);

}  // namespace memhier::reduction::detail

namespace memhier::reduction::detail {

/// Temporary storage cub::DeviceReduce::Sum needs for n floats (cub_baseline.cu).
std::size_t cub_sum_temp_bytes(std::size_t n);
/// cub::DeviceReduce::Sum of n floats into *out, on `s` (int offsets when n fits, as
/// most callers pass, else 64-bit).
void cub_sum(void* temp, std::size_t temp_bytes, const float* in, std::size_t n, float* out,
             cudaStream_t s);

}  // namespace memhier::reduction::detail
