// The staging copy of both GEMM ladders' staged candidates (repitch.cu): an operand whose rows
// are misaligned or pitched so that the fast kernel cannot read them, or reads them slowly,
// copied into padded rows first. The copy moves 2-byte units: a bf16 is one, a float two.
#pragma once

#include <cuda_runtime_api.h>

namespace memhier::gemm::detail {

/// One operand to re-pitch: rows x cols units of `src` (leading dimension ld units, any
/// 2-byte alignment) into `dst` (leading dimension ld8 units, a multiple of 8: 16-byte rows,
/// 16-byte aligned base). A null `dst` means nothing to copy.
struct Repitch {
  const void* src = nullptr;
  void* dst = nullptr;
  int rows = 0, cols = 0, ld = 0, ld8 = 0;
};

/// Both copies in one launch on `stream`; units of a staging row past `cols` are left
/// unwritten except inside the last 16-byte chunk (zeros there).
void launch_repitch(const Repitch& a, const Repitch& b, cudaStream_t stream);

}  // namespace memhier::gemm::detail
