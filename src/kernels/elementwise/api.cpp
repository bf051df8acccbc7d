// The public elementwise API: input checks (one sentence each), the alignment split, and
// dispatch to the variant launchers.
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "memhier/kernels/elementwise.hpp"
#include "memhier/registry/names.hpp"
#include "variants.hpp"

namespace memhier::elementwise {
namespace {

using detail::Op;
using detail::OpArgs;
using detail::Split;

std::uintptr_t addr(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}

// Each variant's name (the bench-only rungs have no Variant).
constexpr registry::Named<Variant> kNames[] = {
#define MEMHIER_RUNG(name, ...) {Variant::name, #name},
#define MEMHIER_BENCH_RUNG(...)
#define MEMHIER_BEST(name, ...) {Variant::name, #name},
#include "memhier/kernels/elementwise_rungs.inc"
};

// Largest n one launch of one element per thread covers: (2^31 - 1) blocks of kBlock.
constexpr std::size_t kMaxElements = std::size_t{0x7fffffff} * detail::kBlock;

bool overlaps(const void* a, const void* b, std::size_t bytes) {
  return addr(a) < addr(b) + bytes && addr(b) < addr(a) + bytes;
}

// Null, zero, overflowing, misaligned or wrapping arrays of `count` floats: one sentence.
void check_array(const char* fn, const char* name, const void* p, std::size_t count) {
  const std::string where = std::string("elementwise::") + fn + ": ";
  if (p == nullptr) throw std::invalid_argument(where + name + " is a null pointer.");
  if (addr(p) % alignof(float) != 0)
    throw std::invalid_argument(where + name +
                                " is not 4-byte aligned, as a float pointer must be.");
  if (count > std::numeric_limits<std::uintptr_t>::max() / sizeof(float) ||
      addr(p) > std::numeric_limits<std::uintptr_t>::max() - count * sizeof(float))
    throw std::invalid_argument(where + name + " plus " + std::to_string(count) +
                                " floats runs past the end of the address space.");
}

void check_count(const char* fn, std::size_t n, std::size_t floats_per_item) {
  const std::string where = std::string("elementwise::") + fn + ": ";
  if (n == 0) throw std::invalid_argument(where + "n is 0; there must be at least one element.");
  if (n > kMaxElements / floats_per_item)
    throw std::invalid_argument(where + "n = " + std::to_string(n) +
                                " is more than one launch can cover (" +
                                std::to_string(kMaxElements / floats_per_item) + ").");
}

void check_pair(const char* fn, const float* x, const float* y, std::size_t n) {
  check_count(fn, n, 1);
  check_array(fn, "x", x, n);
  check_array(fn, "y", y, n);
  if (x != y && overlaps(x, y, n * sizeof(float)))
    throw std::invalid_argument(std::string("elementwise::") + fn +
                                ": x and y overlap without being the same array; they must be "
                                "disjoint, or equal for an in-place update.");
}

using ScalarLaunch = void (*)(OpArgs, const float*, float*, std::size_t, cudaStream_t);
using VectorLaunch = void (*)(OpArgs, const float*, float*, const Split&, cudaStream_t);

// A rung's launch, by its signature: one float per thread over n, or over the vector split.
void launch(ScalarLaunch f, OpArgs op, const float* x, float* y, std::size_t n, const Split&,
            cudaStream_t s) {
  f(op, x, y, n, s);
}
void launch(VectorLaunch f, OpArgs op, const float* x, float* y, std::size_t, const Split& sp,
            cudaStream_t s) {
  f(op, x, y, sp, s);
}

// A vector variant on pointers whose misalignments differ runs the scalar kernel instead.
void run(Variant v, OpArgs op, const float* x, float* y, std::size_t n, cudaStream_t s) {
  const detail::Dispatch d = detail::dispatch(v, addr(x), addr(y), n);
  switch (d.kernel) {
#define MEMHIER_RUNG(name, width, fn, ...) \
  case detail::Kernel::name:               \
    return launch(detail::fn, op, x, y, n, d.split, s);
#define MEMHIER_BENCH_RUNG(...)
#define MEMHIER_BEST(...)
#include "memhier/kernels/elementwise_rungs.inc"
  }
  throw std::invalid_argument("elementwise: unknown kernel " +
                              std::to_string(static_cast<int>(d.kernel)) + ".");
}

}  // namespace

namespace detail {

Dispatch dispatch(Variant v, std::uintptr_t x, std::uintptr_t y, std::size_t n) {
  Split sp2, sp4;
  const bool v2 = split_for(x, y, n, 2, &sp2);
  const bool v4 = split_for(x, y, n, 4, &sp4);
  // A rung of width w runs on the split for w, or the scalar kernel when there is none.
  const auto fits = [&](Kernel k, int width) {
    if (width == 4) return v4 ? Dispatch{k, sp4} : Dispatch{Kernel::scalar, {}};
    if (width == 2) return v2 ? Dispatch{k, sp2} : Dispatch{Kernel::scalar, {}};
    return Dispatch{k, {}};
  };
  if (v == Variant::best) {
    // One float4 per thread, one pass: 1.01x memcpy on copy and 1.03x on axpy (H200,
    // 2026-11-21), ahead of the grid-stride loop (0.92x, 0.96x); then float2, then scalar.
    if (v4) return {Kernel::float4, sp4};
    if (v2) return {Kernel::float2, sp2};
    return {Kernel::scalar, {}};
  }
  switch (v) {
#define MEMHIER_RUNG(name, width, ...) \
  case Variant::name:                  \
    return fits(Kernel::name, width);
#define MEMHIER_BENCH_RUNG(...)
#define MEMHIER_BEST(name, ...) \
  case Variant::name:           \
    break;
#include "memhier/kernels/elementwise_rungs.inc"
  }
  throw std::invalid_argument("elementwise: unknown variant " +
                              std::to_string(static_cast<int>(v)) + ".");
}

}  // namespace detail

const char* to_string(Variant v) {
  return registry::name_of(kNames, v);
}

std::optional<Variant> variant_from_string(const std::string& name) {
  return registry::from_name(kNames, name);
}

void copy(Variant v, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  check_pair("copy", x, y, n);
  run(v, OpArgs{Op::copy, 0.f}, x, y, n, stream);
}

void axpy(Variant v, float a, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  check_pair("axpy", x, y, n);
  run(v, OpArgs{Op::axpy, a}, x, y, n, stream);
}

void update_particles_aos(Particle* p, std::size_t n, float dt, cudaStream_t stream) {
  check_count("update_particles_aos", n, detail::kParticleFloats);
  check_array("update_particles_aos", "p", p, n * detail::kParticleFloats);
  detail::launch_particles_aos(p, n, dt, stream);
}

void update_particles_soa(const ParticlesSoA& p, std::size_t n, float dt, cudaStream_t stream) {
  const char* fn = "update_particles_soa";
  check_count(fn, n, 1);
  const void* arrays[6] = {p.x, p.y, p.z, p.vx, p.vy, p.vz};
  const char* names[6] = {"x", "y", "z", "vx", "vy", "vz"};
  for (int i = 0; i < 6; ++i) check_array(fn, names[i], arrays[i], n);
  // Positions are written: none may share memory with another array (velocities may alias
  // each other, they are only read).
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 6; ++j)
      if (j != i && overlaps(arrays[i], arrays[j], n * sizeof(float)))
        throw std::invalid_argument(std::string("elementwise::") + fn + ": position array " +
                                    names[i] + " overlaps " + names[j] +
                                    "; position arrays must not share memory with any other.");
  detail::launch_particles_soa(p, n, dt, stream);
}

}  // namespace memhier::elementwise
