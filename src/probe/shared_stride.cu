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
#include "memhier/claims/catalogue.hpp"
#include "memhier/model/access.hpp"
#include "memhier/probe/shared_stride.hpp"

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

// One load width's sweep over the strides; each launch lasts about `target_ms`.
template <typename Kernel>
void sweep_width(SharedStrideResult& m, Kernel kernel, int grid, int width,
                 const std::vector<std::uint32_t>& strides, const std::uint32_t* init,
                 std::uint32_t* out, double target_ms, Context& ctx) {
  ctx.progress("shared-stride: " + std::to_string(width) + "-byte accesses");
  auto launch = [&](cudaStream_t s, std::uint32_t stride, int passes) {
    kernel<<<grid, kStrideBlock, 0, s>>>(init, out, stride, passes);
    MEMHIER_CHECK_LAUNCH();
  };
  const Prediction p1 = predict(width, 1);
  const int passes1 = calibrate_passes(
      "shared-stride: calibrate", [&](cudaStream_t s, int passes) { launch(s, 1, passes); },
      target_ms);
  double ms_per_pass1 = NAN;
  for (std::uint32_t stride : strides) {
    StridePoint r;
    r.width = width;
    r.stride = stride;
    const Prediction pred = predict(width, stride);
    r.predicted_wavefronts = pred.wavefronts;
    r.predicted_degree = pred.degree;
    r.predicted_slowdown = pred.wavefronts / p1.wavefronts;
    // Fewer passes where the model expects a conflict: every launch lasts about as long.
    const int passes =
        std::max(2, static_cast<int>(std::lround(passes1 / std::max(1.0, r.predicted_slowdown))));
    core::TimingOptions o;
    o.name = "shared-stride";
    o.warmup = 1;
    o.min_reps = ctx.quick ? 3 : 5;
    o.max_reps = 50;
    o.min_total_ms = ctx.quick ? 0.3 : 1.5;
    o = fewest_if_smallest(ctx, o);
    const core::Timing t = core::time_it([&](cudaStream_t s) { launch(s, stride, passes); }, o);
    r.ms_per_pass = t.median_ms / passes;
    const double bytes = static_cast<double>(grid) * kStrideBlock * passes * kStrideUnroll * width;
    r.gbps = gbps(bytes, t.median_ms);
    if (stride == 1) ms_per_pass1 = r.ms_per_pass;
    r.slowdown = r.ms_per_pass / ms_per_pass1;
    m.points.push_back(r);
  }
}

Result run_shared_stride(Context& ctx) {
  return present_shared_stride(measure_shared_stride(ctx));
}

}  // namespace

SharedStrideResult measure_shared_stride(Context& ctx) {
  SharedStrideResult m;
  m.tolerance =
      claims::band(claims::ClaimId::bank_degree_gcd).amount / 100;  // the catalogue's ±35 %
  m.block_threads = kStrideBlock;
  m.loads_per_pass = kStrideUnroll;
  m.elements = kStrideElems;
  m.base_step = kStrideBaseStep;
  std::vector<std::uint32_t> strides;
  if (ctx.quick) {
    strides = {1, 2, 4, 8, 16, 32, 33};
  } else {
    for (std::uint32_t s = 1; s <= 33; ++s) strides.push_back(s);
    strides.push_back(64);
  }
  const double target_ms = ctx.quick ? 0.1 : 0.3;

  core::DeviceBuffer<std::uint32_t> init(kStrideElems * 16 / 4);
  fill_random_bits(init.data(), init.size(), 606u);
  const int grid4 = full_grid(shared_stride_kernel<4>, kStrideBlock, ctx);
  const int grid8 = full_grid(shared_stride_kernel<8>, kStrideBlock, ctx);
  const int grid16 = full_grid(shared_stride_kernel<16>, kStrideBlock, ctx);
  core::DeviceBuffer<std::uint32_t> out(static_cast<std::size_t>(std::max({grid4, grid8, grid16})) *
                                        kStrideBlock);
  sweep_width(m, shared_stride_kernel<4>, grid4, 4, strides, init.data(), out.data(), target_ms,
              ctx);
  sweep_width(m, shared_stride_kernel<8>, grid8, 8, strides, init.data(), out.data(), target_ms,
              ctx);
  sweep_width(m, shared_stride_kernel<16>, grid16, 16, strides, init.data(), out.data(), target_ms,
              ctx);
  return m;
}

std::vector<registry::Entry> shared_stride_probes() {
  registry::Entry e;
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
