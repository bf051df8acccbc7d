// The one verification path: every output element against a float64 reference and its own
// bound, in one pass on the device; the relative L2 error rides along for the report.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace memhier::core {

/// The unit roundoff of fp32 (round to nearest): a correctly rounded result is within
/// kFp32Unit x |value| of the exact one.
constexpr double kFp32Unit = 1.0 / 16777216.0;  // 2^-24

/// The element type of an output array (bf16: the attention ladder's O).
enum class ElemType { f32, u32, bf16 };

/// One output array as verification sees it. Element i passes when
/// |out[i] - ref[i]| <= factor x (scale ? scale[i] : |ref[i]|); factor 0 asks for the exact
/// value. `data` is writable for the verification tests, which plant faults in it.
struct OutputSpec {
  std::string name;               ///< "C", "y", "bins": for messages
  void* data = nullptr;           ///< device pointer to the output
  std::size_t count = 0;          ///< elements
  std::size_t cols = 0;           ///< row length of a row-major 2-D output; 0: 1-D
  ElemType type = ElemType::f32;  ///< what `data` holds
  const double* ref = nullptr;    ///< device float64 reference, `count` elements
  const float* scale = nullptr;   ///< device per-element scale; nullptr: |ref[i]|
  double factor = 0;              ///< the bound's factor (a stated multiple of kFp32Unit)
};

/// A CPU float64 reference of one output (the small test shapes): the values and, where
/// the output's bound uses one, the per-element scale (else empty).
struct HostReference {
  std::vector<double> ref;
  std::vector<double> scale;
};

/// What one pass over the outputs found. Counts are exact integers.
struct ElementCheck {
  std::uint64_t checked = 0;      ///< elements compared
  std::uint64_t over = 0;         ///< finite elements beyond their bound
  std::uint64_t nonfinite = 0;    ///< NaN or infinite elements (unwritten: outputs are poisoned)
  double worst = 0;               ///< the largest |out - ref| / bound among finite elements
  std::uint64_t worst_index = 0;  ///< its element index
  std::size_t worst_output = 0;   ///< its output (index into the specs)
  double err2 = 0, ref2 = 0;      ///< sums of (out - ref)^2 and ref^2 over finite elements

  /// Elements that fail: over their bound or not finite.
  std::uint64_t bad() const { return over + nonfinite; }
  /// ||out - ref|| / ||ref|| (the absolute L2 error when ref is all zeros); NaN when any
  /// element is not finite.
  double rel_l2() const {
    if (nonfinite) return std::numeric_limits<double>::quiet_NaN();
    return ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  }
  /// Adds the result of another output (`output` is its index among the specs).
  void merge(const ElementCheck& o, std::size_t output);
};

/// Compares one output with its reference on the device in one grid-stride pass
/// (stream-ordered; synchronizes `stream`).
ElementCheck check_output(const OutputSpec& spec, cudaStream_t stream = nullptr);

/// check_output over every spec, merged.
ElementCheck check_outputs(const std::vector<OutputSpec>& specs, cudaStream_t stream = nullptr);

/// The number Case::error() returns: the relative L2 error when every element is within its
/// bound, infinity when one is not, NaN when one is not finite (so a failing element fails
/// any `error <= tolerance` test).
inline double gated_error(const ElementCheck& c) {
  if (c.nonfinite) return std::numeric_limits<double>::quiet_NaN();
  if (c.over) return std::numeric_limits<double>::infinity();
  return c.rel_l2();
}

/// One line for a failed check: "3 of 16777216 elements over their bound (worst 5.2x, at
/// C[1234]), 0 not finite".
std::string describe_failure(const ElementCheck& c, const std::vector<OutputSpec>& specs);

/// Throws std::invalid_argument with one sentence naming the bytes `what` needs and the
/// bytes free when the current device has less free memory than `bytes` (call it before
/// allocating).
void require_device_memory(double bytes, const std::string& what);

}  // namespace memhier::core
