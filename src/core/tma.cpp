// The host side of TMA: what a tensor map can describe, and its encoding through the driver
// entry point (cudaGetDriverEntryPointByVersion), so memhier never links libcuda itself.
#include "memhier/core/tma.hpp"

#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <string>

#include "memhier/core/check.hpp"

namespace memhier::core {
namespace {

constexpr std::uint64_t kMaxDim = std::uint64_t{1} << 32;
constexpr std::uint64_t kMaxPitch = std::uint64_t{1} << 40;

std::string n(std::uint64_t v) {
  return std::to_string(v);
}

// The driver's encoder, looked up once; null when the driver has none.
PFN_cuTensorMapEncodeTiled_v12000 encoder(std::string* why) {
  static std::once_flag once;
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  static std::string reason;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                           cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || p == nullptr) {
      cudaGetLastError();  // the lookup's failure is reported here, not by a later call
      reason = std::string("the CUDA driver offers no cuTensorMapEncodeTiled (") +
               (e != cudaSuccess                               ? cudaGetErrorString(e)
                : q == cudaDriverEntryPointVersionNotSufficent ? "driver older than CUDA 12.0"
                                                               : "symbol not found") +
               "), so TMA tensor maps cannot be made";
      return;
    }
    fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  });
  if (why) *why = reason;
  return fn;
}

CUtensorMapL2promotion promotion(TmaL2Promotion p) {
  switch (p) {
    case TmaL2Promotion::none:
      return CU_TENSOR_MAP_L2_PROMOTION_NONE;
    case TmaL2Promotion::b64:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
    case TmaL2Promotion::b128:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    default:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  }
}

CUtensorMapDataType data_type(int elem_bytes) {
  switch (elem_bytes) {
    case 1:
      return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case 2:
      return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case 8:
      return CU_TENSOR_MAP_DATA_TYPE_UINT64;
    default:
      return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  }
}

}  // namespace

std::string tma_unsupported(const Tensor2d& t) {
  if (t.elem_bytes != 1 && t.elem_bytes != 2 && t.elem_bytes != 4 && t.elem_bytes != 8)
    return "TMA copies elements of 1, 2, 4 or 8 bytes, not " + std::to_string(t.elem_bytes) + ".";
  if (t.base == nullptr) return "TMA needs a tensor's base address, and it is null.";
  if (reinterpret_cast<std::uintptr_t>(t.base) % 16 != 0)
    return "TMA needs the tensor's base address 16-byte aligned.";
  if (t.cols < 1 || t.rows < 1 || t.cols > kMaxDim || t.rows > kMaxDim)
    return "TMA describes extents of 1 to 2^32 elements, not " + n(t.rows) + " x " + n(t.cols) +
           ".";
  const std::uint64_t row_bytes = t.cols * static_cast<std::uint64_t>(t.elem_bytes);
  if (t.pitch_bytes < row_bytes)
    return "the row pitch (" + n(t.pitch_bytes) + " bytes) is shorter than a row (" + n(row_bytes) +
           " bytes).";
  // A single row never steps to the next, but the map still states the stride.
  if (t.pitch_bytes % 16 != 0 || t.pitch_bytes >= kMaxPitch)
    return "TMA needs each row to start on a 16-byte boundary: the row pitch of " +
           n(t.pitch_bytes) + " bytes is not a multiple of 16 below 2^40.";
  if (t.box_cols < 1 || t.box_rows < 1 || t.box_cols > 256 || t.box_rows > 256)
    return "a TMA box spans 1 to 256 elements per side, not " + n(t.box_rows) + " x " +
           n(t.box_cols) + ".";
  const std::uint64_t box_bytes =
      std::uint64_t{t.box_cols} * static_cast<std::uint64_t>(t.elem_bytes);
  if (box_bytes % 16 != 0)
    return "a TMA box row must be a multiple of 16 bytes, not " + n(box_bytes) + ".";
  if (t.swizzle == TmaSwizzle::b128 && box_bytes > 128)
    return "a 128-byte-swizzled TMA box row holds at most 128 bytes, not " + n(box_bytes) + ".";
  if (t.swizzle == TmaSwizzle::b64 && box_bytes > 64)
    return "a 64-byte-swizzled TMA box row holds at most 64 bytes, not " + n(box_bytes) + ".";
  return "";
}

namespace {

/// The tiled map of `t`'s plane with `rank` dimensions (2, or 3 with the layers outermost).
CUtensorMap encode_tiled(const Tensor2d& t, int rank, std::uint64_t layers,
                         std::uint64_t layer_pitch) {
  std::string why;
  const PFN_cuTensorMapEncodeTiled_v12000 encode = encoder(&why);
  if (!encode) throw TmaUnavailable(why + ".");
  alignas(64) CUtensorMap map{};
  const cuuint64_t dims[3] = {t.cols, t.rows, layers};
  const cuuint64_t strides[2] = {t.pitch_bytes, layer_pitch};
  const cuuint32_t box[3] = {t.box_cols, t.box_rows, 1};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  const CUresult r = encode(&map, data_type(t.elem_bytes), static_cast<cuuint32_t>(rank),
                            const_cast<void*>(t.base), dims, strides, box, elem_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE,
                            t.swizzle == TmaSwizzle::b128  ? CU_TENSOR_MAP_SWIZZLE_128B
                            : t.swizzle == TmaSwizzle::b64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                           : CU_TENSOR_MAP_SWIZZLE_NONE,
                            promotion(t.l2_promotion), CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error("cuTensorMapEncodeTiled refused a " +
                             (rank == 3 ? n(layers) + " x " : std::string()) + n(t.rows) + " x " +
                             n(t.cols) + " tensor with a " + n(t.box_rows) + " x " + n(t.box_cols) +
                             " box (CUresult " + std::to_string(static_cast<int>(r)) + ").");
  return map;
}

}  // namespace

CUtensorMap encode_tensor_map_2d(const Tensor2d& t) {
  const std::string bad = tma_unsupported(t);
  if (!bad.empty()) throw std::invalid_argument(bad);
  return encode_tiled(t, 2, 1, 0);
}

std::string tma_unsupported(const Tensor3d& t) {
  const std::string bad = tma_unsupported(t.plane);
  if (!bad.empty()) return bad;
  if (t.layers < 1 || t.layers > kMaxDim)
    return "TMA describes 1 to 2^32 layers, not " + n(t.layers) + ".";
  if (t.layer_pitch_bytes % 16 != 0 || t.layer_pitch_bytes >= kMaxPitch)
    return "TMA needs each layer to start on a 16-byte boundary: the layer pitch of " +
           n(t.layer_pitch_bytes) + " bytes is not a multiple of 16 below 2^40.";
  if (t.layer_pitch_bytes < t.plane.rows * t.plane.pitch_bytes)
    return "the layer pitch (" + n(t.layer_pitch_bytes) + " bytes) is shorter than a layer's " +
           n(t.plane.rows) + " rows.";
  return "";
}

CUtensorMap encode_tensor_map_3d(const Tensor3d& t) {
  const std::string bad = tma_unsupported(t);
  if (!bad.empty()) throw std::invalid_argument(bad);
  return encode_tiled(t.plane, 3, t.layers, t.layer_pitch_bytes);
}

}  // namespace memhier::core
