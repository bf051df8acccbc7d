// The WGMMA rungs as table launchers: the Hopper kernels (*.sm90a.cu) take plain arguments,
// the ladder a Params; unsupported shapes and cards throw invalid_argument (declined rows).
#include <stdexcept>

#include "hopper_launch.hpp"
#include "variants.hpp"

namespace memhier::gemm_bf16::detail {
namespace {

namespace hopper = memhier::kernels::gemm_bf16;

void check(const Params& p) {
  const std::string why =
      hopper::hopper_gemm_unsupported(p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.A, p.B, p.C);
  if (!why.empty()) throw std::invalid_argument(why);
}

void launch_wgmma_tma(const Params& p, cudaStream_t s) {
  check(p);
  hopper::wgmma_tma(p.m, p.n, p.k, p.alpha, p.A, p.lda, p.B, p.ldb, p.beta, p.C, p.ldc, s);
}

// One launch per Hopper entry point: the support check, then the kernel.
#define MEMHIER_HOPPER_LAUNCH(fn)                                                      \
  void launch_##fn(const Params& p, cudaStream_t s) {                                  \
    check(p);                                                                          \
    hopper::fn(p.m, p.n, p.k, p.alpha, p.A, p.lda, p.B, p.ldb, p.beta, p.C, p.ldc, s); \
  }
MEMHIER_HOPPER_LAUNCH(warp_specialized)
MEMHIER_HOPPER_LAUNCH(ws_c1_s4_128x256)
MEMHIER_HOPPER_LAUNCH(ws_c4_s4_128x256)
MEMHIER_HOPPER_LAUNCH(ws_c2_s6_128x128)
MEMHIER_HOPPER_LAUNCH(ws_c1_s6_128x128)
#undef MEMHIER_HOPPER_LAUNCH

Launcher from(void (*launch)(const Params&, cudaStream_t), const void* (*symbol)(),
              const hopper::HopperKernelInfo& info) {
  Launcher l;
  l.launch = launch;
  l.symbol = symbol;
  l.block_threads = info.block_threads;
  l.dynamic_smem = info.dynamic_smem;
  return l;
}

}  // namespace

Launcher wgmma_tma_launcher() {
  return from(
      launch_wgmma_tma, [] { return hopper::wgmma_tma_info().symbol; }, hopper::wgmma_tma_info());
}

// The table launchers of rung 7 and the ws_* candidates.
#define MEMHIER_HOPPER_LAUNCHER(fn)                                                   \
  Launcher fn##_launcher() {                                                          \
    return from(                                                                      \
        launch_##fn, [] { return hopper::fn##_info().symbol; }, hopper::fn##_info()); \
  }
MEMHIER_HOPPER_LAUNCHER(warp_specialized)
MEMHIER_HOPPER_LAUNCHER(ws_c1_s4_128x256)
MEMHIER_HOPPER_LAUNCHER(ws_c4_s4_128x256)
MEMHIER_HOPPER_LAUNCHER(ws_c2_s6_128x128)
MEMHIER_HOPPER_LAUNCHER(ws_c1_s6_128x128)
#undef MEMHIER_HOPPER_LAUNCHER

}  // namespace memhier::gemm_bf16::detail
