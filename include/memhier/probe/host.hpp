// The host tier as plain numbers: copies between host memory and this GPU by the copy
// engine and by the SMs, from pinned, pageable and registered host memory, over a size
// sweep; copy/compute overlap on two streams; managed memory migrated by page faults, by
// prefetch and under access hints; and the latency of one SM load from mapped host memory.
// measure_host runs the GPU; present_host makes the report section (no CUDA).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// Where the host side of a copy lives.
enum class HostMemory {
  pinned,      ///< cudaMallocHost: page-locked, mapped into the GPU's address space
  pageable,    ///< plain malloc: the driver stages it through its own pinned buffers
  registered,  ///< malloc'd, then page-locked in place by cudaHostRegister
};
/// Which way the bytes go.
enum class HostDirection { host_to_device, device_to_host };
/// What moves them.
enum class Mover {
  copy_engine,  ///< cudaMemcpyAsync (a DMA engine, no SM busy)
  sm,           ///< a kernel loading or storing through the mapped host pointer
};

const char* to_string(HostMemory m);
const char* to_string(HostDirection d);
const char* to_string(Mover m);

/// One point of the sweep: a copy of `bytes` one way by one mover from one kind of memory.
struct HostCopy {
  HostMemory memory = HostMemory::pinned;
  HostDirection direction = HostDirection::host_to_device;
  Mover mover = Mover::copy_engine;
  std::uint64_t bytes = 0;
  int batch = 0;      ///< copies enqueued back to back per timed sample
  double us = NAN;    ///< median time of one copy
  double gbps = NAN;  ///< bytes / us
};

/// A series the sweep could not measure (a failed cudaMallocHost), with the reason.
struct HostSkip {
  HostMemory memory = HostMemory::pinned;
  std::string why;
};

/// One copy and one kernel of about the same length, serial on one stream and overlapped on
/// two.
struct HostOverlap {
  std::uint64_t bytes = 0;     ///< the host-to-device copy (pinned)
  double copy_ms = NAN;        ///< the copy alone
  double compute_ms = NAN;     ///< the kernel alone (arithmetic only, no memory traffic)
  double serial_ms = NAN;      ///< copy then kernel on one stream
  double overlapped_ms = NAN;  ///< copy and kernel on two streams, started together
  /// overlapped / serial: 1 means no overlap, max(copy, compute)/serial the ideal.
  double ratio() const { return overlapped_ms / serial_ms; }
};

/// How managed memory first reaches the GPU.
enum class ManagedMethod {
  fault,        ///< no hint: the kernel's first touches fault and migrate pages
  prefetch,     ///< cudaMemPrefetchAsync to the GPU, then the kernel
  read_mostly,  ///< cudaMemAdvise read-mostly: faults make read-only copies
  accessed_by,  ///< preferred location host, accessed by the GPU: read in place, no migration
};
const char* to_string(ManagedMethod m);

/// One managed-memory method: the host wrote the buffer last, then the GPU reads all of it.
struct ManagedMigration {
  ManagedMethod method = ManagedMethod::fault;
  std::uint64_t bytes = 0;
  std::uint64_t pages = 0;   ///< bytes / the host's page size
  double prefetch_ms = NAN;  ///< cudaMemPrefetchAsync alone (prefetch only)
  double kernel_ms = NAN;    ///< the reading kernel, after the hint or prefetch
  double total_ms() const { return std::isnan(prefetch_ms) ? kernel_ms : prefetch_ms + kernel_ms; }
  double gbps() const {
    return total_ms() > 0 ? static_cast<double>(bytes) / (total_ms() * 1e6) : NAN;
  }
  double us_per_page() const { return pages ? total_ms() * 1e3 / static_cast<double>(pages) : NAN; }
};

/// The "host" probe.
struct HostResult {
  std::vector<HostCopy> copies;  ///< every series in the order measured, each by size
  std::vector<HostSkip> skipped;
  std::uint64_t max_bytes = 0;  ///< the sweep's largest size (1 GiB unless memory was short)
  HostOverlap overlap;
  std::vector<ManagedMigration> managed;
  std::string managed_not_measured;  ///< why there are no managed rows; "" when there are
  std::uint64_t host_page_bytes = 0;
  std::uint64_t host_memory_bytes = 0;  ///< physical memory of the host
  int chase_steps = 0;
  std::uint64_t chase_ring_bytes = 0;
  double mapped_latency_cycles = NAN;  ///< one dependent SM load from mapped pinned memory
  double sm_clock_mhz = 0;
};

/// The sizes of a sweep: lo, lo*factor, ... up to hi, and hi itself when the steps miss it.
/// Empty when lo is 0, factor < 2 or hi < lo.
std::vector<std::uint64_t> geometric_sizes(std::uint64_t lo, std::uint64_t hi, unsigned factor);

/// The copy of `memory`, `direction`, `mover` at `bytes`, or nullptr.
const HostCopy* find_copy(const HostResult& m, HostMemory memory, HostDirection direction,
                          Mover mover, std::uint64_t bytes);

/// Measures the host tier on the current device.
HostResult measure_host(Context& ctx);

/// The "host" section (sweep, overlap, managed memory, charts) and the summary's host tier.
Result present_host(const HostResult& m);

}  // namespace memhier::probe
