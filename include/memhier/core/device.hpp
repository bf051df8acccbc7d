// What the CUDA runtime says about the machine: device properties and versions.
#pragma once

#include <optional>
#include <string>

namespace memhier::core {

/// Properties of one CUDA device, read through the runtime API.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;          ///< maximum SM clock
  int mem_clock_khz = 0;         ///< peak memory clock
  int mem_bus_width_bits = 0;
  std::size_t global_mem_bytes = 0;
  int l2_bytes = 0;
  int persisting_l2_max_bytes = 0;
  int smem_per_block = 0;
  int smem_per_block_optin = 0;
  int smem_per_sm = 0;
  int regs_per_sm = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  bool ecc = false;
  /// The PCI address as nvidia-smi's pci.bus_id writes it ("00000000:1B:00.0"), so that a
  /// script can ask nvidia-smi about the card memhier measured among several.
  std::string pci_bus_id;

  /// 2 × memory clock × bus width: the datasheet DRAM bandwidth, GB/s.
  double peak_dram_gbps() const;
};

/// Driver and runtime versions as "13.0"; driver empty when no driver is loaded.
struct Versions {
  std::string runtime;
  std::string driver;
  /// The kernel module's release ("580.159.04") where Linux states it, else "?": the CUDA
  /// version a driver supports stays the same across most driver updates.
  std::string driver_release;
};

Versions cuda_versions();

/// The device `ordinal`, or nullopt with `why` set to one sentence (no driver, no
/// device, ordinal out of range).
std::optional<DeviceInfo> query_device(int ordinal, std::string* why);

/// Creates the device's context now, so that a device that refuses one (exclusive-process
/// mode held by another process, prohibited compute mode) is told apart from a failure
/// later: false with `why` set to one sentence for the user.
bool open_context(const DeviceInfo& device, std::string* why);

}  // namespace memhier::core
