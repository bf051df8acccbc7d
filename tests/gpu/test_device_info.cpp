// What memhier reads of the device it runs on, beside what other tools name it by.
#include <regex>
#include <string>

#include "gpu_test_util.hpp"

namespace memhier::testing {
namespace {

// The PCI address in nvidia-smi's pci.bus_id form: scripts/record-results.sh picks the card's
// state among several GPUs by it.
TEST(DeviceInfo, ThePciAddressIsWrittenAsNvidiaSmiWritesIt) {
  MEMHIER_REQUIRE_GPU(dev);
  EXPECT_TRUE(
      std::regex_match(dev->pci_bus_id, std::regex("[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\\.0")))
      << dev->pci_bus_id;
}

}  // namespace
}  // namespace memhier::testing
