// Private to the elementwise ladder: one host launch function per variant (each in its own
// .cu, named for its technique) and the kernel symbols the registry reports on. Callers
// (api.cpp, family.cu) have validated pointers and sizes; launchers only size the grid,
// launch and check the launch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "index.cuh"
#include "memhier/kernels/elementwise.hpp"

namespace memhier::elementwise::detail {

/// Which operation a copy/axpy kernel instance performs.
enum class Op { copy, axpy };

/// The operation and its scalar (a, for axpy).
struct OpArgs {
  Op op = Op::copy;
  float a = 0.f;
};

// The copy/axpy rungs (elementwise_rungs.inc), each in its own .cu: a launch per rung, of
// one float per thread (width 1) or over the vector split for its width, and its kernel
// for an operation (cudaFuncGetAttributes).
#define MEMHIER_EW_LAUNCH_1(launch) \
  void launch(OpArgs op, const float* x, float* y, std::size_t n, cudaStream_t s);
#define MEMHIER_EW_LAUNCH_2(launch) \
  void launch(OpArgs op, const float* x, float* y, const Split& sp, cudaStream_t s);
#define MEMHIER_EW_LAUNCH_4 MEMHIER_EW_LAUNCH_2
#define MEMHIER_RUNG(name, width, launch, symbol, ...) \
  MEMHIER_EW_LAUNCH_##width(launch) const void* symbol(Op op);
#define MEMHIER_BENCH_RUNG(...)
#define MEMHIER_BEST(...)
#include "memhier/kernels/elementwise_rungs.inc"
#undef MEMHIER_EW_LAUNCH_1
#undef MEMHIER_EW_LAUNCH_2
#undef MEMHIER_EW_LAUNCH_4

// particles_aos.cu / particles_soa.cu: one particle per thread.
void launch_particles_aos(Particle* p, std::size_t n, float dt, cudaStream_t s);
const void* particles_aos_symbol();
void launch_particles_soa(const ParticlesSoA& p, std::size_t n, float dt, cudaStream_t s);
const void* particles_soa_symbol();

// api.cpp: which kernel a variant runs, shared by the dispatch and the predictions.
/// The copy/axpy kernels of this ladder: one per rung.
enum class Kernel {
#define MEMHIER_RUNG(name, ...) name,
#define MEMHIER_BENCH_RUNG(...)
#define MEMHIER_BEST(...)
#include "memhier/kernels/elementwise_rungs.inc"
};

/// The kernel `v` runs on x and y (addresses, 4-byte aligned) for n elements, and the split
/// its vector kernels use: a vector variant whose pointers have no common vector boundary
/// runs the scalar kernel; best takes float4, then float2, then scalar.
struct Dispatch {
  Kernel kernel = Kernel::scalar;
  Split split;  ///< the vector split (float2 or float4); unused by the scalar kernel
};
Dispatch dispatch(Variant v, std::uintptr_t x, std::uintptr_t y, std::size_t n);

// launch.cpp: grid sizing from the device, cached per process and device.
/// Blocks of kBlock threads needed to give `threads` threads one each (at least 1).
unsigned blocks_for(std::size_t threads);

}  // namespace memhier::elementwise::detail
