// Checked CUDA calls: every runtime call and every launch goes through these, and
// a failure carries the call, the file and line, and the CUDA message.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace memhier::core {

/// A failed CUDA call.
struct CudaError : std::runtime_error {
  cudaError_t code;
  CudaError(cudaError_t c, const std::string& what) : std::runtime_error(what), code(c) {}
};

/// Throws CudaError when `err` is not cudaSuccess.
inline void check_cuda(cudaError_t err, const char* call, const char* file, int line) {
  if (err == cudaSuccess) return;
  throw CudaError(err, std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                           ": " + cudaGetErrorString(err));
}

}  // namespace memhier::core

#define MEMHIER_CUDA(call) ::memhier::core::check_cuda((call), #call, __FILE__, __LINE__)
/// After every <<<...>>>: launch-configuration errors surface here.
#define MEMHIER_CHECK_LAUNCH() \
  ::memhier::core::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
