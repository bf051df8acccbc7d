// One function per probe family file; register_probes() adds them in report order.
#pragma once

#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

std::vector<registry::Entry> latency_probes();       // latency.cu: pointer chasing per tier, working-set sweep
std::vector<registry::Entry> bandwidth_probes();     // bandwidth.cu: every tier with every SM busy
std::vector<registry::Entry> shared_stride_probes(); // shared_stride.cu: bank conflicts against stride
std::vector<registry::Entry> global_stride_probes(); // global_stride.cu: coalescing against stride
std::vector<registry::Entry> l2_probes();            // l2.cu: working-set curve, persisting window
std::vector<registry::Entry> layout_probes();        // layout.cu: AoS/SoA, 12-byte structs, vector width, alignment
std::vector<registry::Entry> constant_probes();      // constant.cu: broadcast vs divergent vs read-only global
std::vector<registry::Entry> register_probes_family(); // registers.cu: caps, launch bounds, spills
std::vector<registry::Entry> smem_config_probes();   // smem_config.cu: run-time tile > 48 KB, carveout
std::vector<registry::Entry> caching_probes();       // caching.cu: ld.ca/cg/cs, texture vs global

}  // namespace memhier::probe
