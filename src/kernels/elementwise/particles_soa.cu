// Particles, structure of arrays: thread i reads element i of six arrays and writes element
// i of three. Every access is stride 1 (a warp reads 128 contiguous bytes per field), so
// each byte fetched is used: 36 bytes of DRAM traffic per particle, the minimum.
#include "memhier/core/check.hpp"
#include "ops.cuh"
#include "variants.hpp"

namespace memhier::elementwise::detail {
namespace {

__global__ void __launch_bounds__(kBlock)
    particles_soa_kernel(float* __restrict__ x, float* __restrict__ y, float* __restrict__ z,
                         const float* __restrict__ vx, const float* __restrict__ vy,
                         const float* __restrict__ vz, std::size_t n, float dt) {
  const std::size_t i = flat_index(blockIdx.x, blockDim.x, threadIdx.x);
  if (i >= n) return;
  const std::size_t w = soa_word(i);
  const float px = x[w], py = y[w], pz = z[w];
  const float ux = vx[w], uy = vy[w], uz = vz[w];
  x[w] = fmaf(ux, dt, px);
  y[w] = fmaf(uy, dt, py);
  z[w] = fmaf(uz, dt, pz);
}

}  // namespace

void launch_particles_soa(const ParticlesSoA& p, std::size_t n, float dt, cudaStream_t s) {
  particles_soa_kernel<<<blocks_for(n), kBlock, 0, s>>>(p.x, p.y, p.z, p.vx, p.vy, p.vz, n, dt);
  MEMHIER_CHECK_LAUNCH();
}

const void* particles_soa_symbol() {
  return reinterpret_cast<const void*>(particles_soa_kernel);
}

}  // namespace memhier::elementwise::detail
