// Reduction of an fp32 array to one float (sum or max): the classic ladder from the
// divergent interleaved tree to a single-pass, vectorized, grid-stride kernel, behind
// one API. Host header: no kernel code.
//
// Workspace contract. Every variant takes a device workspace of at least
// reduce_workspace_bytes(v, n) bytes (block partials, and for the single-pass variants
// an arrival counter at offset 0). The workspace must be zero-filled once before its
// first use (cudaMemset(ws, 0, bytes)); every completed call leaves the counter at zero
// again (the last block resets it), so one workspace serves any number of calls in a
// row. reduce_workspace_bytes(v, n) is exact for that variant and n; a workspace of
// reduce_workspace_bytes_all(max_n) bytes serves every variant at every n <= max_n. One
// workspace must not be used by two calls in flight at once (two streams): give each
// stream its own. The Workspace class below allocates, sizes (for every variant) and
// zeroes one.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

namespace memhier::reduction {

/// The ladder, in rung order (reduction_rungs.inc); `best` runs the single-pass configuration
/// tuned for this card and n.
enum class Variant {
#define MEMHIER_CLASSIC_RUNG(name, ...) name,
#define MEMHIER_GRID_RUNG(name, ...) name,
#define MEMHIER_BEST(name, ...) name,
#include "memhier/kernels/reduction_rungs.inc"
};

/// Every variant, in rung order (best last).
inline constexpr Variant kAllVariants[] = {
#define MEMHIER_CLASSIC_RUNG(name, ...) Variant::name,
#define MEMHIER_GRID_RUNG(name, ...) Variant::name,
#define MEMHIER_BEST(name, ...) Variant::name,
#include "memhier/kernels/reduction_rungs.inc"
};

/// The reduction operator. max follows fmaxf: NaN inputs are skipped (sum propagates them).
enum class Op { sum, max };

/// The readable name of a variant ("warp_shuffle"): what `memhier bench --variant` takes.
const char* to_string(Variant v);

/// "sum" or "max".
const char* to_string(Op op);

/// Every variant in rung order, `best` last.
const std::vector<Variant>& all_variants();

/// The variant named `name`; throws std::invalid_argument naming the known ones.
Variant variant_from_string(const std::string& name);

/// The configuration `best` runs for n elements on the current device as far as the tuning
/// cache knows (per card and n; the file every tuned family shares): best_b512_v4x4 below
/// 2^21 elements (launch-bound) and at an n not yet tuned; never tunes.
Variant best_variant_for(std::size_t n);

/// Forgets the tuned choices held in memory (the cache file is read again at the next call).
void forget_tuning();

/// Workspace bytes `v` needs for n elements on the current device (never 0); for best, the
/// most any configuration it may run needs.
std::size_t reduce_workspace_bytes(Variant v, std::size_t n);

/// Workspace bytes enough for every variant at any size up to n, on the current device.
std::size_t reduce_workspace_bytes_all(std::size_t n);

/// Reduces the n floats at `in` (device) with `op` into the one float at `out` (device),
/// asynchronously on `s`. `in` needs only float alignment (4 bytes): vectorized variants
/// peel a scalar head up to the next 16-byte boundary. `workspace` (device, 4-byte
/// aligned, zeroed before first use: see the contract above) holds at least
/// reduce_workspace_bytes(v, n) bytes and must not overlap `in` or `out`. Throws
/// std::invalid_argument with one sentence for n == 0, null or misaligned pointers, a
/// workspace too small, or an n too large for the variant's grid; CudaError for CUDA
/// failures. The sum of an empty range is not defined here (n must be at least 1). The first
/// call of best at an n of 2^21 elements or more on a card decides its configuration by
/// timing the candidates on `in` and `workspace` on `s` (synchronizing it; within about 30 ms
/// of GPU time) unless the tuning cache knows n; while `s` is being captured it runs the
/// untuned one.
void reduce(Variant v, Op op, const float* in, std::size_t n, float* out, void* workspace,
            std::size_t workspace_bytes, cudaStream_t s = nullptr);

/// RAII device workspace for every variant at sizes up to max_n (current device),
/// zero-filled at construction as the contract requires.
class Workspace {
 public:
  /// Allocates reduce_workspace_bytes_all(max_n) bytes and zeroes them (synchronously).
  explicit Workspace(std::size_t max_n);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  Workspace(Workspace&& o) noexcept;
  Workspace& operator=(Workspace&& o) noexcept;

  void* data() const { return ptr_; }           ///< the device pointer
  std::size_t bytes() const { return bytes_; }  ///< its size
  std::size_t max_n() const { return max_n_; }  ///< the largest n it was sized for

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t max_n_ = 0;
};

/// reduce() with a Workspace (checked against n).
void reduce(Variant v, Op op, const float* in, std::size_t n, float* out, Workspace& ws,
            cudaStream_t s = nullptr);

}  // namespace memhier::reduction
