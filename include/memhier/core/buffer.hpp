// DeviceBuffer<T>: RAII over cudaMalloc (never managed memory).
#pragma once

#include <cstddef>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "memhier/core/check.hpp"

namespace memhier::core {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(T))
      throw CudaError(cudaErrorMemoryAllocation, "buffer size overflows size_t",
                      std::numeric_limits<std::size_t>::max());
    if (count) MEMHIER_CUDA_ALLOC(cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes()), bytes());
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void upload(const std::vector<T>& host) {
    if (host.size() != count_) throw CudaError(cudaErrorInvalidValue, "upload: size mismatch");
    MEMHIER_CUDA(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_) MEMHIER_CUDA(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  /// Fills every byte with 0xFF: for floats and doubles, a NaN that a kernel must overwrite.
  void poison(cudaStream_t stream = nullptr) {
    if (count_) MEMHIER_CUDA(cudaMemsetAsync(ptr_, 0xFF, bytes(), stream));
  }

 private:
  void release() noexcept {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace memhier::core
