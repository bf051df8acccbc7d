// Claims judged from the roofline of one run (see ladders.hpp).
#include <cmath>

#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/judge.hpp"
#include "memhier/claims/ladders.hpp"

namespace memhier::claims {

std::vector<Check> roofline_checks(const report::Roofline& r) {
  // The ridge: the FLOP per byte a bf16 GEMM needs before HBM stops binding it.
  const double ridge = r.ridge_bf16();
  const Judgement j =
      judge(ridge, Claimed::value(590, "FLOP/byte"), band(ClaimId::fp16_tensor_590_flop_per_byte),
            std::isfinite(r.hbm_gbps) ? "no bf16 GEMM verified in this run (the gemm_bf16 ladder)"
                                      : "no HBM bandwidth measured in this run");
  return {{ClaimId::fp16_tensor_590_flop_per_byte,
           std::isfinite(ridge)
               ? report::strf("%.0f FLOP/byte: %.0f TFLOP/s (%s) over %.0f GB/s (HBM tier)", ridge,
                              r.bf16_peak_gflops / 1000.0, r.bf16_peak_from.c_str(), r.hbm_gbps)
               : "n/a",
           j}};
}

}  // namespace memhier::claims
