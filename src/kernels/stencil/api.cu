// The public entry point of the stencil ladder: names, validation, dispatch.
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/stencil/variants.hpp"
#include "memhier/core/check.hpp"
#include "memhier/kernels/stencil.hpp"
#include "memhier/registry/names.hpp"

namespace memhier::stencil {

// Each rung's name, in table order (a constexpr array: internal linkage already).
constexpr registry::Named<Variant> kNames[] = {
#define MEMHIER_RUNG(name, ...) {Variant::name, #name},
#define MEMHIER_BEST MEMHIER_RUNG
#include "memhier/kernels/stencil_rungs.inc"
};

const char* to_string(Variant v) {
  return registry::name_of(kNames, v);
}

bool variant_from_string(const std::string& name, Variant* out) {
  const std::optional<Variant> v = registry::from_name(kNames, name);
  if (v && out) *out = *v;
  return v.has_value();
}

Variant best_variant_for(int k) {
  // Before (or without) tuning; tuner.cpp decides per card and shape.
  switch (k) {
    // Light filters: the taller tile (half the halo rows per output) wins on traffic.
    case 3:
    case 5:
      return Variant::best_128x64;
    // 7×7: 49 FMAs per output make the compute phase long; smaller blocks, twice as many
    // per SM, keep more of them in their fill phase at any time.
    case 7:
      return Variant::best_128x32;
    default:
      throw std::invalid_argument("stencil filter size must be 3, 5 or 7 (got " +
                                  std::to_string(k) + ").");
  }
}

namespace {

/// The call's arguments once checked; std::invalid_argument (one sentence) otherwise.
detail::Args checked_call(const float* in, float* out, int rows, int cols, const float* filter,
                          int k, cudaStream_t stream) {
  if (k != 3 && k != 5 && k != 7)
    throw std::invalid_argument("stencil filter size must be 3, 5 or 7 (got " + std::to_string(k) +
                                ").");
  if (rows < 1 || cols < 1)
    throw std::invalid_argument("stencil image must have at least one row and one column (got " +
                                std::to_string(rows) + "x" + std::to_string(cols) + ").");
  if (!in || !out || !filter)
    throw std::invalid_argument("stencil input, output and filter pointers must not be null.");
  const auto in_addr = reinterpret_cast<std::uintptr_t>(in);
  const auto out_addr = reinterpret_cast<std::uintptr_t>(out);
  if (in_addr % alignof(float) != 0 || out_addr % alignof(float) != 0)
    throw std::invalid_argument(
        "stencil input and output pointers must be aligned to a float (4 bytes).");
  // rows, cols < 2^31, so the element count (< 2^62) and the byte size (< 2^64) fit size_t.
  const std::size_t bytes =
      static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) * sizeof(float);
  if (in_addr > std::numeric_limits<std::uintptr_t>::max() - bytes ||
      out_addr > std::numeric_limits<std::uintptr_t>::max() - bytes)
    throw std::invalid_argument("stencil image of " + std::to_string(rows) + "x" +
                                std::to_string(cols) +
                                " floats overflows the address space at the given pointer.");
  if (in_addr < out_addr + bytes && out_addr < in_addr + bytes)
    throw std::invalid_argument(
        "stencil input and output overlap; in-place filtering is not supported.");
  return detail::Args{in, out, rows, cols, filter, k, stream};
}

}  // namespace

Variant best_variant_at(const float* in, float* out, int rows, int cols, const float* filter, int k,
                        cudaStream_t stream) {
  return detail::choose_best(checked_call(in, out, rows, cols, filter, k, stream));
}

void stencil2d(Variant v, const float* in, float* out, int rows, int cols, const float* filter,
               int k, cudaStream_t stream) {
  const detail::Args a = checked_call(in, out, rows, cols, filter, k, stream);
  if (v == Variant::best) v = detail::choose_best(a);
  switch (v) {
#define MEMHIER_RUNG(name, launch, ...) \
  case Variant::name:                   \
    return detail::launch(a);
#define MEMHIER_BEST(name, ...) \
  case Variant::name:           \
    break;
#include "memhier/kernels/stencil_rungs.inc"
  }
  throw std::invalid_argument("unknown stencil variant.");
}

namespace detail {

unsigned int grid_for_tiles(long long tiles) {
  // The device's grid limit, read once per device and process.
  static std::mutex mu;
  static std::vector<int> max_x;  // by device ordinal; 0 = not read yet
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  int limit = 0;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (static_cast<std::size_t>(dev) >= max_x.size())
      max_x.resize(static_cast<std::size_t>(dev) + 1, 0);
    if (max_x[static_cast<std::size_t>(dev)] == 0) {
      int x = 0;
      MEMHIER_CUDA(cudaDeviceGetAttribute(&x, cudaDevAttrMaxGridDimX, dev));
      max_x[static_cast<std::size_t>(dev)] = x > 0 ? x : 65535;
    }
    limit = max_x[static_cast<std::size_t>(dev)];
  }
  if (tiles < 1) return 1;
  return static_cast<unsigned int>(tiles < limit ? tiles : limit);
}

}  // namespace detail
}  // namespace memhier::stencil
