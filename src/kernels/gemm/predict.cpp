// Predictions for the GEMM ladder (see predict.hpp): the table (gemm_rungs.inc) names each
// rung's replay (replay.hpp); predict() sets up the problem as the case calls sgemm and runs
// that replay, or the alpha == 0 path.
#include "kernels/gemm/predict.hpp"

#include <stdexcept>
#include <string>

#include "kernels/gemm/replay.hpp"

namespace memhier::gemm::detail {
namespace {

/// Each variant's replay, in enum order; best has none (it runs the tuner's choice, which
/// the bench predicts through `runs`).
constexpr replay::Replay kReplays[] = {
#define MEMHIER_RUNG(name, launcher, candidate, prediction, ...) replay::prediction,
#define MEMHIER_BEST(...) replay::none,
#include "memhier/kernels/gemm_rungs.inc"
};

}  // namespace

bool has_prediction(Variant v) {
  return kReplays[static_cast<int>(v)] != replay::none;
}

namespace {

// The problem as the case calls sgemm, replayed into `rec`.
void replay_into(kernels::predict::Recorder& rec, Variant v, int m, int n, int k, float alpha,
                 float beta) {
  if (!has_prediction(v))
    throw std::invalid_argument(std::string("gemm variant ") + to_string(v) +
                                " has no prediction.");
  replay::Problem p;
  p.m = m, p.n = n, p.k = k;
  p.lda = k, p.ldb = n, p.ldc = n;  // as the case calls sgemm
  p.beta = beta != 0.f;
  // sgemm(): 16-byte accesses need an aligned base (cudaMalloc's is) and ld % 4 == 0.
  p.vec_a = p.lda % 4 == 0;
  p.vec_b = p.ldb % 4 == 0;
  p.vec_c = p.ldc % 4 == 0;
  if (alpha == 0.f)
    replay::scale_c(rec, p);
  else
    kReplays[static_cast<int>(v)](rec, p, v);
}

}  // namespace

model::AccessCounts predict(Variant v, int m, int n, int k, float alpha, float beta) {
  kernels::predict::Recorder rec;
  replay_into(rec, v, m, n, k, alpha, beta);
  return rec.counts();
}

void stream(Variant v, int m, int n, int k, float alpha, float beta, model::AccessSink& sink) {
  kernels::predict::Recorder rec(&sink);
  replay_into(rec, v, m, n, k, alpha, beta);
}

}  // namespace memhier::gemm::detail
