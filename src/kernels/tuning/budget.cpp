// The tuner's GPU-time budget (see memhier/kernels/tuning_budget.hpp).
#include <algorithm>
#include <cmath>

#include "memhier/kernels/tuning_budget.hpp"

namespace memhier::tuning {

int repetitions(double first_ms, std::size_t contenders, double budget_ms) {
  if (!(first_ms > 0) || contenders == 0) return 20;
  const double fit = budget_ms / (first_ms * static_cast<double>(contenders));
  return static_cast<int>(std::clamp(std::floor(fit), 1.0, 20.0));
}

int first_look_samples(double run_ms) {
  constexpr double kShortLookMs = 0.2;
  if (!(run_ms > 0)) return 1;
  return 1 + static_cast<int>(std::min(std::floor(kShortLookMs / run_ms), 15.0));
}

std::size_t first_look_count(double run_ms, std::size_t candidates, double first_budget_ms) {
  std::size_t n = 0;
  double spent = 0;
  while (n < candidates && (n < 2 || spent < first_budget_ms)) {
    spent += run_ms * first_look_samples(run_ms);
    ++n;
  }
  return n;
}

double look_share(double run_ms, std::size_t candidates, double first_budget_ms) {
  if (!(run_ms > 0) || candidates == 0) return 1;
  return std::min(1.0, first_budget_ms / (run_ms * static_cast<double>(candidates)));
}

int slice_k(int k, double share) {
  constexpr int kGranule = 64, kFloor = 1024;
  if (!(share < 1) || k <= kFloor) return k;
  const int want = std::max(kFloor, static_cast<int>(std::ceil(static_cast<double>(k) * share)));
  const int r = k % kGranule;
  const int sliced = (want - r + kGranule - 1) / kGranule * kGranule + r;
  return std::min(k, sliced);
}

double first_call_gpu_ms(double run_ms, std::size_t candidates, std::size_t contenders,
                         double first_budget_ms, double second_budget_ms, double floor_share) {
  const double share = look_share(run_ms, candidates, first_budget_ms);
  // The first candidate's run on the smallest slice, where that is not the whole problem.
  const double probe = floor_share < 1 ? run_ms * floor_share : 0;
  const double look = run_ms * share;
  const std::size_t timed = first_look_count(look, candidates, first_budget_ms);
  contenders = std::min(contenders, timed);
  return probe + look * first_look_samples(look) * static_cast<double>(timed) +
         look * static_cast<double>(contenders) * repetitions(look, contenders, second_budget_ms);
}

}  // namespace memhier::tuning
