// The shape and pointer rules both GEMM entry points (sgemm, gemm_bf16) check before any CUDA
// call, one sentence per broken rule; each adds its own element alignment.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace memhier::gemm::detail {

/// Whether `ptr` is a multiple of `bytes`.
inline bool aligned(const void* ptr, std::uintptr_t bytes) {
  return reinterpret_cast<std::uintptr_t>(ptr) % bytes == 0;
}

/// Throws std::invalid_argument, the sentence prefixed by `me` ("sgemm: "), unless m, n and k
/// are positive, lda >= k, ldb >= n and ldc >= n (row-major) and no pointer is null.
inline void check_layout(const std::string& me, int m, int n, int k, int lda, int ldb, int ldc,
                         const void* A, const void* B, const void* C) {
  if (m <= 0 || n <= 0 || k <= 0)
    throw std::invalid_argument(me + "m, n and k must be positive (got m=" + std::to_string(m) +
                                ", n=" + std::to_string(n) + ", k=" + std::to_string(k) + ").");
  if (lda < k)
    throw std::invalid_argument(me + "lda (" + std::to_string(lda) + ") must be at least k (" +
                                std::to_string(k) + ") for row-major A.");
  if (ldb < n)
    throw std::invalid_argument(me + "ldb (" + std::to_string(ldb) + ") must be at least n (" +
                                std::to_string(n) + ") for row-major B.");
  if (ldc < n)
    throw std::invalid_argument(me + "ldc (" + std::to_string(ldc) + ") must be at least n (" +
                                std::to_string(n) + ") for row-major C.");
  if (!A || !B || !C)
    throw std::invalid_argument(me + "A, B and C must be device pointers, not null.");
}

}  // namespace memhier::gemm::detail
