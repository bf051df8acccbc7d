// Whether a compiled kernel can run on a card, decided from data: what the build put in the
// program for this card (cudaFuncGetAttributes) and what the card allows. Pure C++, so the
// rules are tested without a GPU; core/gate.hpp reads the two from the runtime.
#pragma once

#include <string>

namespace memhier::model {

/// What a program holds of one kernel for one device, as the runtime reports it.
struct KernelImage {
  bool present = false;  ///< code this device can load (its own SASS, or PTX it can compile)
  int ptx_arch = 0;      ///< the virtual architecture the code was compiled for: 90 = compute_90
  int binary_arch = 0;   ///< the machine code that runs: 90 = sm_90
  int static_smem = 0;   ///< static shared memory per block, bytes
};

/// What a device allows, from its properties.
struct DeviceLimits {
  int cc_major = 0, cc_minor = 0;
  int smem_per_block_optin = 0;  ///< the most shared memory one block may have, bytes
  int max_cluster = 0;           ///< blocks in a portable thread-block cluster; 0: none
};

/// What a kernel's code and launch need of the card.
struct KernelNeeds {
  /// Features of this compute capability x 10 or newer (90: clusters, TMA, bulk copies): the
  /// code must have been compiled for it, else those features compiled to nothing.
  int min_arch = 0;
  /// Architecture-specific code (sm_90a's wgmma, setmaxnreg): runs on min_arch's own
  /// compute capability alone.
  bool exact_arch = false;
  int dynamic_smem = 0;  ///< dynamic shared memory per block, bytes
  int cluster = 0;       ///< blocks per cluster (0 or 1: no cluster)
};

/// One sentence saying why `what` cannot run on this device, or "" when it can.
std::string kernel_declines(const std::string& what, const KernelNeeds& needs,
                            const KernelImage& image, const DeviceLimits& device);

}  // namespace memhier::model
