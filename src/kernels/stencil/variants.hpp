// Private to the stencil ladder: one launch function per variant (each in its own .cu),
// called by stencil2d() after it has validated the arguments.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "memhier/kernels/stencil.hpp"
#include "memhier/kernels/stencil_tuning.hpp"

namespace memhier::tuning {
struct Outcome;  // memhier/kernels/tuning_budget.hpp: what the tuner decided and what it cost
}

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

/// Calls fn(std::integral_constant<int, K>{}) for the filter sizes the kernels are
/// instantiated for (3, 5, 7); any other k is an error.
template <typename Fn>
decltype(auto) with_filter_size(int k, Fn&& fn) {
  switch (k) {
    case 3:
      return fn(std::integral_constant<int, 3>{});
    case 5:
      return fn(std::integral_constant<int, 5>{});
    case 7:
      return fn(std::integral_constant<int, 7>{});
    default:
      throw std::invalid_argument("stencil filter size must be 3, 5 or 7.");
  }
}

/// The kernel symbol instantiated for k (for cudaFuncGetAttributes), nullptr for other k.
template <typename Fn>
const void* symbol_for_filter_size(int k, Fn&& kernel_for) {
  if (k != 3 && k != 5 && k != 7) return nullptr;
  return with_filter_size(k,
                          [&](auto kk) { return reinterpret_cast<const void*>(kernel_for(kk)); });
}

// Block sizes of the rungs (the table names them; the registry reports occupancy with them).
constexpr int kPerOutputThreads = 256;               ///< per_output.cuh, shared by rungs 1 and 2
constexpr int kNaiveThreads = kPerOutputThreads;     ///< naive_global.cu
constexpr int kConstantThreads = kPerOutputThreads;  ///< constant_filter.cu
constexpr int kSharedTileThreads = 512;              ///< shared_tile.cu
constexpr int kRegisterBlockedThreads = 256;         ///< register_blocked.cu
constexpr int kBest128x64Threads = 256;              ///< vec4_async.cu, 128x64 tiles (best's)

// The rungs (stencil_rungs.inc): launch(a) runs the rung on validated arguments, symbol(k)
// is its kernel for filter size k (nullptr for other k), for cudaFuncGetAttributes.
#define MEMHIER_RUNG(name, launch, symbol, ...) \
  void launch(const Args& a);                   \
  const void* symbol(int k);
#define MEMHIER_BEST(...)
#include "memhier/kernels/stencil_rungs.inc"

// tuner.cpp: the best rung's configurations (the MEMHIER_TUNED lines) in table order, and
// each one's parameters (false for a variant that is not one).
std::vector<Variant> tuned_variants();
bool tuned_config(Variant v, tuning::Config* out);

/// Throws std::invalid_argument (one sentence) unless this device runs `kernel`, a best_*
/// configuration filled by TMA, with `smem` bytes of dynamic shared memory (vec4_async.cu).
void require_tma(const void* kernel, int smem, const std::string& name);

/// The configuration `best` runs for this validated call on the current device: from the
/// tuning cache, else timed now (tuner.cpp); the untuned default at launch-bound shapes.
Variant choose_best(const Args& a);

/// choose_best with what it cost; `retune` times the candidates even when a choice is known.
memhier::tuning::Outcome tune_best(const Args& a, bool retune);

/// The configuration `best` runs at a dense rows x cols image with cudaMalloc'd bases on the
/// current device as far as the cache knows (the untuned default otherwise); never tunes.
std::string cached_best(int rows, int cols, int k);

// api.cu: the grid for `blocks` tiles, capped by the device's grid limit (every kernel
// walks its tiles with a grid-stride loop, so a capped grid is still complete).
unsigned int grid_for_tiles(long long tiles);

}  // namespace memhier::stencil::detail
