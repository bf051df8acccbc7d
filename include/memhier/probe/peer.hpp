// The peer tier as plain numbers: every ordered pair of visible GPUs, in one process. Copies
// by the copy engine (cudaMemcpyPeerAsync) and by the SMs (a kernel loading from or storing
// to the peer's memory after cudaDeviceEnablePeerAccess), one way and both ways at once; one
// dependent load from the peer's memory; and the same bytes staged through pinned host memory,
// the path without P2P. measure_peer runs the GPUs; present_peer makes the section (no CUDA).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// How the bytes of one pair move.
enum class PeerMethod {
  copy_engine,       ///< cudaMemcpyPeerAsync, one way
  copy_engine_both,  ///< both ways at once, one copy each way on its own GPU's stream
  sm_load,           ///< the destination's SMs load from the source's memory
  sm_store,          ///< the source's SMs store into the destination's memory
  sm_load_both,      ///< each GPU's SMs load from the other, at once
  staged_host,       ///< device to pinned host, then host to device: the path without P2P
};
const char* to_string(PeerMethod m);

/// One method on one ordered pair (src -> dst); "both ways" rows count the bytes of both.
struct PeerCopy {
  int src = 0, dst = 0;
  PeerMethod method = PeerMethod::copy_engine;
  std::uint64_t bytes = 0;  ///< moved per copy (both ways: twice the buffer)
  double ms = NAN;
  double gbps = NAN;
  std::string not_measured;  ///< why there is no figure ("" when measured)
};

/// One dependent load by device `reader` from device `owner`'s memory.
struct PeerLatency {
  int reader = 0, owner = 0;
  double cycles = NAN;
  double ns = NAN;
  std::string not_measured;
};

/// One ordered pair's link facts.
struct PeerPair {
  int src = 0, dst = 0;
  bool can_access = false;      ///< cudaDeviceCanAccessPeer(src, dst)
  int performance_rank = -1;    ///< cudaDevP2PAttrPerformanceRank; -1 unknown
  bool native_atomics = false;  ///< cudaDevP2PAttrNativeAtomicSupported
};

/// The "peer" probe.
struct PeerResult {
  int gpus = 0;
  std::vector<std::string> names;  ///< each visible GPU's name, by index
  std::uint64_t buffer_bytes = 0;  ///< per copy, one way
  std::vector<PeerPair> pairs;
  std::vector<PeerCopy> copies;
  std::vector<PeerLatency> latencies;
  int chase_steps = 0;
  double sm_clock_mhz = 0;
  std::uint64_t device_memory_bytes = 0;  ///< device 0's total memory, for the tier's size
};

/// Why this machine has no peer tier to measure, or "" when it has one: fewer than two
/// visible GPUs.
std::string peer_unavailable(int visible_gpus);

/// The figure of `method` from `src` to `dst`, or nullptr.
const PeerCopy* find_peer_copy(const PeerResult& m, int src, int dst, PeerMethod method);

/// Measures every ordered pair of visible GPUs; throws Unavailable on fewer than two.
PeerResult measure_peer(Context& ctx);

/// The "peer" section (pairs, matrix, latency, the staged path) and the summary's peer tier.
Result present_peer(const PeerResult& m);

}  // namespace memhier::probe
