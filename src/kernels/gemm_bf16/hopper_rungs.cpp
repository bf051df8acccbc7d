// The WGMMA rungs as table launchers: the Hopper kernels (*.sm90a.cu) take plain arguments,
// the ladder a Params; unsupported shapes and cards throw invalid_argument (declined rows).
#include <stdexcept>

#include "hopper_launch.hpp"
#include "variants.hpp"

namespace memhier::gemm_bf16::detail {
namespace {

namespace hopper = memhier::kernels::gemm_bf16;

void check(const Params& p) {
  const std::string why = hopper::hopper_gemm_unsupported(p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.A,
                                                          p.B, p.C);
  if (!why.empty()) throw std::invalid_argument(why);
}

void launch_wgmma_tma(const Params& p, cudaStream_t s) {
  check(p);
  hopper::wgmma_tma(p.m, p.n, p.k, p.alpha, p.A, p.lda, p.B, p.ldb, p.beta, p.C, p.ldc, s);
}

void launch_warp_specialized(const Params& p, cudaStream_t s) {
  check(p);
  hopper::warp_specialized(p.m, p.n, p.k, p.alpha, p.A, p.lda, p.B, p.ldb, p.beta, p.C, p.ldc, s);
}

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
  return from(launch_wgmma_tma, [] { return hopper::wgmma_tma_info().symbol; },
              hopper::wgmma_tma_info());
}

Launcher warp_specialized_launcher() {
  return from(launch_warp_specialized, [] { return hopper::warp_specialized_info().symbol; },
              hopper::warp_specialized_info());
}

}  // namespace memhier::gemm_bf16::detail
