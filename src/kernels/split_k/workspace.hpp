// Split-K's scratch memory: each split of a tile stores its partial sums there, and the last
// split to arrive at the tile's counter adds them up (split_k.cuh). Kept per (device, stream)
// across launches, so a tuned GEMM's call allocates nothing after the first.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace memhier::kernels::split_k {

/// Device memory for one launch: `partials` holds at least the floats asked for; `counters`
/// one arrival counter per tile, zero between launches (each tile's last split resets its own).
struct Workspace {
  float* partials = nullptr;
  unsigned* counters = nullptr;
};

/// The workspace of launches on `stream` of the current device, grown to `floats` partial sums
/// and `tiles` counters as core::Scratch grows (outgrown memory is kept: captured graphs
/// replay safely). Throws CudaError when the memory cannot be had, and std::invalid_argument
/// when it must grow while `stream` is being captured.
Workspace workspace_for(std::size_t floats, std::size_t tiles, cudaStream_t stream);

/// What a split-K launch passes its kernel: `splits` slices of m x ld partial sums (ld: n
/// rounded up to 4, for float4 sums), `slice` floats apart, and one arrival counter per tile.
struct Args {
  float* partials = nullptr;
  unsigned* counters = nullptr;
  long long slice = 0;
  int ld = 0;
  int splits = 1;
};

/// The Args of a launch on `stream` splitting an m x n C `splits` ways over `tiles` tiles, its
/// workspace from workspace_for.
Args args_for(int m, int n, int splits, std::size_t tiles, cudaStream_t stream);

/// What a launch whose splits keep per-tile slots passes its kernel: it runs tiles
/// first_tile, first_tile + 1, ..., each split `splits` ways; tile first_tile + r keeps its splits'
/// sums in `splits` slots of a tile's size, one after another from slot r x splits, and (where
/// its last split adds them) counts arrivals at counters[r]. A tail split's first tile is the
/// first after the whole waves.
struct Slots {
  float* partials = nullptr;
  unsigned* counters = nullptr;
  int first_tile = 0;
  int splits = 1;
};

/// The Slots of a launch on `stream` splitting `tiles` tiles of `tile_floats` sums each `splits`
/// ways from `first_tile`, its workspace from workspace_for.
Slots slots_for(long long tiles, int splits, std::size_t tile_floats, long long first_tile,
                cudaStream_t stream);

/// The sentence of a split-K kernel `name` declining a shape it would not split: `tiles` tiles
/// of tile_m x tile_n against the `resident` blocks this card holds at once.
std::string no_split(const char* name, long long tiles, int tile_m, int tile_n, int resident);

/// The sentence of a tail-split kernel `name` declining a shape whose last wave no split
/// shortens enough (tuning::tail_split_plan): under one wave, whole waves, or K too short.
std::string no_tail_split(const char* name, long long tiles, int tile_m, int tile_n,
                          long long resident);

}  // namespace memhier::kernels::split_k
