// best's ragged-edge candidates of the SGEMM ladder (cfg_edges_128x256x8_8x16, staged_edges):
// C's whole 128x256 tiles, its last rows and its last columns each through the kernel that
// suits them. Host code: the kernels are other rungs' launchers, called on sub-matrices (each
// part reads and writes only its own C).
#include <stdexcept>
#include <string>

#include "memhier/kernels/gemm_preselect.hpp"
#include "variants.hpp"

namespace memhier::gemm::detail {
namespace {

constexpr int kTileM = 128, kTileN = 256;
constexpr const char* kName = "cfg_edges_128x256x8_8x16";

/// The part of `p` from (row, col) on, rows x cols of it. Offsets of whole tiles keep each
/// base's 16-byte alignment, so the vec_* flags carry over.
Params part(const Params& p, int row, int col, int rows, int cols) {
  Params q = p;
  q.m = rows;
  q.n = cols;
  q.A = p.A + static_cast<std::size_t>(row) * static_cast<std::size_t>(p.lda);
  q.B = p.B + col;
  q.C = p.C + static_cast<std::size_t>(row) * static_cast<std::size_t>(p.ldc) + col;
  return q;
}

/// `first` on the part, or `fallback` where `first` declines it (before launching anything).
void run_part(Launcher (*first)(), Launcher (*fallback)(), const Params& q, cudaStream_t s) {
  try {
    first().launch(q, s);
  } catch (const std::invalid_argument&) {
    fallback().launch(q, s);
  }
}

void launch_edges(const Params& p, cudaStream_t s) {
  edges_check(kName, p, "cfg_128x256x8_8x16");
  const int m_main = p.m / kTileM * kTileM, n_main = p.n / kTileN * kTileN;
  const int m_rest = p.m - m_main, n_rest = p.n - n_main;
  // The whole tiles, their last wave split where that pays.
  run_part(cfg_tailsplit_128x256x8_8x16_launcher, cfg_128x256x8_8x16_launcher,
           part(p, 0, 0, m_main, n_main), s);
  // The last columns beside them: K split over the idle SMs where the tiles leave them idle.
  if (n_rest > 0)
    run_part(cfg_sk_128x128x16_8x8_launcher, cfg_128x64x16_8x4_launcher,
             part(p, 0, n_main, m_main, n_rest), s);
  // The last rows, all columns: the skinny tile of their count, split where that pays.
  if (m_rest > 0) {
    const Params q = part(p, m_main, 0, m_rest, p.n);
    if (m_rest <= 16)
      run_part(cfg_sk_16x128x32_4x4_launcher, cfg_16x128x32_4x4_launcher, q, s);
    else if (m_rest <= 32)
      run_part(cfg_sk_32x128x16_8x4_launcher, cfg_32x128x16_8x4_launcher, q, s);
    else if (m_rest <= 64)
      run_part(cfg_sk_64x128x16_8x8_launcher, cfg_64x64x16_8x4_launcher, q, s);
    else
      run_part(cfg_sk_128x128x16_8x8_launcher, cfg_128x64x16_8x4_launcher, q, s);
  }
}

}  // namespace

void edges_check(const char* name, const Params& p, const char* whole) {
  const std::string why = tuning::edges_decline(name, p.m, p.n, kTileM, kTileN, whole);
  if (!why.empty()) throw std::invalid_argument(why);
}

Launcher cfg_edges_128x256x8_8x16_launcher() {
  Launcher l = cfg_128x256x8_8x16_launcher();
  l.launch = launch_edges;
  l.trims_edges = true;
  return l;
}

}  // namespace memhier::gemm::detail
