#include "memhier/model/gate.hpp"

namespace memhier::model {
namespace {

std::string arch(int cc_x10) {
  return std::to_string(cc_x10 / 10) + "." + std::to_string(cc_x10 % 10);
}

std::string kib(int bytes) {
  return std::to_string((bytes + 1023) / 1024) + " KiB";
}

}  // namespace

std::string kernel_declines(const std::string& what, const KernelNeeds& needs,
                            const KernelImage& image, const DeviceLimits& device) {
  const int cc = device.cc_major * 10 + device.cc_minor;
  const std::string card = "this card is sm_" + std::to_string(cc) + ".";
  if (needs.exact_arch && cc != needs.min_arch)
    return what + " needs sm_" + std::to_string(needs.min_arch) + "a (compute capability " +
           arch(needs.min_arch) + " exactly); " + card;
  if (cc < needs.min_arch)
    return what + " needs compute capability " + arch(needs.min_arch) + " or newer; " + card;
  if (!image.present)
    return what + " has no code for this card in this build (sm_" + std::to_string(cc) +
           "): rebuild with CUDAARCHS=" + std::to_string(cc) +
           " or with the default, which targets the card present when it configures.";
  if (image.ptx_arch < needs.min_arch)
    return what + " needs sm_" + std::to_string(needs.min_arch) +
           " features, but this build's code for this card was compiled for compute_" +
           std::to_string(image.ptx_arch) + ", where they do nothing: rebuild with CUDAARCHS=" +
           std::to_string(cc) + ".";
  const int smem = image.static_smem + needs.dynamic_smem;
  if (smem > device.smem_per_block_optin)
    return what + " needs " + kib(smem) + " of shared memory a block; this card allows " +
           kib(device.smem_per_block_optin) + ".";
  if (needs.cluster > 1 && device.max_cluster == 0)
    return what + " needs thread-block clusters; " + card.substr(0, card.size() - 1) +
           " and has none.";
  if (needs.cluster > device.max_cluster && device.max_cluster > 0)
    return what + " needs clusters of " + std::to_string(needs.cluster) +
           " blocks; this card allows " + std::to_string(device.max_cluster) + ".";
  return "";
}

}  // namespace memhier::model
