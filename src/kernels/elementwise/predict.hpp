// The model's prediction of what Nsight Compute counts for each elementwise variant: every
// warp's global loads and stores (these kernels use no shared memory), from the same
// dispatch, split and index functions as the kernels. Host-only.
#pragma once

#include <cstddef>
#include <string>

#include "kernels/elementwise/variants.hpp"
#include "memhier/model/access.hpp"
#include "memhier/model/replay.hpp"

namespace memhier::elementwise::detail {

/// True when the model predicts `variant` (a registered name): its table line names a
/// replay, or it is a bench-only line or best, which run modeled kernels.
bool has_prediction(const std::string& variant);

/// Counts of what `variant` (a registered name: scalar ... best, float4_misaligned_base,
/// float4_mismatched_alignment) launches for copy or axpy of n elements on arrays as the
/// family's case holds them (cudaMalloc'ed; the misaligned rungs run 4 bytes past them).
/// A particles_* variant declines a copy/axpy problem: nothing runs, all counts are 0.
model::AccessCounts predict_stream(const std::string& variant, Op op, std::size_t n);

/// Counts of what `variant` (particles_aos, particles_soa or best) launches for n
/// particles; any other variant declines a particles problem (all counts 0).
model::AccessCounts predict_particles(const std::string& variant, std::size_t n);

/// The global address stream of what predict_stream counts, block by block, into `sink`.
void stream_stream(const std::string& variant, Op op, std::size_t n, model::AccessSink& sink);

/// The global address stream of what predict_particles counts, into `sink`.
void stream_particles(const std::string& variant, std::size_t n, model::AccessSink& sink);

}  // namespace memhier::elementwise::detail
