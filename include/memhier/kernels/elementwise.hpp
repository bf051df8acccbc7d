// Elementwise ladder, fp32: copy (y = x), axpy (y = a*x + y, in place like BLAS) and a
// particle update (p += v*dt) in both layouts, array of structures and structure of
// arrays. Every function takes device pointers, checks its input (one sentence in a
// std::invalid_argument) and enqueues on `stream` without synchronizing.
//
// Alignment: the vector variants (float2, float4 and the float4 rungs above it) need x and
// y to reach 8- or 16-byte alignment together. When both share the same misalignment
// (x and y both 4 bytes past a 16-byte boundary, say) a scalar head of up to 3 elements
// is peeled so the rest runs vectorized; when their misalignments differ no common
// vector boundary exists and the call falls back to the scalar kernel (same result,
// slower). `best` picks float4-based, then float2, then scalar, whichever the pointers
// allow. Any length works: a scalar tail covers what is left after the last vector.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <string>

namespace memhier::elementwise {

/// The ladder's kernels for copy and axpy, naive to best (elementwise_rungs.inc).
enum class Variant {
#define MEMHIER_RUNG(name, ...) name,
#define MEMHIER_BENCH_RUNG(...)
#define MEMHIER_BEST(name, ...) name,
#include "memhier/kernels/elementwise_rungs.inc"
};

/// Every variant, in rung order (best last).
inline constexpr Variant kAllVariants[] = {
#define MEMHIER_RUNG(name, ...) Variant::name,
#define MEMHIER_BENCH_RUNG(...)
#define MEMHIER_BEST(name, ...) Variant::name,
#include "memhier/kernels/elementwise_rungs.inc"
};

/// The variant's readable name ("float4_unroll4"), as the bench and the CLI spell it.
const char* to_string(Variant v);

/// The variant named `name`, or nullopt (the bench-only rungs have no Variant).
std::optional<Variant> variant_from_string(const std::string& name);

/// y[i] = x[i] for i < n. x == y is allowed (a no-op copy); other overlaps are rejected.
void copy(Variant v, const float* x, float* y, std::size_t n, cudaStream_t stream = nullptr);

/// y[i] = a*x[i] + y[i] for i < n (one fma per element). x == y is allowed; other
/// overlaps are rejected.
void axpy(Variant v, float a, const float* x, float* y, std::size_t n,
          cudaStream_t stream = nullptr);

/// One particle, array-of-structures layout: 24 bytes, six packed floats, no padding
/// (a 32-byte padded record would allow float4 loads but move a third more bytes).
struct Particle {
  float x, y, z;     ///< position
  float vx, vy, vz;  ///< velocity
};
static_assert(sizeof(Particle) == 6 * sizeof(float), "Particle must be six packed floats");

/// Particles, structure-of-arrays layout: six separate arrays of n floats each.
struct ParticlesSoA {
  float* x;
  float* y;
  float* z;
  const float* vx;
  const float* vy;
  const float* vz;
};

/// p[i].{x,y,z} += p[i].{vx,vy,vz} * dt for i < n (array of structures; velocities untouched).
void update_particles_aos(Particle* p, std::size_t n, float dt, cudaStream_t stream = nullptr);

/// x[i] += vx[i]*dt, y[i] += vy[i]*dt, z[i] += vz[i]*dt for i < n (structure of arrays).
/// The position arrays must not overlap each other or the velocity arrays.
void update_particles_soa(const ParticlesSoA& p, std::size_t n, float dt,
                          cudaStream_t stream = nullptr);

}  // namespace memhier::elementwise
