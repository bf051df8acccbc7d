// Where the bf16 GEMM's C lands and what its epilogue adds: every rung writes
// C = alpha * acc + beta * C + bias[col] into fp32 or bf16 through this one type (output.cuh
// has the device side). Host and device.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace memhier::gemm_bf16::detail {

/// C as fp32 or bf16 (exactly one set) and the bias added to each column (n fp32 values), or
/// none. Converts from a plain fp32 C, the ladder's own problem.
struct COut {
  float* f32 = nullptr;
  __nv_bfloat16* bf16 = nullptr;
  const float* bias = nullptr;

  __host__ __device__ COut() {}
  __host__ __device__ COut(float* c, const float* b = nullptr) : f32(c), bias(b) {}  // NOLINT
  __host__ __device__ COut(__nv_bfloat16* c, const float* b = nullptr) : bf16(c), bias(b) {}

  __host__ __device__ const void* data() const {
    return bf16 ? static_cast<const void*>(bf16) : static_cast<const void*>(f32);
  }
  __host__ __device__ int elem_bytes() const { return bf16 ? 2 : 4; }
  /// Whether the epilogue is the plain fp32 store (no bias, no rounding).
  __host__ __device__ bool plain() const { return !bf16 && !bias; }
};

/// Whether column pairs (the first even) go in one access: ldc even and C's base aligned to two
/// elements.
inline bool pairs_fit(const COut& c, long long ldc) {
  return ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(c.data()) %
                                 (2u * static_cast<unsigned>(c.elem_bytes())) ==
                             0;
}

/// The same output moved to `scratch` (what the tuner times into): C's type and the bias kept.
inline void point_c_at(COut& c, void* scratch) {
  if (c.bf16)
    c.bf16 = static_cast<__nv_bfloat16*>(scratch);
  else
    c.f32 = static_cast<float*>(scratch);
}

/// The epilogue part of the tuning key: "" for the plain fp32 store.
inline const char* epilogue_text(const COut& c) {
  if (c.plain()) return "";
  if (!c.bias) return "bf16";
  return c.bf16 ? "bf16+bias" : "bias";
}

}  // namespace memhier::gemm_bf16::detail
