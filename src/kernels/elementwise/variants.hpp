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

// scalar.cu: one element per thread.
void launch_scalar(OpArgs op, const float* x, float* y, std::size_t n, cudaStream_t s);
const void* scalar_symbol(Op op);

// float2.cu: one float2 per thread over split_for(..., 2).
void launch_float2(OpArgs op, const float* x, float* y, const Split& sp, cudaStream_t s);
const void* float2_symbol(Op op);

// float4.cu: one float4 per thread over split_for(..., 4).
void launch_float4(OpArgs op, const float* x, float* y, const Split& sp, cudaStream_t s);
const void* float4_symbol(Op op);

// float4_unroll4.cu: one tile of kUnroll x kBlock float4 per block, as many blocks as tiles.
void launch_float4_unroll4(OpArgs op, const float* x, float* y, const Split& sp, cudaStream_t s);
const void* float4_unroll4_symbol(Op op);

// grid_stride.cu: as many blocks as fit on the device at once, looping over tiles.
void launch_grid_stride(OpArgs op, const float* x, float* y, const Split& sp, cudaStream_t s);
const void* grid_stride_symbol(Op op);

// grid_stride_streaming.cu: grid_stride with evict-first (.cs) loads and stores.
void launch_grid_stride_streaming(OpArgs op, const float* x, float* y, const Split& sp,
                                  cudaStream_t s);
const void* grid_stride_streaming_symbol(Op op);

// particles_aos.cu / particles_soa.cu: one particle per thread.
void launch_particles_aos(Particle* p, std::size_t n, float dt, cudaStream_t s);
const void* particles_aos_symbol();
void launch_particles_soa(const ParticlesSoA& p, std::size_t n, float dt, cudaStream_t s);
const void* particles_soa_symbol();

// api.cpp: which kernel a variant runs, shared by the dispatch and the predictions.
/// The copy/axpy kernels of this ladder.
enum class Kernel { scalar, float2, float4, float4_unroll4, grid_stride, grid_stride_streaming };

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
