// wgmma_staged's staging copy (repitch.cu): host declarations.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace memhier::gemm_bf16::detail {

/// One operand to re-pitch: rows x cols elements of `src` (leading dimension ld, any
/// alignment) into `dst` (leading dimension ld8, a multiple of 8, 16-byte aligned base;
/// wgmma_staged pads to 64). A null `dst` means nothing to copy.
struct Repitch {
  const __nv_bfloat16* src = nullptr;
  __nv_bfloat16* dst = nullptr;
  int rows = 0, cols = 0, ld = 0, ld8 = 0;
};

/// Both copies in one launch on `stream`; elements of a staging row past `cols` are left
/// unwritten except inside the last 16-byte chunk (zeros there).
void launch_repitch(const Repitch& a, const Repitch& b, cudaStream_t stream);

}  // namespace memhier::gemm_bf16::detail
