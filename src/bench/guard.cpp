#include "memhier/bench/guard.hpp"

#include <cuda_runtime_api.h>

#include <mutex>
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

// Set once a broken context could not be restored: why the GPU is lost to this process.
// CUDA then refuses every call until the process exits (on the lent H200, driver 580,
// cudaDeviceReset returned success and the next cudaSetDevice "all CUDA-capable devices are
// busy or unavailable"), so later items are not attempted and say this instead.
std::mutex lost_mutex;
std::string lost_why;

Failure lost_failure(const std::string& lost) {
  return {"the GPU was lost to this process earlier in the run (" + lost +
              "); run memhier again to measure this",
          false, true};
}

// Resets the current device so the next item gets a fresh context; false, with the CUDA
// error that refused the new context, when even that fails.
bool reset_device(std::string* refused) {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) dev = 0;
  cudaError_t e = cudaDeviceReset();
  if (e == cudaSuccess) {
    cudaGetLastError();
    e = cudaSetDevice(dev);
    if (e == cudaSuccess) e = cudaFree(nullptr);
  }
  if (e == cudaSuccess) return true;
  *refused = cudaGetErrorString(e);
  return false;
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

std::string gpu_lost() {
  const std::lock_guard<std::mutex> lock(lost_mutex);
  return lost_why;
}

Failure describe_failure(const std::exception& e) {
  if (const std::string lost = gpu_lost(); !lost.empty()) return lost_failure(lost);
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
    std::string refused;
    f.reset = reset_device(&refused);
    if (f.reset) {
      f.why += "; the CUDA context was broken, so the device was reset (cudaDeviceReset) and "
               "the run went on";
    } else {
      {
        const std::lock_guard<std::mutex> lock(lost_mutex);
        lost_why = f.why;
      }
      f.lost = true;
      f.why += "; the broken CUDA context cannot be restored in this process (after "
               "cudaDeviceReset the device refused a new context: " +
               refused + ")";
    }
  }
  return f;
}

bool guarded(const std::function<void()>& item, Failure* failure, WhenLost when_lost) {
  if (const std::string lost = gpu_lost(); !lost.empty() && when_lost == WhenLost::refuse) {
    *failure = lost_failure(lost);
    return false;
  }
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
