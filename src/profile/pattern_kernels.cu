// One kernel per (space, load/store, width): a single warp executes exactly one memory
// instruction at the pattern's per-lane offsets, so Nsight Compute's counters for the
// launch are the counters of that one warp instruction. Offsets travel in a
// __grid_constant__ parameter (constant bank), so reading them adds no global or shared
// traffic. Loads are ld.volatile: ptxas deletes a plain load whose result is unused even
// inside asm volatile (seen on an H100: every load pattern counted 0), and storing the
// result would add traffic of its own.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "memhier/core/check.hpp"
#include "memhier/profile/run.hpp"

namespace memhier::profile {
namespace {

struct PatternArgs {
  std::uint32_t offset[32];
  std::uint32_t mask;
};

enum class Op { shared_ld, shared_st, global_ld, global_st };

__global__ void memhier_profile_marker() {}

template <int W>
__device__ __forceinline__ void shared_ld(std::uint32_t a) {
  std::uint32_t x, y, z, w;
  if constexpr (W == 1) asm volatile("ld.volatile.shared.u8 %0, [%1];" : "=r"(x) : "r"(a) : "memory");
  if constexpr (W == 2) asm volatile("ld.volatile.shared.u16 %0, [%1];" : "=r"(x) : "r"(a) : "memory");
  if constexpr (W == 4) asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(x) : "r"(a) : "memory");
  if constexpr (W == 8)
    asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a) : "memory");
  if constexpr (W == 16)
    asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                 : "r"(a)
                 : "memory");
}

template <int W>
__device__ __forceinline__ void shared_st(std::uint32_t a, std::uint32_t v) {
  if constexpr (W == 1) asm volatile("st.shared.u8 [%0], %1;" ::"r"(a), "r"(v) : "memory");
  if constexpr (W == 2) asm volatile("st.shared.u16 [%0], %1;" ::"r"(a), "r"(v) : "memory");
  if constexpr (W == 4) asm volatile("st.shared.u32 [%0], %1;" ::"r"(a), "r"(v) : "memory");
  if constexpr (W == 8)
    asm volatile("st.shared.v2.u32 [%0], {%1, %1};" ::"r"(a), "r"(v) : "memory");
  if constexpr (W == 16)
    asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};" ::"r"(a), "r"(v) : "memory");
}

template <int W>
__device__ __forceinline__ void global_ld(const unsigned char* p) {
  std::uint32_t x, y, z, w;
  if constexpr (W == 1) asm volatile("ld.volatile.global.u8 %0, [%1];" : "=r"(x) : "l"(p) : "memory");
  if constexpr (W == 2) asm volatile("ld.volatile.global.u16 %0, [%1];" : "=r"(x) : "l"(p) : "memory");
  if constexpr (W == 4) asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(x) : "l"(p) : "memory");
  if constexpr (W == 8)
    asm volatile("ld.volatile.global.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "l"(p) : "memory");
  if constexpr (W == 16)
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                 : "l"(p)
                 : "memory");
}

template <int W>
__device__ __forceinline__ void global_st(unsigned char* p, std::uint32_t v) {
  if constexpr (W == 1) asm volatile("st.global.u8 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  if constexpr (W == 2) asm volatile("st.global.u16 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  if constexpr (W == 4) asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  if constexpr (W == 8)
    asm volatile("st.global.v2.u32 [%0], {%1, %1};" ::"l"(p), "r"(v) : "memory");
  if constexpr (W == 16)
    asm volatile("st.global.v4.u32 [%0], {%1, %1, %1, %1};" ::"l"(p), "r"(v) : "memory");
}

template <Op O, int W>
__global__ void memhier_access_pattern(const __grid_constant__ PatternArgs args,
                                       unsigned char* global) {
  extern __shared__ __align__(16) unsigned char smem[];
  const unsigned lane = threadIdx.x;
  if (!((args.mask >> lane) & 1u)) return;
  const std::uint32_t off = args.offset[lane];
  const auto sbase = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  if constexpr (O == Op::shared_ld) shared_ld<W>(sbase + off);
  if constexpr (O == Op::shared_st) shared_st<W>(sbase + off, lane);
  if constexpr (O == Op::global_ld) global_ld<W>(global + off);
  if constexpr (O == Op::global_st) global_st<W>(global + off, lane);
}

template <Op O>
void launch(int width, const PatternArgs& a, unsigned char* g, std::size_t smem, cudaStream_t s) {
  switch (width) {
    case 1: memhier_access_pattern<O, 1><<<1, 32, smem, s>>>(a, g); break;
    case 2: memhier_access_pattern<O, 2><<<1, 32, smem, s>>>(a, g); break;
    case 4: memhier_access_pattern<O, 4><<<1, 32, smem, s>>>(a, g); break;
    case 8: memhier_access_pattern<O, 8><<<1, 32, smem, s>>>(a, g); break;
    case 16: memhier_access_pattern<O, 16><<<1, 32, smem, s>>>(a, g); break;
    default: throw std::invalid_argument("access width must be 1, 2, 4, 8 or 16 bytes.");
  }
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace

void launch_marker(int index, cudaStream_t stream) {
  memhier_profile_marker<<<static_cast<unsigned>(index) + 1, 1, 0, stream>>>();
  MEMHIER_CHECK_LAUNCH();
}

PatternRunner::PatternRunner(const std::vector<Pattern>& all)
    : global_(std::max<std::size_t>(pattern_extent(all, false), 256)),
      shared_bytes_(pattern_extent(all, true)) {
  if (shared_bytes_ > 48 * 1024)
    throw std::invalid_argument("access patterns reach past 48 KiB of shared memory.");
  MEMHIER_CUDA(cudaMemset(global_.data(), 0, global_.bytes()));
}

void PatternRunner::run(const Pattern& p, cudaStream_t s) {
  PatternArgs a{};
  for (int l = 0; l < 32; ++l) {
    if (p.access.address[l] + p.access.width_bytes > (p.shared ? shared_bytes_ : global_.bytes()))
      throw std::invalid_argument("pattern '" + p.name + "' reaches past its buffer.");
    a.offset[l] = static_cast<std::uint32_t>(p.access.address[l]);
  }
  a.mask = p.access.active_mask;
  const bool st = p.access.is_store;
  const int w = p.access.width_bytes;
  if (p.shared)
    st ? launch<Op::shared_st>(w, a, global_.data(), shared_bytes_, s)
       : launch<Op::shared_ld>(w, a, global_.data(), shared_bytes_, s);
  else
    st ? launch<Op::global_st>(w, a, global_.data(), shared_bytes_, s)
       : launch<Op::global_ld>(w, a, global_.data(), shared_bytes_, s);
}

}  // namespace memhier::profile
