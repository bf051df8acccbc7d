// Predictions for the elementwise ladder (see predict.hpp). Every thread's accesses are
// replayed warp by warp with the kernels' own functions (dispatch, split_for, blocks_for,
// flat_index, tile_vec_index, aos_word, soa_word).
//
// Bounds checks: the SASS (sm_90, nvcc 13.0) predicates most of them (@!P LDG/STG) and
// branches around some (float4 axpy, the partial tile of grid_stride axpy); an instruction
// whose lanes are all off counts nothing either way (kernels/predict.hpp), so each warp
// instruction is recorded with the lanes whose check passes.
#include "kernels/elementwise/predict.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "kernels/elementwise/index.cuh"
#include "kernels/predict.hpp"

namespace memhier::elementwise::detail {
namespace {

using kernels::predict::buffer_base;
using kernels::predict::Recorder;
using kernels::predict::warp_access;

constexpr std::uint32_t kAllLanes = 0xffffffffu;
constexpr int kWarpsPerBlock = kBlock / model::kWarpSize;

/// The two arrays of a copy/axpy case and the operation.
struct Arrays {
  std::uint64_t x = 0, y = 0;  ///< byte addresses of x[0] and y[0]
  bool axpy = false;
};

/// One instruction per warp over the threads t of a warp: `on(t)` says whether thread t
/// accesses, `element(t)` which element (in units of `width` bytes from `base`).
/// Names the warp of grid thread t0 (a multiple of 32) for the stream: block t0 / kBlock.
void at_thread(Recorder& rec, std::size_t t0) {
  rec.at(t0 / kBlock, static_cast<int>(t0 % kBlock) / model::kWarpSize);
}

template <class On, class Element>
void per_warp(Recorder& rec, std::size_t t0, std::uint64_t base, int width, bool store, On on,
              Element element) {
  rec.global(warp_access(kAllLanes, width, store, [&](int lane, std::uint64_t* a) {
    const std::size_t t = t0 + static_cast<std::size_t>(lane);
    if (!on(t)) return false;
    *a = base + static_cast<std::uint64_t>(width) * element(t);
    return true;
  }));
}

/// scalar_element (ops.cuh) for the threads of one warp: LDG.E x, LDG.E y (axpy), STG.E y.
template <class On, class Element>
void scalar_elements(Recorder& rec, const Arrays& a, std::size_t t0, On on, Element element) {
  per_warp(rec, t0, a.x, 4, false, on, element);
  if (a.axpy) per_warp(rec, t0, a.y, 4, false, on, element);
  per_warp(rec, t0, a.y, 4, true, on, element);
}

/// split_edges (ops.cuh) for one warp of threads starting at grid thread t0: the scalar
/// head, then the scalar tail (each its own LDG/STG sequence in the SASS).
void split_edges(Recorder& rec, const Arrays& a, const Split& sp, std::size_t t0) {
  scalar_elements(
      rec, a, t0, [&](std::size_t t) { return t < sp.head; }, [](std::size_t t) { return t; });
  scalar_elements(
      rec, a, t0, [&](std::size_t t) { return t < sp.n - sp.tail_begin; },
      [&](std::size_t t) { return sp.tail_begin + t; });
}

// tile_pass<Op, kUnroll, C> (ops.cuh) of the tile at vector `base`, for every warp of the
// block: kUnroll LDG.E.128 of x, kUnroll of y (axpy), kUnroll STG.E.128 of y; the full
// tile unchecked, the last partial tile with each access under i < nvec.
// `block`: the tile's number, its block in the stream's launch order.
void tile_pass(Recorder& rec, const Arrays& a, const Split& sp, std::size_t base,
               std::size_t block) {
  const std::uint64_t xv = a.x + 4 * sp.head, yv = a.y + 4 * sp.head;
  for (int w = 0; w < kWarpsPerBlock; ++w) {
    rec.at(block, w);
    const std::size_t t0 = static_cast<std::size_t>(w) * model::kWarpSize;
    for (int pass = 0; pass < (a.axpy ? 3 : 2); ++pass) {
      const bool store = pass == (a.axpy ? 2 : 1);
      const std::uint64_t array = pass == 0 ? xv : yv;
      for (int k = 0; k < kUnroll; ++k) {
        const auto element = [&](std::size_t t) {
          return tile_vec_index(base, k, static_cast<unsigned>(t), kBlock);
        };
        per_warp(
            rec, t0, array, 16, store, [&](std::size_t t) { return element(t) < sp.nvec; },
            element);
      }
    }
  }
}

// float4_unroll4_kernel (float4_unroll4.cu): block b does the tile at b * kUnroll * kBlock
// when it starts below nvec, then split_edges. grid_stride_kernel and its streaming twin
// (grid_stride.cu, grid_stride_streaming.cu; .EF loads and stores count alike): each tile
// once, by block tile % grid, the same instructions whatever the grid (which comes from
// the device's occupancy); split_edges has lanes on only in block 0, which every grid has.
void tiled(Recorder& rec, const Arrays& a, const Split& sp, bool grid_stride) {
  const std::size_t tile = static_cast<std::size_t>(kUnroll) * kBlock;
  const std::size_t tiles = (sp.nvec + tile - 1) / tile;
  for (std::size_t t = 0; t < tiles; ++t) tile_pass(rec, a, sp, t * tile, t);
  const std::size_t blocks =
      grid_stride ? std::max<std::size_t>(1, tiles) : blocks_for(tiles * kBlock);
  for (std::size_t b = 0; b < blocks; ++b)
    for (int w = 0; w < kWarpsPerBlock; ++w) {
      rec.at(b, w);
      split_edges(rec, a, sp,
                  flat_index(static_cast<unsigned>(b), kBlock,
                             static_cast<unsigned>(w * model::kWarpSize)));
    }
}

// The replays a table line (elementwise_rungs.inc) names for a copy/axpy kernel: each
// records every warp's global loads and stores of that kernel on n elements of a (sp: the
// split for the kernel's width, in floats).
namespace replay {

using Replay = void (*)(Recorder& rec, const Arrays& a, const Split& sp, std::size_t n, int width);
constexpr Replay none = nullptr;  ///< a kernel with no prediction

// scalar_kernel (scalar.cu): SASS @P0 EXIT; LDG.E.CONSTANT x; [LDG.E y]; STG.E y.
void scalar(Recorder& rec, const Arrays& a, const Split&, std::size_t n, int) {
  const std::size_t threads = std::size_t{blocks_for(n)} * kBlock;
  for (std::size_t t0 = 0; t0 < threads; t0 += model::kWarpSize) {
    at_thread(rec, t0);
    scalar_elements(
        rec, a, t0, [&](std::size_t t) { return t < n; }, [](std::size_t t) { return t; });
  }
}

// float2_kernel / float4_kernel (float2.cu, float4.cu): one vector per thread t < nvec,
// LDG.E.64 / LDG.E.128 of x (and y for axpy) and STG.E.64 / .128 of y, at x + head and
// y + head; then split_edges.
void one_vector(Recorder& rec, const Arrays& a, const Split& sp, std::size_t, int floats) {
  const int width = 4 * floats;
  const std::uint64_t xv = a.x + 4 * sp.head, yv = a.y + 4 * sp.head;
  const std::size_t threads = std::size_t{blocks_for(sp.nvec)} * kBlock;
  const auto on = [&](std::size_t t) { return t < sp.nvec; };
  const auto element = [](std::size_t t) { return t; };
  for (std::size_t t0 = 0; t0 < threads; t0 += model::kWarpSize) {
    at_thread(rec, t0);
    per_warp(rec, t0, xv, width, false, on, element);
    if (a.axpy) per_warp(rec, t0, yv, width, false, on, element);
    per_warp(rec, t0, yv, width, true, on, element);
    split_edges(rec, a, sp, t0);
  }
}

// float4_unroll4_kernel: one block per tile.
void block_tiles(Recorder& rec, const Arrays& a, const Split& sp, std::size_t, int) {
  tiled(rec, a, sp, false);
}

// grid_stride_kernel and grid_stride_streaming_kernel: a grid looping over the tiles.
void grid_stride_tiles(Recorder& rec, const Arrays& a, const Split& sp, std::size_t, int) {
  tiled(rec, a, sp, true);
}

}  // namespace replay

/// A copy/axpy kernel's replay and the floats per access it is replayed with.
struct KernelModel {
  replay::Replay replay;
  int width;
};

/// Each kernel's model, in Kernel order (the table's MEMHIER_RUNG lines).
constexpr KernelModel kModels[] = {
#define MEMHIER_RUNG(name, width, launch, symbol, prediction, ...) {replay::prediction, width},
#define MEMHIER_BENCH_RUNG(...)
#define MEMHIER_BEST(...)
#include "memhier/kernels/elementwise_rungs.inc"
};

}  // namespace

bool has_prediction(const std::string& variant) {
  const std::optional<Variant> v = variant_from_string(variant);
  // The bench-only lines and best run kernels chosen by name below (predict_stream,
  // predict_particles). A rung's Variant and its Kernel share the table position.
  if (!v || *v == Variant::best) return true;
  return kModels[static_cast<int>(*v)].replay != replay::none;
}

namespace {

// The kernels `variant` runs for a copy/axpy of n elements, replayed into `rec`.
void replay_stream(Recorder& rec, const std::string& variant, Op op, std::size_t n) {
  rec.launch(kBlock, 0);
  Variant v = Variant::float4;
  std::size_t ox = 0, oy = 0;  // as the case runs them (family.cu, StreamCase::run)
  if (variant == "float4_misaligned_base") {
    ox = 1, oy = 1;
  } else if (variant == "float4_mismatched_alignment") {
    ox = 1, oy = 0;
  } else {
    const std::optional<Variant> e = variant_from_string(variant);
    if (!e) return;  // particles_* decline copy and axpy: nothing runs
    v = *e;
  }
  Arrays a;
  a.x = buffer_base(0) + 4 * ox;
  a.y = buffer_base(1) + 4 * oy;
  a.axpy = op == Op::axpy;
  const Dispatch d = dispatch(v, a.x, a.y, n);
  const KernelModel& m = kModels[static_cast<int>(d.kernel)];
  if (m.replay == replay::none)
    throw std::invalid_argument("elementwise variant " + variant +
                                " runs a kernel with no "
                                "prediction.");
  m.replay(rec, a, d.split, n, m.width);
}

// The kernel `variant` runs for n particles, replayed into `rec`.
void replay_particles(Recorder& rec, const std::string& variant, std::size_t n) {
  rec.launch(kBlock, 0);
  const bool aos = variant == "particles_aos";
  if (!aos && variant != "particles_soa" && variant != "best") return;
  const std::size_t threads = std::size_t{blocks_for(n)} * kBlock;
  const auto on = [&](std::size_t i) { return i < n; };
  if (aos) {
    // particles_aos_kernel: @P0 EXIT; six LDG.E (the fields at +4, +16, +12, +0, +8, +20;
    // order does not matter), three STG.E (x, y, z).
    const std::uint64_t p = buffer_base(0);
    for (std::size_t t0 = 0; t0 < threads; t0 += model::kWarpSize) {
      at_thread(rec, t0);
      for (int f = 0; f < kParticleFloats; ++f)
        per_warp(rec, t0, p, 4, false, on, [&](std::size_t i) { return aos_word(i, f); });
      for (int f = 0; f < 3; ++f)
        per_warp(rec, t0, p, 4, true, on, [&](std::size_t i) { return aos_word(i, f); });
    }
  } else {
    // particles_soa_kernel: @P0 EXIT; six LDG.E (x, y, z, vx, vy, vz), three STG.E.
    for (std::size_t t0 = 0; t0 < threads; t0 += model::kWarpSize) {
      at_thread(rec, t0);
      for (int f = 0; f < kParticleFloats; ++f)
        per_warp(rec, t0, buffer_base(f), 4, false, on, [](std::size_t i) { return soa_word(i); });
      for (int f = 0; f < 3; ++f)
        per_warp(rec, t0, buffer_base(f), 4, true, on, [](std::size_t i) { return soa_word(i); });
    }
  }
}

}  // namespace

model::AccessCounts predict_stream(const std::string& variant, Op op, std::size_t n) {
  Recorder rec;
  replay_stream(rec, variant, op, n);
  return rec.counts();
}

model::AccessCounts predict_particles(const std::string& variant, std::size_t n) {
  Recorder rec;
  replay_particles(rec, variant, n);
  return rec.counts();
}

void stream_stream(const std::string& variant, Op op, std::size_t n, model::AccessSink& sink) {
  Recorder rec(&sink);
  replay_stream(rec, variant, op, n);
}

void stream_particles(const std::string& variant, std::size_t n, model::AccessSink& sink) {
  Recorder rec(&sink);
  replay_particles(rec, variant, n);
}

}  // namespace memhier::elementwise::detail
