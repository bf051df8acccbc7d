// The GEMM families' part of the tuning cache's key (memhier/kernels/gemm_tuning_cache.hpp).
#include <cstdint>
#include <cstdio>

#include "memhier/kernels/gemm_tuning_cache.hpp"

namespace memhier::gemm::tuning {

ShapeKey dense_shape(int m, int n, int k) {
  ShapeKey s;
  s.m = m;
  s.n = n;
  s.k = k;
  s.lda = k;
  s.ldb = n;
  s.ldc = n;
  return s;
}

ShapeKey call_shape(int m, int n, int k, const void* a, int lda, const void* b, int ldb,
                    const void* c, int ldc) {
  ShapeKey s = dense_shape(m, n, k);
  s.lda = lda;
  s.ldb = ldb;
  s.ldc = ldc;
  s.align_a = alignment_class(reinterpret_cast<std::uintptr_t>(a));
  s.align_b = alignment_class(reinterpret_cast<std::uintptr_t>(b));
  s.align_c = alignment_class(reinterpret_cast<std::uintptr_t>(c));
  return s;
}

std::string shape_text(const ShapeKey& s) {
  char text[160];
  std::snprintf(text, sizeof text, "%dx%dx%d ld %d,%d,%d a%d,%d,%d", s.m, s.n, s.k, s.lda, s.ldb,
                s.ldc, s.align_a, s.align_b, s.align_c);
  return s.epilogue.empty() ? std::string(text) : std::string(text) + " epi " + s.epilogue;
}

std::string entry_key(const std::string& prefix, const std::string& family, const ShapeKey& shape) {
  return memhier::tuning::entry_key(prefix, family, shape_text(shape));
}

}  // namespace memhier::gemm::tuning
