// The GEMM families' part of the tuning cache's key (memhier/kernels/tuning_cache.hpp): the
// exact problem, extents, leading dimensions and the bases' alignment. Host-only (no CUDA).
#pragma once

#include <string>

#include "memhier/kernels/tuning_cache.hpp"

namespace memhier::gemm::tuning {

// The cache itself (Memo, key_prefix, read_entries, ...) is every tuned family's.
using namespace memhier::tuning;  // NOLINT(google-build-using-namespace)

/// What a tuned choice depends on in the problem: the extents, the leading dimensions in
/// elements and each base pointer's alignment class in bytes. Two shapes of one flops class
/// are two keys: a tile that suits one may leave the other's last wave half empty.
struct ShapeKey {
  int m = 0, n = 0, k = 0;
  int lda = 0, ldb = 0, ldc = 0;
  int align_a = 256, align_b = 256, align_c = 256;
  /// What the epilogue does beyond an fp32 store ("bf16", "bias", "bf16+bias"; "" for none).
  std::string epilogue;
};

/// A dense row-major problem from cudaMalloc'd bases: lda = k, ldb = ldc = n, 256-byte bases.
ShapeKey dense_shape(int m, int n, int k);

/// The key of a call: its extents, leading dimensions and the alignment classes of its bases.
ShapeKey call_shape(int m, int n, int k, const void* a, int lda, const void* b, int ldb,
                    const void* c, int ldc);

/// "MxNxK lda,ldb,ldc aA,B,C" (then " epi E" with an epilogue): the key's shape part, readable
/// in the cache file.
std::string shape_text(const ShapeKey& s);

/// The key of `family`'s choice for `shape` under `prefix` (key_prefix's).
std::string entry_key(const std::string& prefix, const std::string& family, const ShapeKey& shape);

}  // namespace memhier::gemm::tuning
