// The process Nsight Compute profiles for `memhier profile`: a library call that runs the
// planned items between cudaProfilerStart and cudaProfilerStop (each after a marker
// kernel), and the small `memhier-profile-target` executable around it, which hands its
// typed outcomes back to the parent in a JSON file, never through printed text.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace memhier::bench {

/// What the profiled process learned about one item that the parent cannot know.
struct ItemOutcome {
  std::size_t index = 0;  ///< the item's place in plan_profile's order
  std::string note;       ///< why it did not run or failed verification; empty when it did
  std::string runs;       ///< the rung a dispatching variant (a tuned best) ran; else empty
};

/// Runs the items plan_profile(target, variants, shape) plans, in that order, on the GPU,
/// appending to `outcomes` as it goes (so a failure part-way keeps what was learned).
/// Throws std::invalid_argument for bad names or shapes, core::CudaError for CUDA errors.
void execute_profile(const std::string& target, const std::vector<std::string>& variants,
                     const std::string& shape, std::vector<ItemOutcome>& outcomes);

/// Writes outcomes as JSON ({"outcomes": [{"index", "note", "runs"}...]}); throws
/// std::runtime_error when the file cannot be written.
void write_outcomes(const std::string& path, const std::vector<ItemOutcome>& outcomes);

/// Reads what write_outcomes wrote; empty when the file is missing or malformed (the
/// child died before writing: the items then carry no notes).
std::vector<ItemOutcome> read_outcomes(const std::string& path);

/// The arguments the parent passes: TARGET [--variant V]... [--size S] [--out FILE].
std::vector<std::string> profile_target_args(const std::string& target,
                                             const std::vector<std::string>& variants,
                                             const std::string& shape, const std::string& out_file);

/// main() of memhier-profile-target: parses those arguments, runs execute_profile and
/// writes the outcomes to --out. Returns 0, 2 for bad arguments, 1 for a failed run
/// (one sentence on stderr).
int profile_target_main(int argc, char** argv);

}  // namespace memhier::bench
