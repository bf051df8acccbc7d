// Ladder checks: each claim a ladder tests, judged from the records of one run.
#include "memhier/claims/ladders.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>

#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/judge.hpp"
#include "rungs.hpp"

namespace memhier::claims {
namespace {

using report::strf;

using results::BenchRecord;
using report::Value;

constexpr double kInf = std::numeric_limits<double>::infinity();

// The sources' shapes for the tables they measured.
constexpr const char* kGemmShape = "4096x4096x4096";
constexpr const char* kTransposeShape = "4096x4096";
constexpr const char* kSoftmaxShape = "1024x4096";

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// A ratio with three decimals under 2 (so 1.116x and 1.125x differ), two above.
std::string ratio(double x) {
  return x < 2 ? strf("%.3fx", x) : strf("%.2fx", x);
}

// Thrown by a check that lacks the records it needs; becomes "not measurable here".
struct Unmeasurable {
  std::string why;
};

// One family's records, looked up by variant and shape.
class Runs {
 public:
  explicit Runs(const std::vector<BenchRecord>& records) : records_(records) {}

  std::vector<std::string> shapes() const {
    std::vector<std::string> s;
    for (const BenchRecord& r : records_)
      if (std::find(s.begin(), s.end(), r.shape) == s.end()) s.push_back(r.shape);
    return s;
  }

  // Throws unless some record is at `shape`.
  void need(const std::string& shape) const {
    const std::vector<std::string> s = shapes();
    if (std::find(s.begin(), s.end(), shape) != s.end()) return;
    throw Unmeasurable{"the claim's source measured " + shape +
                       ", which this run did not (it ran " +
                       (s.empty() ? std::string("nothing") : join(s)) + ")"};
  }

  const BenchRecord* find(const std::string& variant, const std::string& shape) const {
    for (const BenchRecord& r : records_)
      if (r.variant == variant && r.shape == shape) return &r;
    return nullptr;
  }

  // The first record of `variant` at any shape, or nullptr.
  const BenchRecord* any(const std::string& variant) const {
    for (const BenchRecord& r : records_)
      if (r.variant == variant) return &r;
    return nullptr;
  }

  // The record, verified and timed; throws Unmeasurable saying which is missing.
  const BenchRecord& timed(const std::string& variant, const std::string& shape) const {
    need(shape);
    const BenchRecord* r = find(variant, shape);
    if (!r) throw Unmeasurable{variant + " did not run at " + shape};
    if (!r->declined.empty())
      throw Unmeasurable{variant + " declined " + shape + ": " + r->declined};
    if (!r->verified)
      throw Unmeasurable{variant + " did not verify at " + shape +
                         (r->note.empty() ? std::string() : ": " + r->note)};
    if (!(r->ms > 0)) throw Unmeasurable{variant + " has no time at " + shape};
    return *r;
  }

  const std::vector<BenchRecord>& all() const { return records_; }

 private:
  const std::vector<BenchRecord>& records_;
};

// Runs a check; a missing record makes it "not measurable here" with the reason.
Check guarded(ClaimId id, const std::function<Check()>& check) {
  try {
    return check();
  } catch (const Unmeasurable& u) {
    return {id, "n/a", results::not_measurable(u.why)};
  }
}

// `fast` against `slow` at `shape`: time(slow) / time(fast) against the claimed [lo, hi].
Check speedup(ClaimId id, const Runs& runs, const std::string& shape, const std::string& slow,
              const std::string& fast, double lo, double hi) {
  return guarded(id, [&] {
    const BenchRecord& s = runs.timed(slow, shape);
    const BenchRecord& f = runs.timed(fast, shape);
    const double x = s.ms / f.ms;
    return Check{id,
                 strf("%s %.4g ms against %s %.4g ms at %s: %s", fast.c_str(), f.ms, slow.c_str(),
                      s.ms, shape.c_str(), ratio(x).c_str()),
                 judge_band(x, tolerance_band(id, lo, hi), false)};
  });
}

// One figure of a record as a fraction (x_vendor, frac_memcpy, peak_pct / 100) against a
// claimed fraction; a paired ratio (`spread` not null) is judged on its median and quoted
// with its 10th and 90th percentiles.
Check fraction(ClaimId id, const Runs& runs, const std::string& shape, const std::string& variant,
               double BenchRecord::*field, results::Spread BenchRecord::*spread, double scale,
               const std::string& of, double claimed) {
  return guarded(id, [&] {
    const BenchRecord& r = runs.timed(variant, shape);
    const double v = r.*field * scale;
    if (!std::isfinite(v)) throw Unmeasurable{variant + " at " + shape + " has no figure " + of};
    std::string m = variant + ": " + strf("%.3g%%", 100 * v);
    if (spread && std::isfinite((r.*spread).p10) && std::isfinite((r.*spread).p90))
      m += strf(" (paired median; p10 %.3g%%, p90 %.3g%%)", 100 * scale * (r.*spread).p10,
                100 * scale * (r.*spread).p90);
    m += " " + of + " at " + shape;
    if (std::isfinite(r.gflops))
      m += strf(" (%.0f GFLOP/s)", r.gflops);
    else if (std::isfinite(r.gbps))
      m += strf(" (%.0f GB/s)", r.gbps);
    return Check{id, m, judge_band(v, tolerance_band(id, claimed, claimed), true)};
  });
}

// `c` with the throughput of `variant` at `shape` for the judge to take as a share of the
// running card's datasheet peak (claims::on_card), against the claim's `claimed` share of
// `claim_peak` ("the V100's 900 GB/s"). A check without a measurement stays as it is.
Check with_share(Check c, const Runs& runs, const std::string& variant, const std::string& shape,
                 double claimed, const std::string& claim_peak) {
  const BenchRecord* r = runs.find(variant, shape);
  if (c.verdict == Verdict::not_measurable || !r || !std::isfinite(r->gbps)) return c;
  c.share = {r->gbps, claimed, claimed, claim_peak};
  return c;
}

std::vector<Check> gemm_from(const Runs& runs) {
  using G = gemm::Variant;
  const std::string s = kGemmShape;
  const double cublas = 18500;  // the source's cuBLAS, GFLOP/s: the rows' x cuBLAS divide by it
  auto of_cublas = [&](ClaimId id, const char* variant, double gflops) {
    return fraction(id, runs, s, variant, &BenchRecord::x_vendor, &BenchRecord::x_vendor_spread,
                    1.0, "of cuBLAS", gflops / cublas);
  };
  std::vector<Check> c;
  c.push_back(of_cublas(ClaimId::gemm_naive_310, rung(G::naive), 310));
  c.push_back(of_cublas(ClaimId::gemm_tiled_2800, rung(G::smem_tile32), 2800));
  c.push_back(of_cublas(ClaimId::gemm_register_tiled_6200, rung(G::reg_tile_2d), 6200));
  c.push_back(of_cublas(ClaimId::gemm_cp_async_7100, rung(G::cp_async_2stage), 7100));
  c.push_back(fraction(ClaimId::gemm_cublas_18500, runs, s, "cublasSgemm", &BenchRecord::peak_pct,
                       nullptr, 0.01, "of this card's fp32 peak", 0.949));
  c.push_back(speedup(ClaimId::gemm_register_tiling_2_2x, runs, s, rung(G::smem_tile32),
                      rung(G::reg_tile_2d), 6200.0 / 2800, 6200.0 / 2800));
  c.push_back(speedup(ClaimId::gemm_cp_async_1_15x, runs, s, rung(G::reg_tile_2d),
                      rung(G::cp_async_2stage), 7100.0 / 6200, 7100.0 / 6200));
  c.push_back(guarded(ClaimId::cp_async_gemm_1_05x, [&] {
    // The claim is cp.async against an already pipelined kernel: the fastest stage count
    // against the register-prefetch double buffer on the same tile.
    const BenchRecord* best = nullptr;
    std::string why;
    for (const char* v :
         {rung(G::cp_async_2stage), rung(G::cp_async_3stage), rung(G::cp_async_4stage)}) {
      try {
        const BenchRecord& r = runs.timed(v, s);
        if (!best || r.ms < best->ms) best = &r;
      } catch (const Unmeasurable& u) {
        why = u.why;
      }
    }
    if (!best) throw Unmeasurable{why};
    return speedup(ClaimId::cp_async_gemm_1_05x, runs, s, rung(G::double_buffered), best->variant,
                   295.0 / 280, 295.0 / 280);
  }));
  // Tiling claims compare the source's own naive kernel (matmul_naive in Global, Shared, and
  // Register Memory reads A and B coalesced) with the 32x32 tile, so coalescing is not tiling.
  auto tiling = [&](ClaimId id, double lo, double hi) {
    Check ch = speedup(id, runs, s, rung(G::coalesced), rung(G::smem_tile32), lo, hi);
    const BenchRecord* naive = runs.find(rung(G::naive), s);
    const BenchRecord* tile = runs.find(rung(G::smem_tile32), s);
    if (ch.verdict != Verdict::not_measurable && naive && tile && naive->verified && naive->ms > 0)
      ch.measured +=
          strf(" (against the uncoalesced naive rung: %s)", ratio(naive->ms / tile->ms).c_str());
    return ch;
  };
  c.push_back(tiling(ClaimId::tiling_5_30x, 5, 30));
  c.push_back(tiling(ClaimId::tiling_10_30x, 10, 30));
  c.push_back(tiling(ClaimId::tiling_15x_v100, 15, 15));
  c.push_back(tiling(ClaimId::tiling_2_15x, 2, 15));
  // Coalescing alone: the same one-thread-per-output kernel with threadIdx.x along rows
  // (naive) and along columns (coalesced).
  c.push_back(
      speedup(ClaimId::coalescing_10_20x, runs, s, rung(G::naive), rung(G::coalesced), 10, 20));
  c.push_back(
      speedup(ClaimId::coalescing_first_7_10x, runs, s, rung(G::naive), rung(G::coalesced), 7, 10));
  c.push_back(guarded(ClaimId::tile_32_optimal, [&] {
    const BenchRecord& t16 = runs.timed(rung(G::smem_tile16), s);
    const BenchRecord& t32 = runs.timed(rung(G::smem_tile32), s);
    const BenchRecord& t64 = runs.timed(rung(G::smem_tile64), s);
    const BenchRecord& best = t16.ms < t64.ms ? t16 : t64;
    const double x = t32.ms / best.ms;  // above 1: the other tile is faster
    const std::string m =
        strf("smem_tile16 %.4g ms, smem_tile32 %.4g ms, smem_tile64 %.4g ms at %s", t16.ms, t32.ms,
             t64.ms, s.c_str());
    return Check{
        ClaimId::tile_32_optimal,
        m + strf(" (smem_tile32 %s %s's time)", ratio(x).c_str(), best.variant.c_str()),
        claims::judge(x, Claimed::value(1, "x the fastest other tile's time").with_decimals(3),
                      claims::band(ClaimId::tile_32_optimal))};
  }));
  c.push_back(
      speedup(ClaimId::padding_3x_matmul, runs, s, rung(G::smem_tile32), rung(G::padded), 3, 3));
  c.push_back(guarded(ClaimId::padding_memory_3pct, [&] {
    const BenchRecord* p = runs.any(rung(G::padded));
    const BenchRecord* t = runs.any(rung(G::smem_tile32));
    if (!p || !t) throw Unmeasurable{"padded or smem_tile32 did not run"};
    const int pb = p->static_smem + p->dynamic_smem, tb = t->static_smem + t->dynamic_smem;
    if (pb <= 0 || tb <= 0) throw Unmeasurable{"no shared-memory size was recorded"};
    const double extra = static_cast<double>(pb) / tb - 1;
    return Check{
        ClaimId::padding_memory_3pct,
        strf("padded %d B, smem_tile32 %d B of shared memory per block: +%.2f%%", pb, tb,
             100 * extra),
        judge_band(extra, tolerance_band(ClaimId::padding_memory_3pct, 0.031, 0.031), true)};
  }));
  c.push_back(guarded(ClaimId::smem_64kb_1_2_blocks, [&] {
    std::vector<std::string> seen, parts;
    int most = 0;  // the most blocks per SM any such variant reached
    for (const BenchRecord& r : runs.all()) {
      const int bytes = r.static_smem + r.dynamic_smem;
      if (r.rung <= 0 || r.blocks_per_sm <= 0 || bytes < 60 * 1024 || bytes > 68 * 1024) continue;
      if (std::find(seen.begin(), seen.end(), r.variant) != seen.end()) continue;
      seen.push_back(r.variant);
      parts.push_back(
          strf("%s: %d B per block, %d blocks per SM", r.variant.c_str(), bytes, r.blocks_per_sm));
      most = std::max(most, r.blocks_per_sm);
    }
    if (parts.empty())
      throw Unmeasurable{
          "no variant in this run uses about 64 KB (60-68 KiB) of shared memory "
          "per block"};
    return Check{ClaimId::smem_64kb_1_2_blocks, join(parts),
                 claims::judge(most, Claimed::range(1, 2, "blocks per SM"),
                               claims::band(ClaimId::smem_64kb_1_2_blocks))};
  }));
  return c;
}

std::vector<Check> transpose_from(const Runs& runs) {
  using T = transpose::Variant;
  const std::string s = kTransposeShape;
  auto of_memcpy = [&](ClaimId id, const char* variant, double gbps) {
    return with_share(
        fraction(id, runs, s, variant, &BenchRecord::frac_memcpy, &BenchRecord::frac_memcpy_spread,
                 1.0, "of cudaMemcpy D2D (the source: of the V100's 900 GB/s)", gbps / 900),
        runs, variant, s, gbps / 900, "the V100's 900 GB/s");
  };
  std::vector<Check> c;
  c.push_back(of_memcpy(ClaimId::transpose_naive_13pct, rung(T::naive), 120));
  c.push_back(of_memcpy(ClaimId::transpose_tiled_64pct, rung(T::tile), 580));
  c.push_back(of_memcpy(ClaimId::transpose_padded_83pct, rung(T::padded), 750));
  c.push_back(speedup(ClaimId::padding_30pct, runs, s, rung(T::tile), rung(T::padded), 1.3, kInf));
  c.push_back(
      speedup(ClaimId::bank_fix_1_1_1_5x, runs, s, rung(T::tile), rung(T::padded), 1.1, 1.5));
  c.push_back(
      speedup(ClaimId::column_major_7_5x, runs, s, rung(T::naive), rung(T::padded), 7.5, 7.5));
  c.push_back(guarded(ClaimId::swizzle_matches_padding, [&] {
    const BenchRecord& p = runs.timed(rung(T::padded), s);
    const BenchRecord& w = runs.timed(rung(T::swizzled), s);
    const double x = p.ms / w.ms;
    return Check{ClaimId::swizzle_matches_padding,
                 strf("swizzled %.4g ms against padded %.4g ms at %s: %s", w.ms, p.ms, s.c_str(),
                      ratio(x).c_str()),
                 judge_band(x, tolerance_band(ClaimId::swizzle_matches_padding, 1, 1), false)};
  }));
  return c;
}

// PyTorch's softmax (its row from memhier.torch_reference) as a fraction of cudaMemcpy D2D,
// as the ladder's 66 % claim is judged: the source's 1,240 GB/s is of the A100's 2,039.
Check torch_softmax(const Runs& runs, const std::string& s) {
  using S = softmax::Variant;
  const ClaimId id = ClaimId::softmax_pytorch_1240;
  return guarded(id, [&] {
    runs.need(s);
    const BenchRecord* row = nullptr;
    for (const BenchRecord& r : runs.all())
      if (r.shape == s && r.reference == "pytorch" && (!row || r.variant == "torch.softmax"))
        row = &r;
    if (!row)
      throw Unmeasurable{
          "no PyTorch row in this run (memhier report --no-torch, or bench "
          "without --torch)"};
    if (!row->declined.empty()) throw Unmeasurable{"no PyTorch softmax: " + row->declined};
    const BenchRecord& t = runs.timed(row->variant, s);
    if (!std::isfinite(t.frac_memcpy))
      throw Unmeasurable{"no cudaMemcpy D2D row at " + s + " to compare PyTorch with"};
    std::string m = strf(
        "%s %.4g ms (%.0f GB/s) at %s: %.3g%% of cudaMemcpy D2D (medians of two "
        "processes, not paired; the source: of peak)",
        t.variant.c_str(), t.ms, t.gbps, s.c_str(), 100 * t.frac_memcpy);
    if (const BenchRecord* lb = runs.find(rung(S::launch_bounds), s);
        lb && lb->verified && lb->ms > 0)
      m += strf("; launch_bounds %.4g ms (the source: 25 against 27 us)", lb->ms);
    return with_share(
        Check{id, m,
              judge_band(t.frac_memcpy, tolerance_band(id, 1240.0 / 2039, 1240.0 / 2039), true)},
        runs, t.variant, s, 1240.0 / 2039, "the A100's 2,039 GB/s");
  });
}

std::vector<Check> softmax_from(const Runs& runs) {
  using S = softmax::Variant;
  const std::string s = kSoftmaxShape;
  // The source's times, us: naive 89, parallel max 42, warp shuffles 35, float4 28, bounds 25.
  std::vector<Check> c;
  c.push_back(speedup(ClaimId::softmax_parallel_max_2_1x, runs, s, rung(S::naive),
                      rung(S::parallel_max), 89.0 / 42, 89.0 / 42));
  c.push_back(speedup(ClaimId::softmax_warp_shuffle_1_2x, runs, s, rung(S::parallel_max),
                      rung(S::warp_shuffle), 42.0 / 35, 42.0 / 35));
  c.push_back(speedup(ClaimId::softmax_float4_1_25x, runs, s, rung(S::warp_shuffle),
                      rung(S::vectorized), 35.0 / 28, 35.0 / 28));
  c.push_back(speedup(ClaimId::softmax_launch_bounds_1_12x, runs, s, rung(S::vectorized),
                      rung(S::launch_bounds), 28.0 / 25, 28.0 / 25));
  c.push_back(speedup(ClaimId::softmax_ladder_3_6x, runs, s, rung(S::naive), rung(S::launch_bounds),
                      89.0 / 25, 89.0 / 25));
  c.push_back(with_share(fraction(ClaimId::softmax_66pct_of_peak, runs, s, rung(S::launch_bounds),
                                  &BenchRecord::frac_memcpy, &BenchRecord::frac_memcpy_spread, 1.0,
                                  "of cudaMemcpy D2D (the source: of peak)", 1340.0 / 2039),
                         runs, rung(S::launch_bounds), s, 1340.0 / 2039, "the A100's 2,039 GB/s"));
  c.push_back(speedup(ClaimId::tune_registers_1_0_1_3x, runs, s, rung(S::vectorized),
                      rung(S::launch_bounds), 1.0, 1.3));
  c.push_back(torch_softmax(runs, s));
  return c;
}

std::vector<Check> elementwise_from(const Runs& runs) {
  using E = elementwise::Variant;
  // The sources name no size: the largest axpy shape, far beyond L2 at the bench sizes.
  std::string shape = "axpy (any size)";
  long long best = -1;
  for (const std::string& sh : runs.shapes()) {
    if (sh.rfind("axpy:", 0) != 0) continue;
    const long long n = std::atoll(sh.c_str() + 5);
    if (n > best) {
      best = n;
      shape = sh;
    }
  }
  std::vector<Check> c;
  c.push_back(
      speedup(ClaimId::float4_1_25x, runs, shape, rung(E::scalar), rung(E::float4), 1.25, 1.25));
  c.push_back(speedup(ClaimId::vectorize_1_1_1_25x, runs, shape, rung(E::scalar), rung(E::float4),
                      1.1, 1.25));
  return c;
}

std::vector<Check> reduction_from(const Runs& runs) {
  using R = reduction::Variant;
  // The source names no size for its custom reduction at 1,600-1,750 GB/s of an A100's 2,039:
  // an HBM stream, so the largest shape of the run.
  std::string shape = "any size";
  long long best = -1;
  for (const std::string& sh : runs.shapes()) {
    const long long n = std::atoll(sh.c_str());
    if (n > best) {
      best = n;
      shape = sh;
    }
  }
  // cp_async_pipeline is best_b512_v4x4's single pass with its loads staged through shared
  // memory: the rung it builds on is the "without cp.async" of the claim.
  return {speedup(ClaimId::cp_async_reduction_1_09x, runs, shape, rung(R::best_b512_v4x4),
                  rung(R::cp_async_pipeline), 1750.0 / 1600, 1750.0 / 1600)};
}

// best over cuDNN (the family's vendor line) per head_dim: the lowest paired median among the
// run's shapes of that head_dim (a shape's last extent), each against the goal's floor.
Check attention_vs_cudnn(const Runs& runs) {
  const ClaimId id = ClaimId::attention_best_vs_cudnn;
  std::vector<Figure> figures;
  std::string measured;
  for (const auto& [head_dim, floor] : {std::pair<int, double>{128, 0.90}, {64, 0.85}}) {
    const std::string suffix = "x" + std::to_string(head_dim);
    const BenchRecord* low = nullptr;
    for (const BenchRecord& r : runs.all()) {
      const std::string dims = r.shape.substr(0, r.shape.find(':'));
      const bool at = dims.size() > suffix.size() &&
                      dims.compare(dims.size() - suffix.size(), suffix.size(), suffix) == 0;
      if (at && r.variant == "best" && r.verified && r.declined.empty() &&
          std::isfinite(r.x_vendor) && (!low || r.x_vendor < low->x_vendor))
        low = &r;
    }
    if (!low) continue;
    figures.push_back({"head_dim " + std::to_string(head_dim), low->x_vendor,
                       Claimed::value(floor, "x cuDNN"), Tolerance::at_least(floor)});
    measured += (measured.empty() ? "best over cuDNN, lowest paired median: " : ", ") +
                strf("%.3fx at %s", low->x_vendor, low->shape.c_str());
  }
  if (figures.empty())
    return {id, "n/a",
            results::not_measurable("best has no ratio to cuDNN in this run (cuDNN not in the "
                                    "build, or it declined every shape: see the cudnn line)")};
  return {id, measured, judge_all(figures)};
}

std::vector<Check> attention_from(const Runs& runs) {
  using A = attention::Variant;
  // FlashAttention-2's figures are at head_dim 128: the run's largest head_dim-128 shape by
  // flops (its last extent is head_dim), else its first shape.
  std::string shape = runs.shapes().empty() ? std::string("any shape") : runs.shapes().front();
  double most = -1;
  for (const std::string& sh : runs.shapes()) {
    const std::string dims = sh.substr(0, sh.find(':'));
    if (dims.size() < 4 || dims.compare(dims.size() - 4, 4, "x128") != 0) continue;
    const BenchRecord* r = runs.find(rung(A::cp_async_pipeline), sh);
    const double flops = r && std::isfinite(r->gflops) ? r->gflops * r->ms : 0;
    if (flops > most) most = flops, shape = sh;
  }
  // cp_async_pipeline is mma_ldmatrix with its K/V tiles in a cp.async ring: the rung it
  // builds on is the "without cp.async" of the claim.
  return {speedup(ClaimId::cp_async_flashattention_1_07x, runs, shape, rung(A::mma_ldmatrix),
                  rung(A::cp_async_pipeline), 156.0 / 145, 156.0 / 145),
          attention_vs_cudnn(runs)};
}

}  // namespace

Band tolerance_band(ClaimId id, double lo, double hi) {
  const auto [a, b] = admitted(lo, hi, claims::band(id));
  return {a, b};
}

Judgement judge_band(double measured, Band band, bool percent) {
  // A fraction is judged and shown in percent; three decimals keep 1.116x and 1.125x apart.
  const double k = percent ? 100 : 1;
  const Claimed claimed =
      Claimed::range(k * band.lo, k * band.hi, percent ? "%" : "x").with_decimals(percent ? 2 : 3);
  return claims::judge(
      k * measured, claimed,
      std::isinf(band.hi) ? Tolerance::at_least(k * band.lo) : Tolerance::inside_range());
}

std::vector<Check> gemm_checks(const std::vector<BenchRecord>& records) {
  return gemm_from(Runs(records));
}

std::vector<Check> transpose_checks(const std::vector<BenchRecord>& records) {
  return transpose_from(Runs(records));
}

std::vector<Check> softmax_checks(const std::vector<BenchRecord>& records) {
  return softmax_from(Runs(records));
}

std::vector<Check> elementwise_checks(const std::vector<BenchRecord>& records) {
  return elementwise_from(Runs(records));
}

std::vector<Check> reduction_checks(const std::vector<BenchRecord>& records) {
  return reduction_from(Runs(records));
}

std::vector<Check> attention_checks(const std::vector<BenchRecord>& records) {
  return attention_from(Runs(records));
}

report::Table gemm_seed_table(const std::vector<BenchRecord>& records) {
  using G = gemm::Variant;
  const std::vector<Check> checks = gemm_checks(records);
  auto verdict_of = [&](ClaimId id) {
    for (const Check& c : checks)
      if (c.id == id) return c.detail;
    return results::not_measurable("no check").text;
  };
  const Runs runs(records);
  // The source's shape when it ran; else the first shape, for reference only.
  std::string shape = kGemmShape;
  const std::vector<std::string> shapes = runs.shapes();
  if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end() && !shapes.empty())
    shape = shapes.front();

  struct Row {
    const char* seed_row;
    double gflops, peak_pct;
    const char* variant;
    ClaimId id;
  };
  const Row rows[] = {
      {"Naive (no tiling)", 310, 1.6, rung(G::naive), ClaimId::gemm_naive_310},
      {"Tiled 32x32 (TILE_K=32)", 2800, 14.4, rung(G::smem_tile32), ClaimId::gemm_tiled_2800},
      {"Optimized 64x64, TM=TN=4 (register tiling)", 6200, 31.8, rung(G::reg_tile_2d),
       ClaimId::gemm_register_tiled_6200},
      {"Optimized + cp.async pipeline", 7100, 36.4, rung(G::cp_async_2stage),
       ClaimId::gemm_cp_async_7100},
      {"cuBLAS (reference)", 18500, 94.9, "cublasSgemm", ClaimId::gemm_cublas_18500},
  };
  auto num = [](double v, int p) { return std::isfinite(v) ? Value::num(v, p) : Value::none(); };

  report::Table t;
  t.id = "bench-gemm-seed-table";
  t.title = "The GEMM table of Shared Memory and Bank Conflicts, on this card";
  t.caption =
      "Shared Memory and Bank Conflicts, §GEMM Performance (A100, M=N=K=4096, FP32), beside the "
      "rung of this "
      "ladder that does the same thing, from this run. The cards differ, so the rows are judged "
      "on their share of cuBLAS measured in the same run (the cuBLAS row: its share of the fp32 "
      "peak).";
  t.columns = {{"source's row", "", "seed_row"},    {"A100", "GFLOP/s", "seed_gflops"},
               {"A100 peak", "%", "seed_peak_pct"}, {"A100 x cuBLAS", "", "seed_x_cublas"},
               {"rung here", "", "variant"},        {"shape", "", "shape"},
               {"here", "GFLOP/s", "gflops"},       {"fp32 peak here", "%", "peak_pct"},
               {"x cuBLAS here", "", "x_cublas"},   {"verdict", "", "verdict"}};
  for (const Row& r : rows) {
    const BenchRecord* b = runs.find(r.variant, shape);
    const bool ok = b && b->verified;
    t.rows.push_back(
        {Value::str(r.seed_row), Value::num(r.gflops, 0), Value::num(r.peak_pct, 1),
         Value::num(r.gflops / 18500, 3), Value::str(r.variant), Value::str(shape),
         num(ok ? b->gflops : NAN, 0), num(ok ? b->peak_pct : NAN, 1),
         ok ? Value::median_or_none(b->x_vendor, b->x_vendor_spread.p10, b->x_vendor_spread.p90, 3)
            : Value::none(),
         Value::str(verdict_of(r.id))});
  }
  if (shape != kGemmShape)
    t.notes.push_back(
        "This run did not measure the source's 4096x4096x4096 (--quick?): the figures "
        "are at " +
        shape + " for reference, and the verdicts say so.");
  t.notes.push_back(
      "Naive here puts threadIdx.x along the rows of C (uncoalesced), like the source's 310 "
      "GFLOP/s; the naive code of Global, Shared, and Register Memory is the coalesced rung, "
      "which the tiling claims compare against.");
  t.notes.push_back(
      "Register tiling here is reg_tile_2d (128x128x8 block, 8x8 outputs per thread; the source's: "
      "64x64x16, 4x4); cp.async is cp_async_2stage, the same block tile fed by cp.async with one "
      "k-tile in flight. Tolerance: the source's share of cuBLAS x/1.5..1.5x.");
  return t;
}

std::vector<report::Table> gemm_seed_tables(const std::vector<BenchRecord>& records) {
  return {gemm_seed_table(records)};
}

void add_ladder_claims(report::Section& section, const std::string& family,
                       const LadderClaims& claims,
                       const std::vector<BenchRecord>& records) {
  if (claims.tables)
    for (report::Table& t : claims.tables(records)) section.tables.push_back(std::move(t));
  std::vector<Check> checks = claims.checks ? claims.checks(records) : std::vector<Check>{};
  if (!checks.empty()) add_checks(section, Checker::bench(family), std::move(checks));
}

}  // namespace memhier::claims
