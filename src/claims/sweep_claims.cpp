// The sweep goal, judged from the sweep's records (see sweep_claims.hpp).
#include "memhier/claims/sweep_claims.hpp"

#include <cmath>

#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/judge.hpp"
#include "memhier/report/document.hpp"

namespace memhier::claims {

bool counts_in_sweep(const results::BenchRecord& r) {
  // A ratio counts only where best's output was verified at the shape.
  return r.variant == "best" && r.verified && std::isfinite(r.x_vendor) && r.x_vendor > 0;
}

SweepSummary summarize_sweep(const std::string& family, std::size_t shapes,
                             const std::vector<results::BenchRecord>& records) {
  SweepSummary s;
  s.family = family;
  s.shapes = shapes;
  s.geomean = s.lowest = NAN;
  double log_sum = 0;
  for (const results::BenchRecord& r : records) {
    // The vendor line: rung 0, neither a ceiling nor a reference such as PyTorch.
    if (s.vendor.empty() && r.variant != "best" && r.rung == 0 && !r.ceiling && r.reference.empty())
      s.vendor = r.variant;
    if (r.variant != "best") continue;
    ++s.rows;
    const bool ran = r.declined.empty() && r.not_measured.empty();
    if (ran && !r.verified) ++s.unverified;
    if (!counts_in_sweep(r)) continue;
    log_sum += std::log(r.x_vendor);
    ++s.counted;
    if (!(r.x_vendor >= s.lowest)) {
      s.lowest = r.x_vendor;
      s.lowest_shape = r.shape;
    }
  }
  if (s.counted > 0) s.geomean = std::exp(log_sum / static_cast<double>(s.counted));
  return s;
}

std::vector<results::Check> sweep_checks(const std::vector<SweepSummary>& families) {
  const results::ClaimId id = results::ClaimId::gemm_best_vs_vendor_sweep;
  constexpr double kFloor = 0.95;
  std::vector<Figure> figures;
  std::string measured, partial;
  for (const SweepSummary& f : families) {
    if (f.rows < f.shapes) {
      partial += (partial.empty() ? "" : "; ") +
                 report::strf("%s ran %zu of its %zu shapes", f.family.c_str(), f.rows, f.shapes);
      continue;
    }
    if (f.counted == 0) continue;
    const std::string vendor = f.vendor.empty() ? "the vendor" : f.vendor;
    figures.push_back(
        {f.family, f.geomean, Claimed::value(kFloor, "x " + vendor), Tolerance::at_least(kFloor)});
    if (f.unverified > 0)
      figures.push_back({f.family + " shapes verified",
                         static_cast<double>(f.rows - f.unverified) / static_cast<double>(f.rows),
                         Claimed::value(1, "of best's rows"), Tolerance::at_least(1)});
    measured +=
        (measured.empty() ? "" : ", ") +
        report::strf("%s %.3fx %s over %zu shapes (lowest %.3fx at %s)", f.family.c_str(),
                     f.geomean, vendor.c_str(), f.counted, f.lowest, f.lowest_shape.c_str());
  }
  if (!partial.empty())
    return {{id, measured.empty() ? "n/a" : measured,
             results::not_measurable("the goal is over the whole sweep, and in this run " +
                                     partial + " (--quick runs three)")}};
  if (figures.empty())
    return {{id, "n/a",
             results::not_measurable("best has no verified ratio to the vendor at any "
                                     "shape of the sweep")}};
  return {{id, measured, judge_all(figures)}};
}

}  // namespace memhier::claims
