// The staging copy of both GEMM ladders' staged candidates (repitch.cu): an operand whose rows
// are misaligned or pitched so that the fast kernel cannot read them, or reads them slowly,
// copied into padded rows first. The copy moves 2-byte units: a bf16 is one, a float two.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "memhier/core/per_stream.hpp"

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

/// A staged candidate's copies of A and B, kept per (device, stream) so that a tuned launch
/// allocates nothing.
template <typename T>
struct Staging {
  core::Scratch<T> a, b;
};

/// The current device's staging on `stream`, grown to at least `a_elems` and `b_elems`
/// elements; `what` names the candidate in the sentence a capture that would grow it gets.
template <typename T>
Staging<T>& staging_for(std::size_t a_elems, std::size_t b_elems, cudaStream_t stream,
                        const char* what) {
  static core::PerStream<Staging<T>> all;
  return all.with(stream, [&](Staging<T>& st) -> Staging<T>& {
    st.a.reserve(a_elems, stream, what);
    st.b.reserve(b_elems, stream, what);
    return st;
  });
}

}  // namespace memhier::gemm::detail
