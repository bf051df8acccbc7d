// Checked CUDA calls: every runtime call and every launch goes through these, and
// a failure carries the call, the file and line, and the CUDA message.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace memhier::core {

/// A failed CUDA call; `code` lets a caller tell out-of-memory from a broken context.
struct CudaError : std::runtime_error {
  cudaError_t code;
  std::size_t bytes;  ///< the allocation's size when an allocation failed, else 0
  CudaError(cudaError_t c, const std::string& what, std::size_t b = 0)
      : std::runtime_error(what), code(c), bytes(b) {}
};

/// Throws CudaError when `err` is not cudaSuccess; `bytes` names a failed allocation's size.
inline void check_cuda(cudaError_t err, const char* call, const char* file, int line,
                       std::size_t bytes = 0) {
  if (err == cudaSuccess) return;
  throw CudaError(err,
                  std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                      cudaGetErrorString(err),
                  bytes);
}

}  // namespace memhier::core

#define MEMHIER_CUDA(call) ::memhier::core::check_cuda((call), #call, __FILE__, __LINE__)
/// An allocation of `bytes`: a failure carries the size, so a report can say how much.
#define MEMHIER_CUDA_ALLOC(call, bytes) \
  ::memhier::core::check_cuda((call), #call, __FILE__, __LINE__, (bytes))
/// After every <<<...>>>: launch-configuration errors surface here.
#define MEMHIER_CHECK_LAUNCH() \
  ::memhier::core::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
