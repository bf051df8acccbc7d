// The registers probe's measurement as plain numbers: one register-hungry body built under
// several register caps, with each build's registers, local memory, occupancy (memhier's
// model beside the CUDA API), time and output error. measure_registers runs the GPU;
// present_registers makes the report section.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "memhier/core/device.hpp"
#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// One build of the body.
struct RegisterBuild {
  std::string name;           ///< "no bound", "__launch_bounds__(256,4)", "__maxnreg__(64)"
  int min_blocks = 0;         ///< __launch_bounds__ minimum blocks per SM, 0 when none
  int max_regs = 0;           ///< __maxnreg__ cap, 0 when none
  int regs = 0;               ///< registers per thread (cudaFuncGetAttributes)
  int local_bytes = 0;        ///< local memory per thread: the stack frame, spills included
  int static_smem = 0;        ///< static shared memory per block
  int model_blocks = -1;      ///< memhier's occupancy model; -1 without a table or when rejected
  std::string model_limiter;  ///< what limits the model's blocks; empty when none
  int cuda_blocks = 0;        ///< cudaOccupancyMaxActiveBlocksPerMultiprocessor
  double occupancy_pct = 0;   ///< resident threads over the SM's maximum
  double ms = NAN;            ///< median time
  double rel_err = NAN;       ///< rel. L2 error of the output against the unbounded build
};

/// The "registers" probe.
struct RegistersResult {
  core::DeviceInfo device;
  std::vector<RegisterBuild> builds;  ///< the unbounded build first
  bool has_model = false;             ///< memhier's model knows this compute capability
  bool has_maxnreg = false;           ///< this nvcc built the __maxnreg__ variants
  std::string model_note;             ///< why the model rejected a build; empty when none
  std::size_t threads = 0;            ///< threads per launch
  int iters = 0;                      ///< loop iterations per thread
  int live_floats = 0;                ///< floats each thread keeps live
  int block_threads = 0;
  int max_threads_per_sm = 0;
};

/// Builds' attributes, occupancy, output check and time on the current device.
RegistersResult measure_registers(Context& ctx);

/// The "registers" section: table, chart, claims and the summary's register file.
Result present_registers(const RegistersResult& m);

}  // namespace memhier::probe
