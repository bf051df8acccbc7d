// Predictions for the bf16 GEMM ladder (see predict.hpp): the table (gemm_bf16_rungs.inc)
// names each rung's replay (replay.hpp); predict() sets up the problem as the case calls
// gemm_bf16 and runs that replay, or the alpha == 0 path.
#include "kernels/gemm_bf16/predict.hpp"

#include <stdexcept>
#include <string>

#include "kernels/gemm_bf16/replay.hpp"

namespace memhier::gemm_bf16::detail {
namespace {

/// Each variant's replay, in enum order; best has none (it runs the tuner's choice, which
/// the bench predicts through `runs`).
constexpr replay::Replay kReplays[] = {
#define MEMHIER_RUNG(name, launcher, candidate, prediction, ...) replay::prediction,
#define MEMHIER_BEST(...) replay::none,
#include "memhier/kernels/gemm_bf16_rungs.inc"
};

// The problem as the case calls gemm_bf16, replayed into `rec`.
void replay_into(kernels::predict::Recorder& rec, Variant v, int m, int n, int k, float alpha,
                 float beta) {
  if (!has_prediction(v))
    throw std::invalid_argument(std::string("gemm_bf16 variant ") + to_string(v) +
                                " has no prediction.");
  if (m <= 0 || n <= 0 || k <= 0)
    throw std::invalid_argument("gemm_bf16 predict: m, n and k must be positive.");
  replay::Problem p;
  p.m = m, p.n = n, p.k = k;
  p.lda = k, p.ldb = n, p.ldc = n;  // as the case calls gemm_bf16
  p.beta = beta != 0.f;
  // gemm_bf16(): 16-byte accesses need a 16-byte aligned base (cudaMalloc's is) and
  // ld % 8 == 0; rung 1's direct fragments a 32-byte aligned base and ld % 8 == 0.
  p.vec_a = p.wmma_a = p.lda % 8 == 0;
  p.vec_b = p.wmma_b = p.ldb % 8 == 0;
  if (alpha == 0.f)
    replay::scale_c(rec, p);
  else
    kReplays[static_cast<int>(v)](rec, p, v);
}

}  // namespace

bool has_prediction(Variant v) {
  return kReplays[static_cast<int>(v)] != replay::none;
}

model::AccessCounts predict(Variant v, int m, int n, int k, float alpha, float beta) {
  kernels::predict::Recorder rec;
  replay_into(rec, v, m, n, k, alpha, beta);
  return rec.counts();
}

void stream(Variant v, int m, int n, int k, float alpha, float beta, model::AccessSink& sink) {
  kernels::predict::Recorder rec(&sink);
  replay_into(rec, v, m, n, k, alpha, beta);
}

}  // namespace memhier::gemm_bf16::detail
