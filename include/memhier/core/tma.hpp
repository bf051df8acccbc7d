// TMA on the host: a 2-D tiled tensor map (the descriptor cp.async.bulk.tensor reads) encoded
// by cuTensorMapEncodeTiled, reached through the runtime's driver entry point so that nothing
// links libcuda; and the checks that say, in one sentence, why TMA cannot describe a tensor
// or run on this device. The device side is tma.cuh.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace memhier::core {

/// How TMA lays a box out in shared memory: as in global memory, or with 16-byte chunks of
/// each 128-byte row XORed with the row's index mod 8 (the bank-conflict-free layout).
enum class TmaSwizzle { none, b64, b128 };

/// How much more than the box's own sectors the L2 fetches around each access it misses on.
/// 256 bytes suits boxes whose rows start and end on 256-byte lines; a box whose rows hang
/// a few bytes over a line (a stencil's halo) reads the neighbouring lines through L2 for them.
enum class TmaL2Promotion { none, b64, b128, b256 };

/// A row-major 2-D tensor in global memory and the box (tile) one TMA operation moves.
struct Tensor2d {
  const void* base = nullptr;
  std::uint64_t cols = 0, rows = 0;  ///< extents in elements: inner (contiguous), outer
  std::uint64_t pitch_bytes = 0;     ///< bytes from one row to the next
  int elem_bytes = 4;                ///< 1, 2, 4 or 8 (the copy does not look at the values)
  std::uint32_t box_cols = 0, box_rows = 0;
  TmaSwizzle swizzle = TmaSwizzle::none;
  TmaL2Promotion l2_promotion = TmaL2Promotion::b256;
};

/// `layers` copies of a Tensor2d, `layer_pitch_bytes` apart: a third, outermost dimension. A
/// box stays within one layer, so its rows past `plane.rows` read as zero, not as the next
/// layer's first rows (a sequence's tail inside a [batch, seq, ...] tensor).
struct Tensor3d {
  Tensor2d plane;
  std::uint64_t layers = 1;
  std::uint64_t layer_pitch_bytes = 0;  ///< bytes from one layer to the next
};

/// The driver cannot encode tensor maps (too old, or no driver): one sentence.
struct TmaUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Why TMA cannot describe `t` (one sentence naming the rule), or "" when it can: base
/// 16-byte aligned, pitch a multiple of 16 bytes below 2^40 and at least a row, extents
/// 1..2^32, box 1..256 per side with 16-byte multiples across, within 128 bytes across when
/// swizzled. Pure host code: no device, no driver.
std::string tma_unsupported(const Tensor2d& t);

/// Encodes `t` as a tensor map: out-of-bounds elements of a load read as zero, and a store's
/// out-of-bounds elements are dropped. Throws std::invalid_argument with tma_unsupported's
/// sentence, TmaUnavailable when the driver has no cuTensorMapEncodeTiled, std::runtime_error
/// when the driver refuses the map.
CUtensorMap encode_tensor_map_2d(const Tensor2d& t);

/// tma_unsupported for a stack of layers: the plane's rules, 1..2^32 layers, and a layer pitch
/// that is a multiple of 16 bytes below 2^40 and at least the plane's rows.
std::string tma_unsupported(const Tensor3d& t);

/// encode_tensor_map_2d for a stack of layers (boxes of box_rows x box_cols in one layer);
/// throws as it does, with tma_unsupported(Tensor3d)'s sentence.
CUtensorMap encode_tensor_map_3d(const Tensor3d& t);

}  // namespace memhier::core
