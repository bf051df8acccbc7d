// The public elementwise API: input checks (one sentence each), the alignment split, and
// dispatch to the variant launchers.
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "memhier/kernels/elementwise.hpp"
#include "variants.hpp"

namespace memhier::elementwise {
namespace {

using detail::Op;
using detail::OpArgs;
using detail::Split;

std::uintptr_t addr(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}

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

// A vector variant on pointers whose misalignments differ runs the scalar kernel instead.
void run(Variant v, OpArgs op, const float* x, float* y, std::size_t n, cudaStream_t s) {
  const detail::Dispatch d = detail::dispatch(v, addr(x), addr(y), n);
  switch (d.kernel) {
    case detail::Kernel::scalar:
      return detail::launch_scalar(op, x, y, n, s);
    case detail::Kernel::float2:
      return detail::launch_float2(op, x, y, d.split, s);
    case detail::Kernel::float4:
      return detail::launch_float4(op, x, y, d.split, s);
    case detail::Kernel::float4_unroll4:
      return detail::launch_float4_unroll4(op, x, y, d.split, s);
    case detail::Kernel::grid_stride:
      return detail::launch_grid_stride(op, x, y, d.split, s);
    case detail::Kernel::grid_stride_streaming:
      return detail::launch_grid_stride_streaming(op, x, y, d.split, s);
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
  const auto vec4 = [&](Kernel k) { return v4 ? Dispatch{k, sp4} : Dispatch{Kernel::scalar, {}}; };
  switch (v) {
    case Variant::scalar:
      return {Kernel::scalar, {}};
    case Variant::float2:
      return v2 ? Dispatch{Kernel::float2, sp2} : Dispatch{Kernel::scalar, {}};
    case Variant::float4:
      return vec4(Kernel::float4);
    case Variant::float4_unroll4:
      return vec4(Kernel::float4_unroll4);
    case Variant::grid_stride:
      return vec4(Kernel::grid_stride);
    case Variant::grid_stride_streaming:
      return vec4(Kernel::grid_stride_streaming);
    case Variant::best:
      // One float4 per thread, one pass: 1.01x memcpy on copy and 1.03x on axpy (H200,
      // 2026-11-21), ahead of the grid-stride loop (0.92x, 0.96x); then float2, then scalar.
      if (v4) return {Kernel::float4, sp4};
      if (v2) return {Kernel::float2, sp2};
      return {Kernel::scalar, {}};
  }
  throw std::invalid_argument("elementwise: unknown variant " +
                              std::to_string(static_cast<int>(v)) + ".");
}

}  // namespace detail

const char* to_string(Variant v) {
  switch (v) {
    case Variant::scalar:
      return "scalar";
    case Variant::float2:
      return "float2";
    case Variant::float4:
      return "float4";
    case Variant::float4_unroll4:
      return "float4_unroll4";
    case Variant::grid_stride:
      return "grid_stride";
    case Variant::grid_stride_streaming:
      return "grid_stride_streaming";
    case Variant::best:
      return "best";
  }
  return "unknown";
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
