// The shared-memory configuration probes' measurements as plain numbers: a stencil whose
// tile is sized at run time above 48 KiB ("smem-dynamic"), and L1 re-reads under each
// carveout preference ("smem-carveout"). measure_* runs the GPU; present_* makes the section.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "memhier/core/device.hpp"
#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// One run-time tile size of the stencil.
struct DynamicTile {
  std::string name;              ///< "default-48k", "optin-half", "optin-max"
  int tile_outputs = 0;          ///< outputs per tile (floats)
  int smem_bytes = 0;            ///< dynamic shared memory per block, halo included
  int blocks_per_sm = 0;         ///< CUDA's occupancy for it
  int model_blocks_per_sm = -1;  ///< memhier's occupancy model; -1 without a model
  long long tiles = 0;           ///< tiles over the whole input
  double ms = NAN;               ///< median time
  double gbps = NAN;             ///< compulsory traffic (input and output once) over the time
  double max_rel_err = NAN;      ///< max |GPU - float64| over the samples / the reference's RMS
  double rel_l2_err = NAN;       ///< ||GPU - float64|| / ||float64|| over the samples
};

/// The "smem-dynamic" probe.
struct SmemDynamicResult {
  core::DeviceInfo device;
  std::vector<DynamicTile> tiles;  ///< ascending shared memory
  long long outputs = 0;           ///< stencil outputs
  std::size_t samples = 0;         ///< outputs checked against float64
  int taps = 0, block_threads = 0, halo = 0;
  int static_smem_bytes = 0;
  int default_limit_bytes = 0;    ///< the dynamic budget without the opt-in
  bool has_model = false;         ///< memhier's model knows this compute capability
  bool optin_tested = false;      ///< the largest tile needs the opt-in
  int no_optin_limit_bytes = -1;  ///< the kernel's limit before the opt-in (when tested)
  bool optin_ran = false;         ///< a tile above the default budget ran and was verified
};

/// One carveout preference.
struct CarveoutSetting {
  int pct = -1;  ///< -1: the driver's default
  int blocks_per_sm = 0;
  int smem_kb = -1, l1_kb = -1;  ///< the model's split; -1 when unknown
  std::string fits = "n/a";      ///< the window against the model's L1: yes, marginal, no
  double ms = NAN, gbps = NAN;
};

/// The "smem-carveout" probe: 0, 25, 50, 75, 100% and the default, in that order.
struct SmemCarveoutResult {
  core::DeviceInfo device;
  std::vector<CarveoutSetting> settings;
  int pool_kb = 0;    ///< unified L1 + shared per SM (model, or the shared maximum)
  int window_kb = 0;  ///< the per-SM window re-read
  int passes = 0;
  int block_threads = 0;
  std::size_t dyn_smem_bytes = 0;
  bool has_model = false;
};

/// Runs the stencil at the default, half and full opt-in tile, verified against float64.
SmemDynamicResult measure_smem_dynamic(Context& ctx);

/// The "smem-dynamic" section and the summary's shared-memory size.
Result present_smem_dynamic(const SmemDynamicResult& m);

/// Re-reads a per-SM window through L1 at each carveout preference.
SmemCarveoutResult measure_smem_carveout(Context& ctx);

/// The "smem-carveout" section and the summary's L1 size.
Result present_smem_carveout(const SmemCarveoutResult& m);

}  // namespace memhier::probe
