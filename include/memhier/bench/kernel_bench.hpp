// The bench's walk over the registry's ladders: verify every variant, time it paired with
// the memcpy ceiling and the vendor baseline (their repetitions alternating), and lay out
// the records.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "memhier/model/arch.hpp"
#include "memhier/registry/registry.hpp"
#include "memhier/report/document.hpp"

namespace memhier::bench {

/// Where run_family stopped: the rest starts at `shape` ("" after the family's last) and
/// `variant` ("" with the shape's ceilings); `faulty` is the row of the item that lost the
/// GPU (npos: none of the family's rows).
struct Stop {
  bool stopped = false;
  std::string shape, variant;
  std::size_t faulty = static_cast<std::size_t>(-1);
};

/// What `memhier bench` runs of one family: variants, shapes, mode and input seed.
struct BenchOptions {
  std::vector<std::string> variants;  ///< empty = all (baseline included)
  std::vector<std::string> shapes;    ///< empty = bench_shapes (quick_shapes with quick)
  bool quick = false;
  std::uint32_t seed = 0x5eed;
  /// Also time PyTorch's call at each shape (a subprocess; see torch_reference.hpp).
  bool torch_reference = true;
  std::string torch_python;  ///< its interpreter; "" for $MEMHIER_PYTHON or python3
  std::function<void(const std::string&)> progress = [](const std::string&) {};
  /// Where a run of one family resumes (a child process measuring what a GPU lost to its
  /// parent left): shapes before from_shape are skipped; at from_shape, with from_variant,
  /// the ceilings are timed again for pairing but their rows not repeated, and the variants
  /// before from_variant are skipped. "" from the first.
  std::string from_shape, from_variant;
  /// Where the run stopped because the GPU was lost to this process; with it set, run_family
  /// stops there instead of giving every later row the lost GPU's sentence.
  Stop* stop = nullptr;
};

/// Verifies and times the variants of `family` at each shape. The ceilings (cudaMemcpy D2D,
/// read-only, write-only) and the vendor baseline come first at each shape, timed paired
/// with one another; each variant is then timed paired with memcpy, the vendor and (for a
/// read-dominated family) the read-only ceiling, running last in each round so that its
/// outputs are those of its last timed repetition. A variant that declines a shape keeps
/// its reason in `declined`; one that fails (out of GPU memory, a CUDA error) keeps it in
/// `not_measured`, and the device is reset where the failure broke the context
/// (bench/guard.hpp); so does a family's own shape that does not fit the free memory.
/// Throws std::invalid_argument for an unknown variant or a bad shape in opt.shapes.
std::vector<registry::BenchRecord> run_family(const registry::Family& family,
                                              const BenchOptions& opt);

/// With opt.torch_reference: one PyTorch subprocess for every family and shape in `records`
/// (one list per family), its rows added to each family's list. Returns why it did not run
/// (one sentence, no rows added), or "" when it ran or was not asked for.
std::string add_torch_reference(std::vector<std::vector<registry::BenchRecord>>& records,
                                const BenchOptions& opt);

/// run_family for each of `families` in order, then add_torch_reference (why it did not run
/// in `torch_not_run`, where given). Returns one record list per family.
std::vector<std::vector<registry::BenchRecord>> run_families(
    const std::vector<const registry::Family*>& families, const BenchOptions& opt,
    std::string* torch_not_run = nullptr);

/// After `run` was timed on `c`: verifies the output its last repetition left (for an
/// in_place() case, of one more run after poison(), since repeated runs compound) and marks
/// `r` unverified, with a note, when it fails.
void verify_last_repetition(registry::Case& c, const std::function<void(cudaStream_t)>& run,
                            registry::BenchRecord* r);

/// The family's table (one row per record) and bar chart (GB/s or GFLOP/s per variant).
report::Section family_section(const registry::Family& family,
                               const std::vector<registry::BenchRecord>& records);

/// Verifies every variant on the family's test shapes; returns one line per failure. A
/// variant may decline a shape (std::invalid_argument) but must run one of them, unless it
/// declines them all for one reason (an architecture it needs).
std::vector<std::string> verify_family(const registry::Family& family, std::uint32_t seed);

}  // namespace memhier::bench
