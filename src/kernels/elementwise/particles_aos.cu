// Particles, array of structures: thread i updates particle i in place. Natural C++ code,
// but lanes are 24 bytes apart: each of the six field loads of a warp spans 768 bytes
// (24 sectors for 128 useful bytes) and is served by L1 over several wavefronts, and the
// three position stores leave every sector half written, so L2 writes back whole sectors,
// velocities included (48 bytes of DRAM traffic per particle against the 36 needed).
#include "memhier/core/check.hpp"
#include "ops.cuh"
#include "variants.hpp"

namespace memhier::elementwise::detail {
namespace {

__global__ void __launch_bounds__(kBlock)
    particles_aos_kernel(Particle* __restrict__ p, std::size_t n, float dt) {
  const std::size_t i = flat_index(blockIdx.x, blockDim.x, threadIdx.x);
  if (i >= n) return;
  const Particle q = p[i];
  p[i].x = fmaf(q.vx, dt, q.x);
  p[i].y = fmaf(q.vy, dt, q.y);
  p[i].z = fmaf(q.vz, dt, q.z);
}

}  // namespace

void launch_particles_aos(Particle* p, std::size_t n, float dt, cudaStream_t s) {
  particles_aos_kernel<<<blocks_for(n), kBlock, 0, s>>>(p, n, dt);
  MEMHIER_CHECK_LAUNCH();
}

const void* particles_aos_symbol() {
  return reinterpret_cast<const void*>(particles_aos_kernel);
}

}  // namespace memhier::elementwise::detail
