// The stencil tuner's model, host-only (no CUDA): the best rung's configurations as numbers
// (stencil_rungs.inc's MEMHIER_TUNED lines), the shared memory each needs, and which of them
// a first call times at a shape, from what this card holds (the tuner reads the SM count,
// the shared memory per SM and block and each configuration's resident blocks from the
// device; the CPU tests pass them as data).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace memhier::stencil::tuning {

/// Output columns of every best_* tile: 32 lanes x 4 columns.
inline constexpr int kTileW = 128;
/// Shared row of a tile in float4 chunks: the 32 of the outputs and one of halo on each side.
inline constexpr int kTileW4 = kTileW / 4 + 2;

/// How a tile and its halo reach shared memory.
enum class Fill {
  cp_async,    ///< every thread copies 16-byte chunks (cp.async), clamped columns by 4 bytes
  tensor_box,  ///< one TMA 2-D box per tile, its out-of-image words patched (sm_90 and up)
};

/// One configuration of the best rung (a MEMHIER_TUNED line).
struct Config {
  int warps = 8;            ///< warps per block
  int rows_per_thread = 8;  ///< output rows per thread (4 columns each)
  int min_blocks = 4;       ///< __launch_bounds__ blocks per SM; the persistent grid's cap
  int stages = 1;           ///< shared buffers: 2 fills the next tile during this one's compute
  Fill fill = Fill::cp_async;

  constexpr int threads() const { return 32 * warps; }
  constexpr int tile_h() const { return warps * rows_per_thread; }
  /// Shared bytes of one buffer: the tile with its halo, rounded to 128 bytes for a TMA box
  /// (its destination's alignment).
  constexpr int stage_bytes(int k) const {
    const int raw = (tile_h() + k - 1) * kTileW4 * 16;
    return fill == Fill::tensor_box ? (raw + 127) / 128 * 128 : raw;
  }
  /// Dynamic shared memory per block for filter size k: `stages` tiles with a halo.
  constexpr int smem_bytes(int k) const { return stages * stage_bytes(k); }
  /// Whether the fill needs the Hopper copy engine (compute capability 9.0 or newer).
  constexpr bool needs_tma() const { return fill != Fill::cp_async; }
  /// Bytes one tile's fill moves from global memory (the halo rows and chunks included).
  constexpr double fill_bytes(int k) const {
    return static_cast<double>(tile_h() + k - 1) * kTileW4 * 16;
  }
};

/// What the model knows of this card (from the device, or as data in tests).
struct Card {
  int sms = 0;             ///< streaming multiprocessors
  int smem_per_block = 0;  ///< the most dynamic shared memory one block may opt in to
  /// Bytes that must be in flight per SM to keep DRAM busy (Little's law: the card's
  /// bandwidth x its loaded latency / SMs); 0: unknown, the bytes-in-flight term is left out.
  double inflight_needed_per_sm = 0;
};

/// One configuration on this card at one shape, each factor in (0, 1].
struct Prediction {
  std::size_t candidate = 0;  ///< index into the candidate list
  int blocks_per_sm = 0;      ///< resident blocks (the occupancy, capped by min_blocks)
  long long tiles = 0;        ///< tiles of the image
  double wave_fill = 1;       ///< tiles / (whole rounds x resident blocks): the last round's loss
  double edge_fill = 1;       ///< rows x cols / the area the tiles cover: the ragged edge's loss
  double halo = 1;            ///< output rows / rows filled (tile_h / (tile_h + k - 1))
  double inflight = 1;        ///< bytes in flight per SM / the needed, at most 1
  double efficiency = 1;      ///< the product
};

/// Every configuration's prediction at rows x cols with filter size k, best first (by
/// efficiency in steps of 2%, then the candidate order: today's default before the rest).
/// `blocks_per_sm[i]` is what the occupancy calculator allows candidate i here (0: it cannot
/// run, e.g. no code for this device); a configuration whose shared memory exceeds the card's
/// per-block limit cannot run either. Those come last with efficiency 0.
std::vector<Prediction> predict(int rows, int cols, int k, const Card& card,
                                const std::vector<Config>& candidates,
                                const std::vector<int>& blocks_per_sm);

/// The configurations worth timing, in the order to time them: those that can run, predicted
/// within `keep_within` of the best, at most `top_k` (never fewer than two while two can run).
/// The model sees traffic and occupancy, not the FMA pipe that a 7x7 filter loads, so at the
/// table's size it narrows by what cannot run or wastes the card, and the timing decides.
std::vector<std::size_t> preselect(int rows, int cols, int k, const Card& card,
                                   const std::vector<Config>& candidates,
                                   const std::vector<int>& blocks_per_sm, std::size_t top_k = 6,
                                   double keep_within = 0.7);

/// Below this many outputs a stencil is launch-bound: `best` runs the untuned default.
inline constexpr double kMinTunedOutputs = 1 << 21;

/// The cache key's shape part: "ROWSxCOLS:K a<in>,<out>", the alignments capped at 16 bytes
/// (all the kernels distinguish).
std::string shape_text(int rows, int cols, int k, int align_in, int align_out);

}  // namespace memhier::stencil::tuning
