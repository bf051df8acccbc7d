// Rungs 12-14, cp_async_{2,3,4}stage: the double-buffered tile (128 x 128 x 8, padded A)
// fed by cp.async instead of register prefetch: global -> shared without registers, and
// 1, 2 or 3 k-tiles in flight while one is computed.
#include "cp_async.cuh"

namespace memhier::gemm::detail {
namespace {

using Tile = BlockTile<128, 128, 8, 2, 2, /*SWZ=*/false>;
constexpr int kMinBlocks = 2;

template <int STAGES>
void launch(const Params& p, cudaStream_t s) {
  launch_cp_async<Tile, STAGES, kMinBlocks>(p, s, "cp_async");
}

template <int STAGES>
Launcher make() {
  return cp_async_launcher_for<Tile, STAGES, kMinBlocks>(launch<STAGES>);
}

}  // namespace

Launcher cp_async_2stage_launcher() {
  return make<2>();
}
Launcher cp_async_3stage_launcher() {
  return make<3>();
}
Launcher cp_async_4stage_launcher() {
  return make<4>();
}

}  // namespace memhier::gemm::detail
