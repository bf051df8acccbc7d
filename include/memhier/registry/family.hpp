// A kernel ladder as the registry holds it: each family lists its variants once, with a
// Case that owns inputs, the float64 reference and the vendor baseline at one shape.
// Kernels fill these; `memhier bench`, the GPU tests, the claims and the report walk them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "memhier/core/check.hpp"
#include "memhier/core/device.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/model/access.hpp"
#include "memhier/model/replay.hpp"
#include "memhier/registry/record.hpp"

namespace memhier::registry {

/// A numeric claim from the source texts that a variant or probe tests.
struct Claim {
  std::string source;  ///< source text and section, e.g. "002 §Bank conflict degree by stride"
  std::string text;
};

/// The fewest bytes a correct kernel must move through device memory (each input
/// read once, each output written once) and the flops it must do, at one shape.
struct Work {
  double bytes = 0;
  double flops = 0;
};

/// One rung of a family's ladder.
/// What a variant is to the family's library function.
enum class Role {
  api,        ///< a kernel of the family's function (`--variant`, the library, Python)
  reference,  ///< a line the bench times beside the rungs (cuBLAS in TF32)
  lesson,     ///< a bench-only demonstration with its own inputs (a misaligned base, AoS)
};

struct Variant {
  std::string name;              ///< "padded_tile" (what --variant takes)
  int rung = 0;                  ///< 1 = the naive rung; "best" comes last
  std::string technique;         ///< one line: what it does and why it helps
  Claim claim;                   ///< the source text's claim for this technique, if any
  const void* symbol = nullptr;  ///< the main __global__ kernel (cudaFuncGetAttributes)
  int block_threads = 0;         ///< its launch block size (occupancy); 0 if it varies
  int dynamic_smem = 0;          ///< its dynamic shared memory per block, bytes
  /// The model's prediction of what Nsight Compute counts for this variant's kernels
  /// at `shape` (same index math as the kernel); empty when the variant has no model.
  /// Throws std::invalid_argument for a shape it cannot parse.
  std::function<model::AccessCounts(const std::string& shape)> predict;
  /// The kernel's global address stream at `shape` for the memory-system model (`memhier
  /// simulate`): its launch, then each warp's global instructions block by block in launch
  /// order, from the same replay as `predict`. Empty when the variant has no stream model.
  /// Throws std::invalid_argument for a shape it cannot parse.
  std::function<void(const std::string& shape, model::AccessSink& sink)> stream;
  /// The launch's own cap on resident blocks per SM (0: as many as fit), so that the
  /// blocks/SM and occupancy columns say what runs, not only what would fit.
  int max_blocks_per_sm = 0;
  /// For a variant that dispatches on shape (`best`): the name of the rung it runs at
  /// `shape` on the current device, so that the resource columns describe that rung's
  /// kernel. Unset when the variant's own symbol is what runs.
  std::function<std::string(const std::string& shape)> runs;
  /// Whether the family's library function runs this variant; the Python package's
  /// variants() lists only Role::api.
  Role role = Role::api;
};

/// A variant from the fields every family fills; the prediction stays empty.
Variant make_variant(std::string name, int rung, std::string technique, Claim claim,
                     const void* symbol, int block_threads, int dynamic_smem = 0);

/// One problem instance: device buffers, random inputs, the float64 reference and
/// the vendor baseline, at one shape. Every run writes the same output buffers.
class Case {
 public:
  virtual ~Case() = default;
  virtual std::string shape() const = 0;  ///< as the user wrote it, normalized: "8192x8192"
  virtual Work work() const = 0;          ///< the bytes and flops of this shape
  /// Runs `variant` (a name from the family's variants, or "best") on `stream`.
  /// Throws std::invalid_argument when the variant cannot run at this shape (say why).
  virtual void run(const std::string& variant, cudaStream_t stream) = 0;
  /// Fills every output with NaN so that an unwritten element fails verification.
  virtual void poison(cudaStream_t stream) = 0;
  /// The outputs a run writes, each with its float64 reference and per-element bound. The
  /// reference is computed on the device on the first call (inputs never change) and
  /// depends only on what the last run computed. Verification tests also write through
  /// these pointers to plant faults.
  virtual std::vector<core::OutputSpec> outputs() = 0;
  /// Every element of every output against its bound, one pass on the device (synchronizes).
  virtual core::ElementCheck verify() {
    MEMHIER_CUDA(cudaDeviceSynchronize());  // runs may be on any stream
    const std::vector<core::OutputSpec> specs = outputs();
    return core::check_outputs(specs);
  }
  /// Relative L2 error of the outputs against the float64 reference (synchronizes); NaN when
  /// any output is not finite (unwritten), infinity when any element is beyond its bound.
  virtual double error() { return core::gated_error(verify()); }
  /// Largest error() that passes (a relative L2 error; every element is held to its own
  /// bound besides).
  virtual double tolerance() const = 0;
  /// For tests of the device reference: the same references computed on the CPU, one per
  /// output in outputs() order. Small shapes only: throws std::invalid_argument when the
  /// CPU would take long.
  virtual std::vector<core::HostReference> cpu_reference() = 0;
  /// True when a run reads what it writes (y = a x + y, C = alpha A B + beta C, p += v dt):
  /// repeated runs compound, so only a run right after poison() matches the reference.
  virtual bool in_place() const { return false; }
  /// The vendor baseline's name ("cublasSgeam", "cub::DeviceReduce::Sum"); "" if none.
  virtual std::string baseline_name() const { return {}; }
  /// Runs the baseline into the same outputs (so error() checks it too).
  virtual void run_baseline(cudaStream_t /*stream*/) {}
};

/// A shape past one wave of tiles and the variants that must run it (Family::wave_cases).
struct WaveCase {
  std::string shape;
  std::vector<std::string> variants;
};

/// A ladder: its variants in rung order and how to build a Case for a shape.
struct Family {
  std::string name;                       ///< "transpose"
  std::string title;                      ///< "Matrix transpose, fp32"
  std::string story;                      ///< what the source texts claim for this ladder
  std::vector<Variant> variants;          ///< rung order; include "best" last
  std::vector<std::string> bench_shapes;  ///< the benchmark sizes ("8192x8192")
  std::vector<std::string> quick_shapes;  ///< --quick sizes
  std::vector<std::string> test_shapes;   ///< odd shapes every variant must get right
  /// Cases only the card can name, for variants that decline every shape under a wave of
  /// tiles (the tail splits): shapes a wave of tiles and a few more on this device, each with
  /// the variants that must run it there (none where they have no code for it); the
  /// sanitizer runs them beside the test shapes. Unset: none.
  std::function<std::vector<WaveCase>(const core::DeviceInfo&)> wave_cases;
  std::string profile_shape;  ///< `memhier profile` shape (odd, so edges count)
  /// Builds a case. Throws std::invalid_argument with one sentence for a malformed
  /// or overflowing shape. `seed` draws fresh random inputs.
  std::function<std::unique_ptr<Case>(const std::string& shape, std::uint32_t seed)> make_case;
  /// Parses `shape` as make_case does, touching no GPU and allocating nothing: throws
  /// std::invalid_argument with one sentence for a malformed or overflowing shape, so that
  /// commands refuse every bad shape before their first measurement.
  std::function<void(const std::string& shape)> check_shape;
  /// The claims this ladder tests and how its records judge them (none by default).
  LadderClaims claims;
  /// The problem reads nearly all of its bytes and writes next to nothing (a reduction, a
  /// histogram): its rungs are quoted against the read-only ceiling too.
  bool read_dominated = false;
  /// The number type its flops are quoted in (the peak its GFLOP/s are set against).
  model::NumberType number_type = model::NumberType::fp32;
  /// Compute-bound (a GEMM, attention) or memory-bound.
  Bound bound = Bound::memory;
  /// A dense matrix product: its fastest verified run is this card's measured FLOP peak for
  /// its number type (the roofline's roof); attention is compute-bound but sets no peak.
  bool sets_peak = false;
  /// Shapes users run (squares, LLM projections, skinny M, primes) at which `memhier bench
  /// FAMILY --sweep` times `best` against the vendor alone, so a regression at any shape
  /// shows; empty: the family has no sweep.
  std::vector<std::string> sweep_shapes;
  /// The shapes at which `memhier simulate` compares the memory-system model's traffic with
  /// the counters (the profile shape first, then one past the L2); empty: none.
  std::vector<std::string> comparison_shapes;
  /// The Python package's kernel function for this ladder ("reduce"); "" when it has none.
  std::string python_name;
  /// Decides `best`'s configuration at `shape` on the current device (inputs drawn here),
  /// from the tuning cache or by timing its candidates now (always with `retune`), and says
  /// what that cost: `memhier tune`. Unset for a family whose `best` is not tuned. Throws
  /// std::invalid_argument for a shape it cannot parse.
  std::function<TuneRecord(const std::string& shape, bool retune)> tune;
};

/// Throws std::invalid_argument (listing the known names) for a variant `family` lacks.
void check_variants(const Family& family, const std::vector<std::string>& variants);

/// Throws std::invalid_argument for the first of `shapes` that `family` cannot parse.
void check_shapes(const Family& family, const std::vector<std::string>& shapes);

/// Parses "4099x1031" or "268435456" into positive decimal extents (no sign, no leading
/// zero, within int64) whose product, checked for overflow, is at most `max_product`
/// (elements; infinity skips the product); throws std::invalid_argument with one sentence.
std::vector<std::int64_t> parse_shape(const std::string& shape, std::size_t expected_dims,
                                      const std::string& what, double max_product = 4.0e9);

}  // namespace memhier::registry
