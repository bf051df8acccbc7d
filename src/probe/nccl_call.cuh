// NCCL for the probes that run it (collectives, allreduce): checked calls, and one
// communicator per GPU made with NVLink multicast off. Included only where MEMHIER_HAVE_NCCL
// is defined (src/CMakeLists.txt).
#pragma once

#include <nccl.h>

#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace memhier::probe {

inline void check_nccl(ncclResult_t r, const char* call, const char* file, int line) {
  if (r == ncclSuccess) return;
  throw std::runtime_error(std::string(call) + " failed: " + ncclGetErrorString(r) + " (" + file +
                           ":" + std::to_string(line) + ")");
}
#define MEMHIER_NCCL(call) ::memhier::probe::check_nccl((call), #call, __FILE__, __LINE__)

/// One communicator for each of GPUs 0..n-1 in this process (ncclCommInitAll). NVLink
/// multicast stays off whatever the environment says (it can take a shared host's GPUs out of
/// service): NCCL_NVLS_ENABLE=0 is set first, and what the user had is kept in `nvls_was`.
inline std::vector<ncclComm_t> nccl_comms(int n, std::string* nvls_was) {
  if (const char* was = std::getenv("NCCL_NVLS_ENABLE")) *nvls_was = was;
  if (setenv("NCCL_NVLS_ENABLE", "0", 1) != 0)
    throw std::runtime_error("cannot set NCCL_NVLS_ENABLE=0 in this process's environment");
  std::vector<int> devs(n);
  std::iota(devs.begin(), devs.end(), 0);
  std::vector<ncclComm_t> comms(n, nullptr);
  MEMHIER_NCCL(ncclCommInitAll(comms.data(), n, devs.data()));
  return comms;
}

}  // namespace memhier::probe
