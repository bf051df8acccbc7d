// Rung 7, single pass ("last block finishes", the CUDA guide's threadFenceReduction):
// the loads of rung 6, then each block stores its partial, __threadfence(), and takes
// a ticket with atomicInc; the block holding the last ticket reduces the partials and
// resets the counter. No second launch, which is most of the time at a few MB.
#include "grid_stride.cuh"

namespace memhier::reduction::detail {
namespace {

constexpr int kBlock = 256;
constexpr int kUnroll = 4;

}  // namespace

GridConfig single_pass_config() {
  return {kBlock, kUnroll,
          reinterpret_cast<const void*>(single_pass_kernel<SumOp, kBlock, kUnroll, Load::ldg, Ticket::fences>)};
}

void launch_single_pass(const Launch& l) {
  launch_single_pass_config<kBlock, kUnroll, Load::ldg, Ticket::fences>(l);
}

}  // namespace memhier::reduction::detail
