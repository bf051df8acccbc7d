// The extra candidates `best` tunes among (with double_buffered and swizzled): a deeper
// k-tile (half the barriers per FMA), a 128 x 256 tile with 8 x 16 outputs per thread
// (6 LDS.128 per 128 FFMA), narrower tiles for shapes with too few 128 x 128 tiles to fill
// the SMs, 16- and 32-row tiles for skinny M, split-K tiles (split_k.cuh) for skinny M
// whose tiles leave the card idle, a tail split (tail_split.cuh) for shapes whose last wave
// is part full, and a 4-stage cp.async pipeline in 64 KiB of dynamic shared memory (above the
// 48 KiB default: cudaFuncSetAttribute). All but the 16-row tile (padded: the swizzle works in
// 32-row groups) use the swizzled A tile.
//
// Skinny tiles: rows follow M (16, 32, 64, 128) so few FMAs are wasted; 128 columns keep each
// B row read in 512-byte runs. At M = 16 the GEMM streams B (bandwidth-bound): 16 x 128 with
// BK = 32 stages 18 KiB a block per k-tile in 128 threads of 4 x 4, and the blocks an SM holds
// keep 54-72 KiB of loads in flight, past what the memory's latency needs. From M = 32 FMAs
// matter: 8 x 4 and 8 x 8 per thread read one LDS.128 of A and of B per 32 or 64 FMAs.
#include "cp_async.cuh"
#include "double_buffered.cuh"
#include "split_k.cuh"
#include "tail_split.cuh"

namespace memhier::gemm::detail {
namespace {

using T128x128x16 = BlockTile<128, 128, 16, 2, 2, true>;  // 8 x 8 per thread, 256 threads
using T128x256x8 = BlockTile<128, 256, 8, 2, 4, true>;    // 8 x 16 per thread, 256 threads
using T128x64x16 = BlockTile<128, 64, 16, 2, 1, true>;    // 8 x 4 per thread, 256 threads
using T64x64x16 = BlockTile<64, 64, 16, 1, 1, true>;      // 4 x 4 per thread, 256 threads
using T64x64x16w = BlockTile<64, 64, 16, 2, 1, true>;     // 8 x 4 per thread, 128 threads
using T16x128x32 = BlockTile<16, 128, 32, 1, 1, false>;   // 4 x 4 per thread, 128 threads
using T32x128x16 = BlockTile<32, 128, 16, 2, 1, true>;    // 8 x 4 per thread, 128 threads
using T64x128x16 = BlockTile<64, 128, 16, 2, 2, true>;    // 8 x 8 per thread, 128 threads

template <class T, int MIN_BLOCKS>
void launch_db(const Params& p, cudaStream_t s) {
  launch_double_buffered<T, MIN_BLOCKS>(p, s, "best candidate");
}
template <class T, int MIN_BLOCKS>
Launcher make_db() {
  return double_buffered_launcher_for<T, MIN_BLOCKS>(launch_db<T, MIN_BLOCKS>);
}

template <class T, int MIN_BLOCKS>
void launch_sk(const Params& p, cudaStream_t s) {
  launch_split_k<T, MIN_BLOCKS>(p, s, "split-K candidate");
}
template <class T, int MIN_BLOCKS>
Launcher make_sk() {
  return split_k_launcher_for<T, MIN_BLOCKS>(launch_sk<T, MIN_BLOCKS>);
}

void launch_tail(const Params& p, cudaStream_t s) {
  launch_tail_split<T128x256x8, 1>(p, s, "tail-split candidate");
}

constexpr int kCp4Stages = 4;
void launch_cp4(const Params& p, cudaStream_t s) {
  launch_cp_async<T128x128x16, kCp4Stages, 2>(p, s, "cfg_cp4_128x128x16_8x8");
}

}  // namespace

// MIN_BLOCKS: the register budget (65536 / (threads * MIN_BLOCKS), at most 255).
Launcher cfg_128x128x16_8x8_launcher() {
  return make_db<T128x128x16, 1>();
}
Launcher cfg_128x256x8_8x16_launcher() {
  return make_db<T128x256x8, 1>();
}
Launcher cfg_128x64x16_8x4_launcher() {
  return make_db<T128x64x16, 2>();
}
Launcher cfg_64x64x16_4x4_launcher() {
  return make_db<T64x64x16, 3>();
}
Launcher cfg_64x64x16_8x4_launcher() {
  return make_db<T64x64x16w, 4>();
}
// Skinny M too wide to split (16x128x32 unsplit spills under 128 registers: three blocks).
Launcher cfg_16x128x32_4x4_launcher() {
  return make_db<T16x128x32, 3>();
}
Launcher cfg_32x128x16_8x4_launcher() {
  return make_db<T32x128x16, 4>();
}
Launcher cfg_cp4_128x128x16_8x8_launcher() {
  return cp_async_launcher_for<T128x128x16, kCp4Stages, 2>(launch_cp4);
}

// Split K (16x128x32 split fits 128 registers: four blocks).
Launcher cfg_sk_16x128x32_4x4_launcher() {
  return make_sk<T16x128x32, 4>();
}
Launcher cfg_sk_32x128x16_8x4_launcher() {
  return make_sk<T32x128x16, 4>();
}
Launcher cfg_sk_64x128x16_8x8_launcher() {
  return make_sk<T64x128x16, 3>();
}
Launcher cfg_sk_128x128x16_8x8_launcher() {
  return make_sk<T128x128x16, 1>();
}
Launcher cfg_sk_128x256x8_8x16_launcher() {
  return make_sk<T128x256x8, 1>();
}

// The last wave split, on the tile with the most FMAs per shared load.
Launcher cfg_tailsplit_128x256x8_8x16_launcher() {
  return tail_split_launcher_for<T128x256x8, 1>(launch_tail);
}

}  // namespace memhier::gemm::detail
