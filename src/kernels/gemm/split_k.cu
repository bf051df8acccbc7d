// The split-K candidates of `best` (split_k.cuh), for skinny M: at 16 x 8192 even 64 x 64
// tiles leave most SMs idle with K unsplit, and a 64-row tile wastes 3/4 of its FMAs. Rows
// per tile follow M (16, 32, 64, 128) so few FMAs are wasted; 128 columns keep each B row
// read in 512-byte runs and, with BK floats of A, put 8-18 KiB a block in flight per k-tile.
// At M = 16 the kernel streams B (bandwidth-bound): the 16 x 128 tile stages BK = 32 (18 KiB
// a k-tile) in 128 threads of 4 x 4, so the five blocks an SM holds keep about 90 KiB of
// loads in flight, past what the memory's latency needs. From M = 32 FMAs matter: 8 x 4 and
// 8 x 8 per thread read one LDS.128 of A and B per 32 or 64 FMAs.
#include <map>
#include <mutex>
#include <utility>

#include "split_k.cuh"

namespace memhier::gemm::detail {
namespace {

using T16x128x32 = BlockTile<16, 128, 32, 1, 1, false>;   // 4 x 4 per thread, 128 threads
using T32x128x16 = BlockTile<32, 128, 16, 2, 1, true>;    // 8 x 4 per thread, 128 threads
using T64x128x16 = BlockTile<64, 128, 16, 2, 2, true>;    // 8 x 8 per thread, 128 threads
using T128x128x16 = BlockTile<128, 128, 16, 2, 2, true>;  // 8 x 8 per thread, 256 threads

template <class T, int MIN_BLOCKS>
void launch(const Params& p, cudaStream_t s) {
  launch_split_k<T, MIN_BLOCKS>(p, s, "split-K candidate");
}
template <class T, int MIN_BLOCKS>
Launcher make() {
  return split_k_launcher_for<T, MIN_BLOCKS>(launch<T, MIN_BLOCKS>);
}

}  // namespace

long long resident_slots(const void* kernel, int threads) {
  static std::mutex mu;
  static std::map<std::pair<int, const void*>, long long> known;
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  const std::lock_guard<std::mutex> lock(mu);
  const auto at = known.find({dev, kernel});
  if (at != known.end()) return at->second;
  int sms = 0, blocks = 0;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0));
  return known[{dev, kernel}] = static_cast<long long>(sms) * blocks;
}

// MIN_BLOCKS: the register budget (65536 / (threads * MIN_BLOCKS), at most 255).
Launcher cfg_sk_16x128x32_4x4_launcher() {
  return make<T16x128x32, 4>();
}
Launcher cfg_sk_32x128x16_8x4_launcher() {
  return make<T32x128x16, 4>();
}
Launcher cfg_sk_64x128x16_8x8_launcher() {
  return make<T64x128x16, 3>();
}
Launcher cfg_sk_128x128x16_8x8_launcher() {
  return make<T128x128x16, 1>();
}

}  // namespace memhier::gemm::detail
