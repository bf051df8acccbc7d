// The cp.async multistage kernel (rungs 12-15 and a candidate of `best`): STAGES shared
// stages in dynamic shared memory; STAGES - 1 k-tiles are in flight (global -> shared,
// no registers) while one is computed. One __syncthreads per k-tile: after it, every
// thread has finished the previous tile, whose stage is then refilled.
#pragma once

#include "block_tile.cuh"
#include "memhier/core/ptx.cuh"

namespace memhier::gemm::detail {

template <class T, int STAGES>
constexpr int cp_async_smem_bytes() {
  return STAGES * (T::A_FLOATS + T::B_FLOATS) * static_cast<int>(sizeof(float));
}

template <class T, int STAGES, int MIN_BLOCKS>
__global__ void __launch_bounds__(T::THREADS, MIN_BLOCKS) cp_async_kernel(const Params p) {
  static_assert(STAGES >= 2 && STAGES <= 8, "2..8 stages");
  constexpr int kStage = T::A_FLOATS + T::B_FLOATS;
  MEMHIER_GEMM_DYNAMIC_SMEM(smem);
  const auto [tid, m0, n0, ty, tx, nk] = tile_start<T>(p);
  float acc[T::TM][T::TN];
  zero<T>(acc);

  // Prologue: tiles 0 .. STAGES-2 in flight, one commit group each (empty groups keep
  // the count uniform when there are fewer tiles).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < nk) {
      float* stage = smem + s * kStage;
      issue_tile_async<T>(p, m0, n0, s * T::BK, tid, stage, stage + T::A_FLOATS);
    }
    ptx::cp_async_commit_group();
  }

  for (int kt = 0; kt < nk; ++kt) {
    // Groups committed so far: tiles 0 .. kt+STAGES-2; all but the newest STAGES-2 are
    // complete, so tile kt has landed (for this thread; the barrier makes it everyone's).
    ptx::cp_async_wait_group<STAGES - 2>();
    __syncthreads();
    const int next = kt + STAGES - 1;  // refills the stage of tile kt-1
    if (next < nk) {
      float* stage = smem + (next % STAGES) * kStage;
      issue_tile_async<T>(p, m0, n0, next * T::BK, tid, stage, stage + T::A_FLOATS);
    }
    ptx::cp_async_commit_group();

    const float* As = smem + (kt % STAGES) * kStage;
    const float* Bs = As + T::A_FLOATS;
    float4 fa[2][T::RM], fb[2][T::RN];
    load_fragments<T>(As, Bs, 0, ty, tx, fa[0], fb[0]);
#pragma unroll
    for (int kk = 0; kk < T::BK; ++kk) {
      if (kk + 1 < T::BK)
        load_fragments<T>(As, Bs, kk + 1, ty, tx, fa[(kk + 1) & 1], fb[(kk + 1) & 1]);
      outer_product<T>(acc, fa[kk & 1], fb[kk & 1]);
    }
  }
  ptx::cp_async_wait_group<0>();  // nothing in flight past here (all real tiles were waited for)
  write_tile<T>(p, m0, n0, ty, tx, acc);
}

/// The launcher of cp_async_kernel<T, STAGES, MIN_BLOCKS> through `launch`.
template <class T, int STAGES, int MIN_BLOCKS>
Launcher cp_async_launcher_for(void (*launch)(const Params&, cudaStream_t)) {
  const void* (*symbol)() = [] {
    return reinterpret_cast<const void*>(cp_async_kernel<T, STAGES, MIN_BLOCKS>);
  };
  return block_tile_launcher<T>(launch, symbol, cp_async_smem_bytes<T, STAGES>(), true);
}

template <class T, int STAGES, int MIN_BLOCKS>
void launch_cp_async(const Params& p, cudaStream_t s, const char* what) {
  constexpr int kBytes = cp_async_smem_bytes<T, STAGES>();
  const auto kernel = cp_async_kernel<T, STAGES, MIN_BLOCKS>;
  prepare_dynamic_smem(reinterpret_cast<const void*>(kernel), kBytes, what);
  launch_kernel(kernel, block_tile_grid<T>(p, what), dim3(T::THREADS),
                static_cast<std::size_t>(kBytes), s, p);
}

}  // namespace memhier::gemm::detail
