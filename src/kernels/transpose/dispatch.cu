// The public transpose API: names, input validation and dispatch to the variants.
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>

#include "kernels/transpose/index.cuh"
#include "kernels/transpose/variants.hpp"
#include "memhier/core/check.hpp"
#include "memhier/kernels/transpose.hpp"
#include "memhier/registry/names.hpp"

namespace memhier::transpose {

// Each rung's name, in table order (a constexpr array: internal linkage already).
constexpr registry::Named<Variant> kNames[] = {
#define MEMHIER_RUNG(name, ...) {Variant::name, #name},
#define MEMHIER_BEST MEMHIER_RUNG
#include "memhier/kernels/transpose_rungs.inc"
};

const char* to_string(Variant v) {
  return registry::name_of(kNames, v);
}

std::vector<Variant> all_variants() {
  return {std::begin(kAllVariants), std::end(kAllVariants)};
}

std::optional<Variant> from_string(const std::string& name) {
  return registry::from_name(kNames, name);
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

namespace {

/// Validates a call (transpose's errors); returns its bytes.
std::uintptr_t checked_call(const float* in, const float* out, std::int64_t rows,
                            std::int64_t cols) {
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
  return bytes;
}

}  // namespace

Variant best_variant_at(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                        cudaStream_t stream) {
  checked_call(in, out, rows, cols);
  return detail::choose_best(in, out, static_cast<int>(rows), static_cast<int>(cols), stream);
}

void transpose(Variant v, const float* in, float* out, std::int64_t rows, std::int64_t cols,
               cudaStream_t stream) {
  const std::uintptr_t bytes = checked_call(in, out, rows, cols);
  const int r = static_cast<int>(rows);
  const int c = static_cast<int>(cols);
  if (v == Variant::best) {
    v = detail::choose_best(in, out, r, c, stream);
    if (v == Variant::best) {
      // A vector's transpose has the same memory image: a device-to-device copy.
      MEMHIER_CUDA(cudaMemcpyAsync(out, in, static_cast<std::size_t>(bytes),
                                   cudaMemcpyDeviceToDevice, stream));
      return;
    }
  }
  switch (v) {
#define MEMHIER_RUNG(name, launch, ...)    \
  case Variant::name:                      \
    detail::launch(in, out, r, c, stream); \
    return;
#define MEMHIER_BEST(name, ...) \
  case Variant::name:           \
    break;
#include "memhier/kernels/transpose_rungs.inc"
  }
  throw std::invalid_argument("transpose variant " + std::to_string(static_cast<int>(v)) +
                              " does not exist.");
}

}  // namespace memhier::transpose
