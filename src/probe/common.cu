#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>

#include "common.cuh"

namespace memhier::probe {

std::size_t free_device_bytes() {
  std::size_t free_b = 0, total_b = 0;
  MEMHIER_CUDA(cudaMemGetInfo(&free_b, &total_b));
  return free_b;
}

std::vector<std::uint32_t> make_ring(std::size_t slots, std::size_t stride_bytes,
                                     std::uint32_t seed) {
  const std::size_t words_per_slot = stride_bytes / 4;
  std::vector<std::uint32_t> order(slots);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937 rng(seed);
  std::shuffle(order.begin() + 1, order.end(), rng);  // slot 0 starts the ring
  std::vector<std::uint32_t> mem(slots * words_per_slot, 0);
  for (std::size_t i = 0; i < slots; ++i) {
    const std::size_t from = order[i], to = order[(i + 1) % slots];
    mem[from * words_per_slot] = static_cast<std::uint32_t>(to * stride_bytes);
  }
  return mem;
}

int calibrate_passes(const std::string& name, const std::function<void(cudaStream_t, int)>& launch,
                     double target_ms) {
  int passes = 16;
  for (int round = 0; round < 4; ++round) {
    core::TimingOptions o;
    o.name = name;
    o.warmup = 1;
    o.min_reps = 2;
    o.max_reps = 2;
    o.min_total_ms = 0;
    const double ms = core::time_it([&](cudaStream_t s) { launch(s, passes); }, o).median_ms;
    const double scale = std::clamp(ms > 0 ? target_ms / ms : 64.0, 1.0 / 64, 64.0);
    passes = static_cast<int>(std::clamp(static_cast<double>(passes) * scale, 1.0, 1.0e7));
    if (scale <= 4.0) break;  // the last run was long enough to extrapolate from
  }
  return std::max(passes, 1);
}

core::TimingOptions probe_timing(const Context& ctx, const std::string& name) {
  core::TimingOptions o;
  o.name = name;
  o.warmup = ctx.quick ? 1 : 2;
  o.min_reps = ctx.quick ? 3 : 5;
  o.max_reps = ctx.quick ? 30 : 100;
  o.min_total_ms = ctx.quick ? 2.0 : 8.0;
  return fewest_if_smallest(ctx, o);
}

core::TimingOptions fewest_if_smallest(const Context& ctx, core::TimingOptions o) {
  if (!ctx.smallest) return o;
  o.warmup = std::min(o.warmup, 1);  // a warm-up may fill what the timed run reads
  o.min_reps = 1;
  o.max_reps = 1;
  o.min_total_ms = 0;
  return o;
}

}  // namespace memhier::probe
