// The public histogram API: validates, zeroes the bins, dispatches to a variant.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/histogram/variants.hpp"
#include "memhier/core/check.hpp"
#include "memhier/kernels/histogram.hpp"
#include "memhier/registry/names.hpp"

namespace memhier::histogram {
namespace {

constexpr registry::Named<Variant> kNames[] = {
#define MEMHIER_RUNG(name, ...) {Variant::name, #name},
#define MEMHIER_BEST MEMHIER_RUNG
#include "memhier/kernels/histogram_rungs.inc"
};

void validate(const void* in, std::size_t n, std::size_t elem_bytes, const std::uint32_t* bins) {
  if (!bins) throw std::invalid_argument("histogram256: the bins pointer is null.");
  if (reinterpret_cast<std::uintptr_t>(bins) % alignof(std::uint32_t) != 0)
    throw std::invalid_argument("histogram256: the bins pointer is not 4-byte aligned.");
  if (n > kMaxElements)
    throw std::invalid_argument("histogram256: " + std::to_string(n) +
                                " elements could overflow a 32-bit bin; the limit is " +
                                std::to_string(kMaxElements) + ".");
  if (n > 0 && !in) throw std::invalid_argument("histogram256: the input pointer is null.");
  if (reinterpret_cast<std::uintptr_t>(in) % elem_bytes != 0)
    throw std::invalid_argument("histogram256: the int32 input pointer is not 4-byte aligned.");
}

template <typename T>
void dispatch(Variant v, const T* in, std::size_t n, std::uint32_t* bins, cudaStream_t s) {
  validate(in, n, sizeof(T), bins);
  // Every variant adds into the bins with atomics: they start from zero, stream-ordered.
  MEMHIER_CUDA(cudaMemsetAsync(bins, 0, 256 * sizeof(std::uint32_t), s));
  if (n == 0) return;
  switch (v) {
#define MEMHIER_RUNG(name, launch, ...) \
  case Variant::name:                   \
    return detail::launch(in, n, bins, s);
#define MEMHIER_BEST MEMHIER_RUNG
#include "memhier/kernels/histogram_rungs.inc"
  }
  throw std::invalid_argument("histogram256: unknown variant " +
                              std::to_string(static_cast<int>(v)) + ".");
}

}  // namespace

const char* to_string(Variant v) {
  return registry::name_of(kNames, v);
}

std::optional<Variant> variant_from_string(const std::string& name) {
  return registry::from_name(kNames, name);
}

void histogram256(Variant v, const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                  cudaStream_t stream) {
  dispatch(v, in, n, bins, stream);
}

void histogram256(Variant v, const std::int32_t* in, std::size_t n, std::uint32_t* bins,
                  cudaStream_t stream) {
  dispatch(v, in, n, bins, stream);
}

}  // namespace memhier::histogram
