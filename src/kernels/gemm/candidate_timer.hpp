// The timing loop both GEMM tuners share (gemm/tuner.cpp, gemm_bf16/tuner.cpp): each
// candidate runs once to warm up, then 3 to 50 times (about 5 ms in all) into a scratch C
// the tuner's caller never sees, and the fastest minimum wins.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace memhier::gemm::detail {

/// Times `launches[i](scratch, stream)` for every i, the scratch being `scratch_bytes` of
/// device memory allocated here. Returns the index of the fastest, or -1 when none ran or no
/// scratch memory could be had (not sticky: the caller falls back). A candidate that throws
/// std::invalid_argument (it cannot run this shape or device), or whose launch the device
/// refuses without a sticky error, is skipped. `times`, when given, gets each candidate's
/// minimum in ms (-1 for one skipped).
int fastest_candidate(std::size_t scratch_bytes,
                      const std::vector<std::function<void(void*, cudaStream_t)>>& launches,
                      cudaStream_t stream, std::vector<double>* times = nullptr);

}  // namespace memhier::gemm::detail
