#include <cuda_runtime.h>

#include <cstdio>
#include <fstream>

#include "memhier/core/device.hpp"

namespace memhier::core {
namespace {

std::string version_string(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int attribute(cudaDeviceAttr attr, int dev) {
  int v = 0;
  // An attribute the driver does not know reads as 0 rather than failing the query.
  if (cudaDeviceGetAttribute(&v, attr, dev) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return v;
}

std::string driver_release() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string word;
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 ...": the first
  // word that starts with a digit.
  while (in >> word)
    if (!word.empty() && word[0] >= '0' && word[0] <= '9') return word;
  return "?";
}

}  // namespace

double DeviceInfo::peak_dram_gbps() const {
  return 2.0 * mem_clock_khz * 1e3 * (mem_bus_width_bits / 8.0) / 1e9;
}

Versions cuda_versions() {
  Versions v;
  int rt = 0, drv = 0;
  if (cudaRuntimeGetVersion(&rt) == cudaSuccess) v.runtime = version_string(rt);
  if (cudaDriverGetVersion(&drv) == cudaSuccess && drv > 0) v.driver = version_string(drv);
  v.driver_release = driver_release();
  return v;
}

std::optional<DeviceInfo> query_device(int ordinal, std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    int driver = 0;
    cudaDriverGetVersion(&driver);
    if (why) {
      if (err == cudaSuccess || err == cudaErrorNoDevice)
        *why = "no CUDA device is present on this machine.";
      else if (driver == 0)
        *why = "no NVIDIA driver is loaded, so this machine has no usable GPU.";
      else
        *why = std::string("no usable CUDA device (") + cudaGetErrorString(err) + ").";
    }
    cudaGetLastError();
    return std::nullopt;
  }
  if (ordinal < 0 || ordinal >= count) {
    if (why)
      *why = "device " + std::to_string(ordinal) + " does not exist (this machine has " +
             std::to_string(count) + ").";
    return std::nullopt;
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, ordinal) != cudaSuccess) {
    if (why) *why = std::string("cannot read device properties: ") +
                    cudaGetErrorString(cudaGetLastError()) + ".";
    return std::nullopt;
  }
  DeviceInfo d;
  d.ordinal = ordinal;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.sm_clock_khz = attribute(cudaDevAttrClockRate, ordinal);
  d.mem_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
  d.mem_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
  d.global_mem_bytes = p.totalGlobalMem;
  d.l2_bytes = p.l2CacheSize;
  d.persisting_l2_max_bytes = p.persistingL2CacheMaxSize;
  d.smem_per_block = static_cast<int>(p.sharedMemPerBlock);
  d.smem_per_block_optin = static_cast<int>(p.sharedMemPerBlockOptin);
  d.smem_per_sm = static_cast<int>(p.sharedMemPerMultiprocessor);
  d.regs_per_sm = p.regsPerMultiprocessor;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  d.ecc = p.ECCEnabled != 0;
  char bus[32];
  std::snprintf(bus, sizeof bus, "%08X:%02X:%02X.0", static_cast<unsigned>(p.pciDomainID),
                static_cast<unsigned>(p.pciBusID), static_cast<unsigned>(p.pciDeviceID));
  d.pci_bus_id = bus;
  return d;
}

bool open_context(const DeviceInfo& device, std::string* why) {
  const std::string name = "device " + std::to_string(device.ordinal) + " (" + device.name + ")";
  int mode = cudaComputeModeDefault;
  cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, device.ordinal);
  cudaError_t err = mode == cudaComputeModeProhibited ? cudaErrorDevicesUnavailable
                                                      : cudaSetDevice(device.ordinal);
  if (err == cudaSuccess) err = cudaFree(nullptr);  // creates the context now
  if (err == cudaSuccess) return true;
  cudaGetLastError();
  if (why) {
    if (mode == cudaComputeModeProhibited)
      *why = name + " is in prohibited compute mode, which allows no process to use it "
                    "(nvidia-smi -c DEFAULT changes that).";
    else if (err == cudaErrorDevicesUnavailable)
      *why = name + " is busy: it is in exclusive-process mode and another process holds it; "
                    "wait for that process to end.";
    else
      *why = name + " cannot be used: " + cudaGetErrorString(err) + ".";
  }
  return false;
}

}  // namespace memhier::core
