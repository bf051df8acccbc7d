// Private to the attention ladder: cuDNN's fused attention (the frontend's SDPA graph) as the
// family's vendor line, built once per shape and then only executed. Host-only: the frontend's
// headers stay inside cudnn_sdpa.cpp, so the Case and the rest of the ladder build without them.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "memhier/kernels/attention.hpp"

namespace memhier::attention::detail {

/// cuDNN's SDPA forward at one shape, on Q, K, V and O in the ladder's [batch, seq, heads,
/// head_dim] layout, bf16 in and out, fp32 softmax, causal aligned to the bottom-right.
class CudnnSdpa {
 public:
  /// What the bench names the line.
  static constexpr const char* kName = "cuDNN SDPA (frontend graph)";

  /// Builds the graph and its plan on the current device. Never throws: what prevents the
  /// line (not built in, library missing, shape unsupported) is kept as a sentence.
  explicit CudnnSdpa(const Shape& s);
  ~CudnnSdpa();
  CudnnSdpa(const CudnnSdpa&) = delete;
  CudnnSdpa& operator=(const CudnnSdpa&) = delete;

  /// Empty when the graph is built; otherwise one sentence saying why cuDNN does not run here.
  const std::string& unavailable() const { return why_; }

  /// Runs the built plan on `stream`; throws std::invalid_argument(unavailable()) when there is
  /// none, and a CUDA or cuDNN failure as std::runtime_error.
  void run(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
           cudaStream_t stream);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string why_;
};

}  // namespace memhier::attention::detail
