#include "memhier/bench/guard.hpp"

#include <cuda_runtime_api.h>

#include <new>

#include "memhier/core/check.hpp"
#include "memhier/report/document.hpp"

namespace memhier::bench {
namespace {

// Errors after which the context refuses every call until cudaDeviceReset.
bool sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

// Whether the context still works: a non-sticky error is cleared by reading it once; a
// broken context keeps failing every synchronization.
bool context_broken() {
  cudaGetLastError();
  if (cudaDeviceSynchronize() == cudaSuccess) return false;
  cudaGetLastError();
  return cudaDeviceSynchronize() != cudaSuccess;
}

// Resets the current device so the next item gets a fresh context; false when even that
// fails (the next item then says why on its own).
bool reset_device() {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) dev = 0;
  if (cudaDeviceReset() != cudaSuccess) return false;
  cudaGetLastError();
  return cudaSetDevice(dev) == cudaSuccess && cudaFree(nullptr) == cudaSuccess;
}

std::string cuda_sentence(const core::CudaError& e) {
  if (e.code == cudaErrorMemoryAllocation) {
    std::string s = "out of GPU memory (another process may hold it)";
    if (e.bytes > 0)
      s += report::strf(" while allocating %.0f MiB", static_cast<double>(e.bytes) / 1048576.0);
    return s + "; free the GPU or run with --quick for smaller shapes";
  }
  if (e.code == cudaErrorDevicesUnavailable)
    return "the GPU is busy (exclusive-process mode, held by another process); wait for it";
  if (sticky(e.code))
    return std::string("a kernel faulted (") + cudaGetErrorString(e.code) +
           "); compute-sanitizer over 'memhier bench' locates the fault";
  return std::string("CUDA reported '") + cudaGetErrorString(e.code) + "' (" +
         cudaGetErrorName(e.code) + ")";
}

}  // namespace

Failure describe_failure(const std::exception& e) {
  Failure f;
  const auto* cuda = dynamic_cast<const core::CudaError*>(&e);
  if (cuda)
    f.why = cuda_sentence(*cuda);
  else if (dynamic_cast<const std::bad_alloc*>(&e))
    f.why = "out of host memory";
  else
    f.why = e.what();
  // Any failure may have left a fault behind it (a library call over a faulted kernel).
  if ((cuda && sticky(cuda->code)) || context_broken()) {
    f.reset = reset_device();
    f.why += f.reset ? "; the CUDA context was broken, so the device was reset "
                       "(cudaDeviceReset) and the run went on"
                     : "; the CUDA context is broken and the device could not be reset";
  }
  return f;
}

bool guarded(const std::function<void()>& item, Failure* failure) {
  try {
    item();
    return true;
  } catch (const std::exception& e) {
    *failure = describe_failure(e);
  } catch (...) {
    *failure = {"an unknown exception", false};
  }
  return false;
}

}  // namespace memhier::bench
