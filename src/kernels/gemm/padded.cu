// Rung 6, padded: the 32 x 32 tile with one column of padding ([32][33]), as the source texts
// write it. Padding changes a column access from stride 32 (one bank) to stride 33 (all
// banks); in this kernel every shared access is already a row or a broadcast, so the bank
// model predicts no change: this rung measures the source texts' claim rather than assumes it.
#include "smem_tile.cuh"

namespace memhier::gemm::detail {
namespace {

constexpr int kTile = 32, kPad = 1, kRows = 1;

void launch(const Params& p, cudaStream_t s) {
  launch_smem_tile<kTile, kPad, kRows>(p, s, "padded");
}

const void* symbol() {
  return reinterpret_cast<const void*>(smem_tile_kernel<kTile, kPad, kRows>);
}

}  // namespace

Launcher padded_launcher() {
  return {launch, symbol, kTile * kTile, 0};
}

}  // namespace memhier::gemm::detail
