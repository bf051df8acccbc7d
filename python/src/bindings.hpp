// The pieces of the extension module memhier._ext, one function per file that adds them.
#pragma once

#include <nanobind/nanobind.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace memhier::python {

/// DLPack capsule reading and the kernel entry points over raw device pointers.
void bind_kernels(nanobind::module_& m);

/// The CPU models (analyze shared/global, occupancy) and the claims catalogue.
void bind_models(nanobind::module_& m);

/// The fast path for PyTorch tensors: the common call decided and launched in C++.
void bind_fast(nanobind::module_& m);

/// probe, bench and report: the run library in this process, their records as JSON text.
void bind_records(nanobind::module_& m);

// The launches over raw pointers (kernels.cpp): variant by name, on `device`, GIL released.
// Addresses and streams are integers (a stream 1 is the legacy default stream).
/// Row softmax of rows x cols float32.
void softmax_call(const std::string& variant, std::uintptr_t in, std::uintptr_t out, int rows,
                  int cols, int device, std::uintptr_t stream);
/// Transpose of rows x cols float32 into cols x rows.
void transpose_call(const std::string& variant, std::uintptr_t in, std::uintptr_t out,
                    std::int64_t rows, std::int64_t cols, int device, std::uintptr_t stream);
/// Sum or max (op) of n float32 into the float32 at out (a workspace per device and stream).
void reduce_call(const std::string& variant, const std::string& op, std::uintptr_t in,
                 std::size_t n, std::uintptr_t out, int device, std::uintptr_t stream);
/// 256 uint32 bins of n uint8 (bits 8) or int32 (bits 32) values.
void histogram_call(const std::string& variant, std::uintptr_t in, std::size_t n, int bits,
                    std::uintptr_t bins, int device, std::uintptr_t stream);
/// y = a x + y over n float32.
void axpy_call(const std::string& variant, float a, std::uintptr_t x, std::uintptr_t y,
               std::size_t n, int device, std::uintptr_t stream);

}  // namespace memhier::python
