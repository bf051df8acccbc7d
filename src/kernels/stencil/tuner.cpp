// The stencil's `best` through the one tuner (kernels/tuning/tuner.hpp): a configuration of
// the best rung (stencil_rungs.inc's MEMHIER_TUNED lines) per card and shape (rows, cols, K,
// the bases' 16-byte alignment), kept in the tuning cache every tuned family shares. The
// model (memhier/kernels/stencil_tuning.hpp) drops what this card cannot hold and orders the
// rest; they are timed on the caller's input into a scratch output.
#include "kernels/tuning/tuner.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/stencil/variants.hpp"
#include "kernels/tuning/candidate_timer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/kernels/stencil.hpp"
#include "memhier/kernels/stencil_tuning.hpp"
#include "memhier/kernels/tuning_cache.hpp"

namespace memhier::stencil {
namespace detail {

std::vector<Variant> tuned_variants() {
  return {
#define MEMHIER_RUNG(...)
#define MEMHIER_BEST(...)
#define MEMHIER_TUNED(name, ...) Variant::name,
#include "memhier/kernels/stencil_rungs.inc"
  };
}

bool tuned_config(Variant v, tuning::Config* out) {
  switch (v) {
#define MEMHIER_RUNG(...)
#define MEMHIER_BEST(...)
#define MEMHIER_TUNED(name, warps, rows_per_thread, min_blocks, stages, fill, ...)         \
  case Variant::name:                                                                      \
    *out = tuning::Config{warps, rows_per_thread, min_blocks, stages, tuning::Fill::fill}; \
    return true;
#include "memhier/kernels/stencil_rungs.inc"
    default:
      return false;
  }
}

namespace {

/// A round figure for a loaded DRAM access (HBM and GDDR alike lie within a factor of ~1.5 of
/// it): with the bandwidth from the memory clock and bus, the bytes an SM must keep in flight.
constexpr double kLoadedLatencySeconds = 600e-9;

using memhier::tuning::kWarmExtent;

void launch_variant(Variant v, const Args& a) {
  switch (v) {
#define MEMHIER_RUNG(...)
#define MEMHIER_BEST(...)
#define MEMHIER_TUNED(name, ...) \
  case Variant::name:            \
    return run_##name(a);
#include "memhier/kernels/stencil_rungs.inc"
    default:
      throw std::invalid_argument("not a configuration of the stencil's best rung.");
  }
}

struct StencilTuning {
  static constexpr const char* kFamily = "stencil";
  using Problem = Args;
  using Choice = Variant;
  struct Facts {
    tuning::Card card;
    std::vector<int> blocks[3];  ///< per K = 3, 5, 7: each candidate's resident blocks per SM
  };

  static const std::vector<Variant>& candidates() {
    static const std::vector<Variant> all = tuned_variants();
    return all;
  }
  static std::string name(Variant v) { return to_string(v); }
  static bool parse(const std::string& s, Variant* v) { return variant_from_string(s, v); }
  static Variant untuned(const Args& a) { return best_variant_for(a.k); }
  static bool worth_tuning(const Args& a) {
    return static_cast<double>(a.rows) * a.cols >= tuning::kMinTunedOutputs;
  }
  static std::string shape_text(const Args& a) {
    return tuning::shape_text(
        a.rows, a.cols, a.k,
        memhier::tuning::alignment_class(reinterpret_cast<std::uintptr_t>(a.in)),
        memhier::tuning::alignment_class(reinterpret_cast<std::uintptr_t>(a.out)));
  }
  static std::string tuned_on(const Args& a) {
    return std::to_string(a.rows) + "x" + std::to_string(a.cols) + ":" + std::to_string(a.k);
  }

  static Facts facts(int dev, const std::vector<Variant>& all) {
    Facts f;
    MEMHIER_CUDA(cudaDeviceGetAttribute(&f.card.sms, cudaDevAttrMultiProcessorCount, dev));
    MEMHIER_CUDA(cudaDeviceGetAttribute(&f.card.smem_per_block,
                                        cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    int clock_khz = 0, bus_bits = 0;
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) == cudaSuccess &&
        clock_khz > 0 && bus_bits > 0 && f.card.sms > 0) {
      const double bytes_per_s = 2.0 * clock_khz * 1e3 * bus_bits / 8.0;  // double data rate
      f.card.inflight_needed_per_sm = bytes_per_s * kLoadedLatencySeconds / f.card.sms;
    }
    cudaGetLastError();  // an attribute this driver lacks only leaves its term out
    for (int ki = 0; ki < 3; ++ki) {
      const int k = 3 + 2 * ki;
      for (Variant v : all) {
        tuning::Config c;
        int blocks = 0;
        const void* symbol = nullptr;
        switch (v) {
#define MEMHIER_RUNG(...)
#define MEMHIER_BEST(...)
#define MEMHIER_TUNED(name, ...) \
  case Variant::name:            \
    symbol = name##_symbol(k);   \
    break;
#include "memhier/kernels/stencil_rungs.inc"
          default:
            break;
        }
        try {
          cudaFuncAttributes attr{};
          if (symbol && tuned_config(v, &c) &&
              cudaFuncGetAttributes(&attr, symbol) == cudaSuccess) {
            if (c.needs_tma()) require_tma(symbol, c.smem_bytes(k), to_string(v));
            core::prepare_dynamic_smem(symbol, c.smem_bytes(k), to_string(v));
            // As the persistent launch sets it (vec4_async.cu): shared memory bounds its grid.
            if (c.stages > 1)
              MEMHIER_CUDA(cudaFuncSetAttribute(symbol,
                                                cudaFuncAttributePreferredSharedMemoryCarveout,
                                                cudaSharedmemCarveoutMaxShared));
            if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &blocks, symbol, c.threads(), static_cast<std::size_t>(c.smem_bytes(k))) !=
                cudaSuccess)
              blocks = 0;
          }
        } catch (const std::invalid_argument&) {
          blocks = 0;  // more shared memory than this device allows: it cannot run here
        } catch (const core::CudaError&) {
          blocks = 0;
        }
        cudaGetLastError();  // a kernel without code for this device is not an error here
        f.blocks[ki].push_back(blocks);
      }
    }
    return f;
  }

  static std::vector<std::size_t> order(const Args& a, const Facts& f) {
    std::vector<tuning::Config> configs;
    for (Variant v : candidates()) {
      tuning::Config c;
      tuned_config(v, &c);
      configs.push_back(c);
    }
    // Every configuration the card runs and the model does not rule out is timed: the model
    // does not see how a fill's instructions compete with a 7x7 filter's FMAs.
    return tuning::preselect(a.rows, a.cols, a.k, f.card, configs, f.blocks[(a.k - 3) / 2],
                             configs.size());
  }

  static memhier::tuning::Timed time(const Args& a, const std::vector<Variant>& order,
                                     double first_ms, double second_ms, cudaStream_t stream) {
    // The scratch output keeps the caller's offset from a 16-byte boundary, so each candidate
    // takes the same vector or scalar store path it would take on the caller's buffer.
    const std::size_t offset = reinterpret_cast<std::uintptr_t>(a.out) % 16;
    std::vector<memhier::tuning::ScratchLaunch> warm, full;
    for (Variant v : order) {
      const auto make = [&a, v, offset](bool corner) {
        return [&a, v, offset, corner](void* scratch, cudaStream_t st) {
          Args q = a;
          q.out = reinterpret_cast<float*>(static_cast<char*>(scratch) + offset);
          q.stream = st;
          if (corner) {  // a smaller image over the first rows*cols inputs, any pitch is valid
            q.rows = std::min(q.rows, kWarmExtent);
            q.cols = std::min(q.cols, kWarmExtent);
          }
          launch_variant(v, q);
        };
      };
      warm.push_back(make(true));
      full.push_back(make(false));
    }
    const std::size_t bytes =
        static_cast<std::size_t>(a.rows) * static_cast<std::size_t>(a.cols) * sizeof(float) + 16;
    return memhier::tuning::time_candidates(bytes, warm, full, first_ms, second_ms, stream);
  }
};

memhier::tuning::Tuner<StencilTuning>& tuner() {
  static auto* t = new memhier::tuning::Tuner<StencilTuning>();  // never destroyed
  return *t;
}

}  // namespace

Variant choose_best(const Args& a) {
  return tuner().choose(a, a.stream).choice;
}

memhier::tuning::Outcome tune_best(const Args& a, bool retune) {
  return tuner().outcome(a, a.stream, retune);
}

std::string cached_best(int rows, int cols, int k) {
  Args a;
  a.rows = rows;
  a.cols = cols;
  a.k = k;
  if (!StencilTuning::worth_tuning(a)) return to_string(best_variant_for(k));
  // A dense image from cudaMalloc'd bases, as the bench's case has it.
  const std::string known = tuner().known(tuning::shape_text(rows, cols, k, 256, 256));
  return known.empty() ? to_string(best_variant_for(k)) : known;
}

}  // namespace detail

void forget_tuning() {
  detail::tuner().forget();
}

}  // namespace memhier::stencil
