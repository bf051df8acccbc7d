// The WGMMA rungs as table launchers: the Hopper kernels (*.sm90a.cu) take plain arguments,
// the ladder a Params; unsupported shapes and cards throw invalid_argument (declined rows).
#include <cstdint>
#include <stdexcept>

#include "hopper_launch.hpp"
#include "kernels/gemm/repitch.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/per_stream.hpp"
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

// One launch per warp-specialized configuration (ws_configs.inc): the support check, then
// the kernel.
#define MEMHIER_HOPPER_LAUNCH(fn)                                                      \
  void launch_##fn(const Params& p, cudaStream_t s) {                                  \
    check(p);                                                                          \
    hopper::fn(p.m, p.n, p.k, p.alpha, p.A, p.lda, p.B, p.ldb, p.beta, p.C, p.ldc, s); \
  }
#define MEMHIER_WS(fn, ...) MEMHIER_HOPPER_LAUNCH(fn)
#include "ws_configs.inc"
#define MEMHIER_SWAP_AB(fn, ...) MEMHIER_HOPPER_LAUNCH(fn)
#include "swap_configs.inc"
#undef MEMHIER_HOPPER_LAUNCH

// Operands TMA cannot describe (row pitch not a multiple of 16 bytes, a base off 16 bytes)
// or reads slowly (pitch not a multiple of 128 bytes: on the H100, ws_c1_s4_128x256 at
// 4096x4104x4096 ran at 0.56x cuBLAS against 0.79x at 4096x4160x4096, the same tile count),
// re-pitched into staging copies per (device, stream) with rows padded to 64 elements (128
// bytes): the copies are timed with the GEMM (TMA zero-fills past k and n). An operand already
// in that form is read in place.
using Staging = gemm::detail::Staging<__nv_bfloat16>;

constexpr int kStagedRow = 64;  // elements: 128 bytes, one 128-byte swizzle row

int round_row(int x) {
  return (x + kStagedRow - 1) / kStagedRow * kStagedRow;
}

/// Whether TMA reads rows of `ld` elements from `base` at full speed as they are.
bool tma_fast(const __nv_bfloat16* base, int ld) {
  return ld % kStagedRow == 0 && reinterpret_cast<std::uintptr_t>(base) % 128 == 0;
}

/// The staging copies of `p`'s operands that TMA cannot read as they are, grown to fit; null
/// when both are read in place. What the launch copies into and prepare() makes ahead.
Staging* staging_of(const Params& p, cudaStream_t s) {
  const bool copy_a = !tma_fast(p.A, p.lda), copy_b = !tma_fast(p.B, p.ldb);
  if (!copy_a && !copy_b) return nullptr;
  return &gemm::detail::staging_for<__nv_bfloat16>(
      copy_a ? static_cast<std::size_t>(p.m) * round_row(p.k) : 0,
      copy_b ? static_cast<std::size_t>(p.k) * round_row(p.n) : 0, s, "wgmma_staged");
}

/// Launcher::prepare: the staging made ahead (where none is needed the launch declines).
void prepare_wgmma_staged(const Params& p, cudaStream_t s) {
  staging_of(p, s);
}

/// The staged rungs: the copies, then `Inner` (a warp-specialized entry point, `inner` its name)
/// on them.
using HopperGemm = void (*)(int, int, int, float, const __nv_bfloat16*, int, const __nv_bfloat16*,
                            int, float, const hopper::COut&, int, cudaStream_t);

template <HopperGemm Inner>
void launch_staged(const Params& p, cudaStream_t s, const char* inner) {
  // Everything but the operands' layout must already suit the kernel (shape, card, C).
  const int lda_st = round_row(p.k), ldb_st = round_row(p.n);
  const std::string why = hopper::hopper_gemm_unsupported(p.m, p.n, p.k, lda_st, ldb_st, p.ldc);
  if (!why.empty()) throw std::invalid_argument(why);
  Staging* const staged = staging_of(p, s);
  // Nothing to stage: the rung would be its inner kernel again (and best would time it twice).
  if (!staged)
    throw std::invalid_argument(
        std::string("A and B already have 128-byte rows and bases (leading dimensions multiples "
                    "of 64): ") +
        inner + " runs them in place");
  Staging& st = *staged;
  const bool copy_a = !tma_fast(p.A, p.lda), copy_b = !tma_fast(p.B, p.ldb);
  gemm::detail::Repitch ra, rb;  // a bf16 is one unit of the copy
  if (copy_a) ra = {p.A, st.a.data(), p.m, p.k, p.lda, lda_st};
  if (copy_b) rb = {p.B, st.b.data(), p.k, p.n, p.ldb, ldb_st};
  gemm::detail::launch_repitch(ra, rb, s);
  Inner(p.m, p.n, p.k, p.alpha, copy_a ? st.a.data() : p.A, copy_a ? lda_st : p.lda,
        copy_b ? st.b.data() : p.B, copy_b ? ldb_st : p.ldb, p.beta, p.C, p.ldc, s);
}

void launch_wgmma_staged(const Params& p, cudaStream_t s) {
  launch_staged<hopper::ws_c1_s4_128x256>(p, s, "ws_c1_s4_128x256");
}

void launch_wgmma_staged_tailsplit(const Params& p, cudaStream_t s) {
  launch_staged<hopper::ws_tailsplit_128x256>(p, s, "ws_tailsplit_128x256");
}

/// The table launcher of a Hopper kernel with a tile_m x tile_n tile (128 rows for all but
/// the skinny ones: two consumer warpgroups of 64 rows).
Launcher from(void (*launch)(const Params&, cudaStream_t), const void* (*symbol)(),
              const hopper::HopperKernelInfo& info, int tile_n, int tile_m = 128) {
  Launcher l;
  l.launch = launch;
  l.symbol = symbol;
  l.block_threads = info.block_threads;
  l.dynamic_smem = info.dynamic_smem;
  l.tile_m = tile_m;
  l.tile_n = tile_n;
  l.cluster_m = info.cluster_size;
  l.split_k = info.split_k;
  l.split_rounds = info.split_rounds;
  return l;
}

constexpr int kWideTile = 256;  // rung 6's and ws_c1_s4_128x256's (wgmma m64n256k16)

/// The table launcher of a staged rung: its inner kernel's record (Info), the staging made
/// ahead by prepare.
template <hopper::HopperKernelInfo (*Info)()>
Launcher staged_launcher(void (*launch)(const Params&, cudaStream_t)) {
  Launcher l = from(launch, [] { return Info().symbol; }, Info(), kWideTile);
  l.prepare = prepare_wgmma_staged;
  return l;
}

}  // namespace

Launcher wgmma_tma_launcher() {
  return from(
      launch_wgmma_tma, [] { return hopper::wgmma_tma_info().symbol; }, hopper::wgmma_tma_info(),
      kWideTile);
}

// The table launchers of rung 7, the ws_* and the swapab_* candidates (ws_configs.inc,
// swap_configs.inc).
#define MEMHIER_HOPPER_LAUNCHER(fn, BM, BN)                                                   \
  Launcher fn##_launcher() {                                                                  \
    return from(                                                                              \
        launch_##fn, [] { return hopper::fn##_info().symbol; }, hopper::fn##_info(), BN, BM); \
  }
#define MEMHIER_WS(fn, BN, ...) MEMHIER_HOPPER_LAUNCHER(fn, 128, BN)
#include "ws_configs.inc"
#define MEMHIER_SWAP_AB(fn, MS, Cols, ...) MEMHIER_HOPPER_LAUNCHER(fn, MS, Cols)
#include "swap_configs.inc"
#undef MEMHIER_HOPPER_LAUNCHER

Launcher wgmma_staged_launcher() {
  return staged_launcher<hopper::ws_c1_s4_128x256_info>(launch_wgmma_staged);
}

Launcher wgmma_staged_tailsplit_launcher() {
  return staged_launcher<hopper::ws_tailsplit_128x256_info>(launch_wgmma_staged_tailsplit);
}

}  // namespace memhier::gemm_bf16::detail
