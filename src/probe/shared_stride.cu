// Probe "shared-stride": shared-memory bandwidth against the stride between lanes,
// for 4-, 8- and 16-byte accesses, beside the bank model's wavefronts for the very
// same addresses (one index function serves the kernel and the model).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/model/access.hpp"

namespace memhier::probe {
namespace {

constexpr int kStrideBlock = 256;
constexpr int kStrideUnroll = 8;  // loads per thread per pass, each from its own base
constexpr std::uint32_t kStrideElems =
    2048;  // power of two > 31 * 64: no two lanes alias for strides <= 64
constexpr std::uint32_t kStrideBaseStep = 32;  // elements between the bases of successive loads

/// Element (of the access width) that `lane` reads in load `k` of a pass: lane * stride past
/// a base that moves with k, modulo the array. Shared by the kernel and the bank model.
__host__ __device__ inline std::uint32_t shared_stride_element(std::uint32_t lane,
                                                               std::uint32_t stride,
                                                               std::uint32_t k) {
  return (k * kStrideBaseStep + lane * stride) & (kStrideElems - 1);
}

// .volatile loads through inline PTX: neither the front end nor ptxas may merge or
// hoist them out of the pass loop, so every counted load is issued.

// Every warp of the block runs the same pattern; the addresses are computed once, so
// the pass loop is loads and XORs only.
template <int W>
__global__ void __launch_bounds__(kStrideBlock)
    shared_stride_kernel(const std::uint32_t* __restrict__ init, std::uint32_t* __restrict__ out,
                         std::uint32_t stride, int passes) {
  constexpr int kWords = static_cast<int>(kStrideElems) * W / 4;
  __shared__ __align__(16) std::uint32_t buf[kWords];
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) buf[i] = init[i];
  __syncthreads();
  const std::uint32_t lane = threadIdx.x & 31u;
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(buf));
  std::uint32_t addr[kStrideUnroll];
#pragma unroll
  for (int k = 0; k < kStrideUnroll; ++k)
    addr[k] = base + shared_stride_element(lane, stride, static_cast<std::uint32_t>(k)) * W;
  std::uint32_t acc = threadIdx.x;
  for (int p = 0; p < passes; ++p) {
#pragma unroll
    for (int k = 0; k < kStrideUnroll; ++k) acc ^= lds_fold<W>(addr[k]);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/// The bank model over the kernel's own addresses, averaged over the loads of one pass.
struct Prediction {
  double wavefronts = 0;
  int degree = 0;
};

Prediction predict(int width, std::uint32_t stride) {
  Prediction p;
  for (int k = 0; k < kStrideUnroll; ++k) {
    model::WarpAccess w;
    w.width_bytes = width;
    for (int lane = 0; lane < model::kWarpSize; ++lane)
      w.address[lane] =
          static_cast<std::uint64_t>(shared_stride_element(static_cast<std::uint32_t>(lane), stride,
                                                           static_cast<std::uint32_t>(k))) *
          static_cast<std::uint64_t>(width);
    const model::SharedCost c = model::shared_cost(w);
    p.wavefronts += c.wavefronts;
    p.degree = std::max(p.degree, c.degree);
  }
  p.wavefronts /= kStrideUnroll;
  return p;
}

struct Row {
  int width = 4;
  std::uint32_t stride = 1;
  double gbps_value = NAN;
  double ms_per_pass = NAN;
  double slowdown = NAN;
  Prediction pred;
  double predicted_slowdown = NAN;
};

/// Passes that make a stride-1 launch last about `target_ms`.
int calibrate_passes(const std::function<void(cudaStream_t, int)>& launch, double target_ms) {
  int passes = 16;
  for (int round = 0; round < 4; ++round) {
    core::TimingOptions o;
    o.name = "shared-stride: calibrate";
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

/// Within +-tol (relative) of the prediction.
bool within(double measured, double predicted, double tol) {
  return std::isfinite(measured) && predicted > 0 && measured >= predicted * (1 - tol) &&
         measured <= predicted * (1 + tol);
}

Result run_shared_stride(Context& ctx) {
  using report::Value;
  Result result;
  report::Section& sec = result.section;
  sec.id = "shared-stride";
  sec.title = "Shared-memory bank conflicts against stride";

  std::vector<std::uint32_t> strides;
  if (ctx.quick) {
    strides = {1, 2, 4, 8, 16, 32, 33};
  } else {
    for (std::uint32_t s = 1; s <= 33; ++s) strides.push_back(s);
    strides.push_back(64);
  }
  const double target_ms = ctx.quick ? 0.1 : 0.3;
  constexpr double kTol = 0.35;

  core::DeviceBuffer<std::uint32_t> init(kStrideElems * 16 / 4);
  fill_random_bits(init.data(), init.size(), 606u);
  const int grid4 = full_grid(shared_stride_kernel<4>, kStrideBlock, ctx);
  const int grid8 = full_grid(shared_stride_kernel<8>, kStrideBlock, ctx);
  const int grid16 = full_grid(shared_stride_kernel<16>, kStrideBlock, ctx);
  core::DeviceBuffer<std::uint32_t> out(static_cast<std::size_t>(std::max({grid4, grid8, grid16})) *
                                        kStrideBlock);

  std::vector<Row> rows;
  auto sweep = [&](auto kernel, int grid, int width) {
    ctx.progress("shared-stride: " + std::to_string(width) + "-byte accesses");
    auto launch = [&](cudaStream_t s, std::uint32_t stride, int passes) {
      kernel<<<grid, kStrideBlock, 0, s>>>(init.data(), out.data(), stride, passes);
      MEMHIER_CHECK_LAUNCH();
    };
    const Prediction p1 = predict(width, 1);
    const int passes1 =
        calibrate_passes([&](cudaStream_t s, int passes) { launch(s, 1, passes); }, target_ms);
    double ms_per_pass1 = NAN;
    for (std::uint32_t stride : strides) {
      Row r;
      r.width = width;
      r.stride = stride;
      r.pred = predict(width, stride);
      r.predicted_slowdown = r.pred.wavefronts / p1.wavefronts;
      // Fewer passes where the model expects a conflict: every launch lasts about as long.
      const int passes =
          std::max(2, static_cast<int>(std::lround(passes1 / std::max(1.0, r.predicted_slowdown))));
      core::TimingOptions o;
      o.name = "shared-stride";
      o.warmup = 1;
      o.min_reps = ctx.quick ? 3 : 5;
      o.max_reps = 50;
      o.min_total_ms = ctx.quick ? 0.3 : 1.5;
      const core::Timing t = core::time_it([&](cudaStream_t s) { launch(s, stride, passes); }, o);
      r.ms_per_pass = t.median_ms / passes;
      const double bytes =
          static_cast<double>(grid) * kStrideBlock * passes * kStrideUnroll * width;
      r.gbps_value = gbps(bytes, t.median_ms);
      if (stride == 1) ms_per_pass1 = r.ms_per_pass;
      r.slowdown = r.ms_per_pass / ms_per_pass1;
      rows.push_back(r);
    }
  };
  sweep(shared_stride_kernel<4>, grid4, 4);
  sweep(shared_stride_kernel<8>, grid8, 8);
  sweep(shared_stride_kernel<16>, grid16, 16);

  // ---- table ----
  report::Table t;
  t.id = "shared-stride";
  t.title = "Shared-memory bandwidth against stride";
  t.caption =
      "Lane l reads element (base + l * stride) mod " + std::to_string(kStrideElems) +
      " of the access width; slowdown is time per load over the stride-1 time of the same width.";
  t.columns = {{"stride", "elements", "stride"},
               {"width", "B", "width_bytes"},
               {"bandwidth", "GB/s", "gbps"},
               {"slowdown", "x", "slowdown"},
               {"model wavefronts", "per instruction", "predicted_wavefronts"},
               {"model slowdown", "x", "predicted_slowdown"},
               {"model degree", "way", "predicted_degree"}};
  for (const Row& r : rows)
    t.rows.push_back({Value::integer(r.stride), Value::integer(r.width),
                      Value::num(r.gbps_value, 0), Value::num(r.slowdown, 2),
                      Value::num(r.pred.wavefronts, 1), Value::num(r.predicted_slowdown, 2),
                      Value::integer(r.pred.degree)});
  t.notes.push_back(
      "Model: src/model/access.cpp over the kernel's own addresses (shared_stride_element): "
      "4-byte accesses in one phase, 8-byte in two half-warp phases, 16-byte in four "
      "quarter-warp phases; degree = worst distinct words one bank serves in a phase.");
  t.notes.push_back(
      "Bandwidth counts the bytes the lanes asked for (loads x width), every SM busy.");

  // ---- chart ----
  report::Chart chart;
  chart.id = "shared-stride";
  chart.title = "Slowdown against stride (measured and bank model)";
  chart.kind = report::Chart::Kind::line;
  chart.x_label = "stride";
  chart.x_unit = "elements";
  chart.y_label = "slowdown";
  chart.y_unit = "x";
  chart.log_y = true;
  for (int width : {4, 8, 16}) {
    report::Series measured, model_series;
    measured.name = std::to_string(width) + " B measured";
    model_series.name = std::to_string(width) + " B model";
    for (const Row& r : rows) {
      if (r.width != width) continue;
      measured.x.push_back(r.stride);
      measured.y.push_back(r.slowdown);
      model_series.x.push_back(r.stride);
      model_series.y.push_back(r.predicted_slowdown);
    }
    chart.series.push_back(std::move(measured));
    chart.series.push_back(std::move(model_series));
  }

  // ---- claims ----
  auto find = [&](int width, std::uint32_t stride) -> const Row* {
    for (const Row& r : rows)
      if (r.width == width && r.stride == stride) return &r;
    return nullptr;
  };
  auto slow_text = [](const Row* r) {
    return r ? "stride " + std::to_string(r->stride) + ": " + fixed(r->slowdown, 1) + "x (model " +
                   fixed(r->predicted_slowdown, 0) + "x)"
             : std::string("n/a");
  };
  const std::string tol_text = "+-" + std::to_string(static_cast<int>(kTol * 100)) + "%";
  std::vector<ClaimRow> claims;
  {
    // Every 4-byte stride against gcd(s, 32) (the model's wavefronts for 4-byte words).
    std::vector<std::string> off;
    int n = 0;
    for (const Row& r : rows) {
      if (r.width != 4) continue;
      ++n;
      if (!within(r.slowdown, r.predicted_slowdown, kTol))
        off.push_back(std::to_string(r.stride) + " (" + fixed(r.slowdown, 1) + "x vs " +
                      fixed(r.predicted_slowdown, 0) + "x)");
    }
    std::string list;
    for (const std::string& s : off) list += (list.empty() ? "" : ", ") + s;
    claims.push_back({"bank-degree-gcd"_claim,
                      std::to_string(n - static_cast<int>(off.size())) + " of " +
                          std::to_string(n) + " strides within " + tol_text + " of gcd(s, 32)",
                      off.empty() ? "reproduced" : "differs: strides " + list});
  }
  {
    const Row* r32 = find(4, 32);
    claims.push_back({"bank-stride-32-serializes"_claim, slow_text(r32),
                      r32 && within(r32->slowdown, 32, kTol)
                          ? "reproduced"
                          : "differs: outside " + tol_text + " of 32x"});
    const Row* r33 = find(4, 33);
    claims.push_back({"bank-stride-33-free"_claim, slow_text(r33),
                      r33 && within(r33->slowdown, 1, kTol)
                          ? "reproduced"
                          : "differs: outside " + tol_text + " of 1x"});
  }
  {
    std::string measured;
    bool all = true;
    for (std::uint32_t s : {2u, 4u, 8u}) {
      const Row* r = find(4, s);
      measured += (measured.empty() ? "" : "; ") + slow_text(r);
      all = all && r && within(r->slowdown, s, kTol);
    }
    claims.push_back({"bank-stride-2-4-8"_claim, measured,
                      all ? "reproduced" : "differs: outside " + tol_text + " of the stride"});
  }
  {
    // The model's rules for wider accesses (half- and quarter-warp phases), checked here too.
    std::vector<std::string> off;
    int n = 0;
    for (const Row& r : rows) {
      if (r.width == 4) continue;
      ++n;
      if (!within(r.slowdown, r.predicted_slowdown, kTol))
        off.push_back(std::to_string(r.width) + " B stride " + std::to_string(r.stride) + " (" +
                      fixed(r.slowdown, 1) + "x vs " + fixed(r.predicted_slowdown, 1) + "x)");
    }
    std::string list;
    for (std::size_t i = 0; i < off.size() && i < 6; ++i) list += (i ? ", " : "") + off[i];
    if (off.size() > 6) list += ", ...";
    claims.push_back({"memhier-wide-access-phases"_claim,
                      std::to_string(n - static_cast<int>(off.size())) + " of " +
                          std::to_string(n) + " (width, stride) pairs within " + tol_text,
                      off.empty() ? "reproduced" : "differs: " + list});
  }

  sec.paragraphs.push_back(
      "Every SM busy with blocks of " + std::to_string(kStrideBlock) +
      " threads; lane l of every warp "
      "reads element (base + l * stride) mod " +
      std::to_string(kStrideElems) +
      " of a shared array with "
      "4-, 8- or 16-byte ld.volatile.shared loads, " +
      std::to_string(kStrideUnroll) +
      " loads per pass "
      "from bases " +
      std::to_string(kStrideBaseStep) +
      " elements apart, folded into one word per thread. "
      "The slowdown is the time per load against stride 1 at the same width; beside it, the bank "
      "model's "
      "wavefronts for the same addresses, computed by the same index function as the kernel.");
  sec.tables.push_back(std::move(t));
  sec.tables.push_back(claims_table("shared-stride", claims));
  sec.charts.push_back(std::move(chart));
  return result;
}

}  // namespace

std::vector<RegistryEntry> shared_stride_probes() {
  RegistryEntry e;
  e.kind = "probe";
  e.family = "shared_stride";
  e.name = "shared-stride";
  e.technique =
      "lane l reads element l*stride of a shared array, strides 1..33 and 64, 4/8/16-byte "
      "accesses, beside the bank model's wavefronts";
  e.claim = {"002 §Bank conflict degree by stride",
             "degree gcd(s, 32); stride 32 is 32x slower, stride 33 free"};
  e.run_probe = run_shared_stride;
  return {e};
}

}  // namespace memhier::probe
