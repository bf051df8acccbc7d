// The public transpose API: names, input validation and dispatch to the variants.
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/transpose/index.cuh"
#include "kernels/transpose/variants.hpp"
#include "memhier/core/check.hpp"
#include "memhier/kernels/transpose.hpp"

namespace memhier::transpose {

const char* to_string(Variant v) {
  switch (v) {
    case Variant::naive:
      return "naive";
    case Variant::tile:
      return "tile";
    case Variant::padded:
      return "padded";
    case Variant::swizzled:
      return "swizzled";
    case Variant::best_64x64:
      return "best_64x64";
    case Variant::best_32x128:
      return "best_32x128";
    case Variant::best_64x64_persistent:
      return "best_64x64_persistent";
    case Variant::best_64x64_prefetch:
      return "best_64x64_prefetch";
    case Variant::best:
      return "best";
  }
  return "unknown";
}

std::vector<Variant> all_variants() {
  return {Variant::naive,
          Variant::tile,
          Variant::padded,
          Variant::swizzled,
          Variant::best_64x64,
          Variant::best_32x128,
          Variant::best_64x64_persistent,
          Variant::best_64x64_prefetch,
          Variant::best};
}

std::optional<Variant> from_string(const std::string& name) {
  for (Variant v : all_variants())
    if (name == to_string(v)) return v;
  return std::nullopt;
}

void check_shape(std::int64_t rows, std::int64_t cols) {
  const std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
  if (rows < 1 || cols < 1)
    throw std::invalid_argument("transpose shape " + shape +
                                " needs at least one row and one column.");
  if (rows > INT_MAX || cols > INT_MAX)
    throw std::invalid_argument("transpose shape " + shape +
                                " has an extent above 2147483647, which the kernels cannot index.");
  const std::int64_t tiles =
      ((rows + index::kTile - 1) / index::kTile) * ((cols + index::kTile - 1) / index::kTile);
  if (tiles > INT_MAX)
    throw std::invalid_argument(
        "transpose shape " + shape +
        " has more than 2147483647 tiles of 32x32, which the kernels cannot index.");
}

void transpose(Variant v, const float* in, float* out, std::int64_t rows, std::int64_t cols,
               cudaStream_t stream) {
  check_shape(rows, cols);
  if (in == nullptr || out == nullptr)
    throw std::invalid_argument("transpose needs non-null input and output pointers.");
  const auto a = reinterpret_cast<std::uintptr_t>(in);
  const auto b = reinterpret_cast<std::uintptr_t>(out);
  if (a % alignof(float) != 0 || b % alignof(float) != 0)
    throw std::invalid_argument("transpose needs 4-byte aligned input and output pointers.");
  // No overflow: rows * cols <= 2^62 elements and the pointers address real allocations.
  const std::uintptr_t bytes =
      static_cast<std::uintptr_t>(rows) * static_cast<std::uintptr_t>(cols) * sizeof(float);
  if (a < b + bytes && b < a + bytes)
    throw std::invalid_argument("transpose cannot run in place: input and output overlap.");
  const int r = static_cast<int>(rows);
  const int c = static_cast<int>(cols);
  switch (v) {
    case Variant::naive:
      detail::launch_naive(in, out, r, c, stream);
      return;
    case Variant::tile:
      detail::launch_tile(in, out, r, c, stream);
      return;
    case Variant::padded:
      detail::launch_padded(in, out, r, c, stream);
      return;
    case Variant::swizzled:
      detail::launch_swizzled(in, out, r, c, stream);
      return;
    case Variant::best_64x64:
      detail::launch_vectorized_64x64(in, out, r, c, stream);
      return;
    case Variant::best_32x128:
      detail::launch_vectorized_32x128(in, out, r, c, stream);
      return;
    case Variant::best_64x64_persistent:
      detail::launch_vectorized_64x64_persistent(in, out, r, c, stream);
      return;
    case Variant::best_64x64_prefetch:
      detail::launch_vectorized_64x64_prefetch(in, out, r, c, stream);
      return;
    case Variant::best:
      if (r == 1 || c == 1) {
        // A vector's transpose has the same memory image: a device-to-device copy.
        MEMHIER_CUDA(cudaMemcpyAsync(out, in, static_cast<std::size_t>(bytes),
                                     cudaMemcpyDeviceToDevice, stream));
      } else {
        detail::launch_vectorized_64x64_prefetch(in, out, r, c, stream);  // padded if unaligned
      }
      return;
  }
  throw std::invalid_argument("transpose variant " + std::to_string(static_cast<int>(v)) +
                              " does not exist.");
}

}  // namespace memhier::transpose
