// Occupancy model: the same rules as the CUDA toolkit's cuda_occupancy.h
// (cudaOccMaxActiveBlocksPerMultiprocessor), written out plainly. The CPU test
// tests/cpu/test_occupancy.cpp sweeps both and requires identical answers.
//
// The rules, per resource, for one block of T threads on one SM:
//   warps      floor(max warps per SM / ceil(T / 32))
//   blocks     the architecture's resident-block limit
//   registers  each warp gets regs x 32 rounded up to 256; the register file is split
//              into 4 sub-partitions and a warp lives in one, so the SM holds
//              4 x floor((64K / 4) / per-warp) warps, divided by the block's warps
//   shared     static + dynamic + reserved (1 KiB from 8.0 on), rounded up to 256 B
//              (7.x) or 128 B; the SM's carveout is the preference rounded up to a
//              selectable size, or, when one block does not fit in that, the smallest
//              selectable size that holds one block
//   barriers   from 9.0 on, (blocks limit x 2, or x 1 on 12.x) / barriers per block;
//              never below the blocks limit for one barrier, so never the sole limit
#include "memhier/model/occupancy.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "memhier/model/text.hpp"

namespace memhier::model {

namespace {

constexpr int kKiB = 1024;

// ceil(a / b) for a >= 0, b > 0, without overflow (the model sits under core::ceil_div).
int ceil_div(int a, int b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

int round_up(int x, int unit) {
  return ceil_div(x, unit) * unit;
}

// "75.0 KiB" or "44.5 KiB" when that is exact, else "24832 bytes": a limit quoted to the
// user is never rounded past the true one.
std::string bytes_text(long long bytes) {
  const long long tenths = bytes * 10 / kKiB;
  if (bytes * 10 % kKiB == 0) return strf("%lld.%lld KiB", tenths / 10, tenths % 10);
  return strf("%lld bytes", bytes);
}

// "50%" or "37.5%".
std::string percent_text(double fraction) {
  long long tenths = std::llround(fraction * 1000.0);
  if (tenths % 10 == 0) return strf("%lld%%", tenths / 10);
  return strf("%lld.%lld%%", tenths / 10, tenths % 10);
}

// The smallest selectable shared-memory size per SM that holds `bytes`, or -1 if none.
int carveout_at_least(const ArchSpec& a, long long bytes) {
  for (int kb : a.carveout_kb) {
    if (static_cast<long long>(kb) * kKiB >= bytes) return kb * kKiB;
  }
  return -1;
}

// Registers one warp is given for `regs` per thread.
int regs_per_warp(const ArchSpec& a, int regs) {
  return round_up(regs * a.warp_size, a.reg_alloc_unit);
}

// The registers the hardware checks against the per-block limit: it assumes the block's
// warps are spread over all sub-partitions at once, so their count is rounded up to them.
long long regs_checked_per_block(const ArchSpec& a, int block_threads, int regs) {
  int warps = ceil_div(block_threads, a.warp_size);
  return static_cast<long long>(regs_per_warp(a, regs)) * round_up(warps, a.sm_sub_partitions);
}

// Computes occupancy into `out`; returns the user-facing error sentence, or "" on success.
// Non-throwing so the advice search can probe many configurations cheaply.
std::string evaluate(const ArchSpec& a, const LaunchResources& r, OccupancyResult& out) {
  // Built only on an error path: the advice search calls this many times.
  auto cc_text = [&a] { return a.cc(); };
  if (a.max_warps_per_sm <= 0 || a.max_blocks_per_sm <= 0 || a.carveout_kb.empty()) {
    return "compute capability " + cc_text() + " has no occupancy table.";
  }
  if (r.block_threads <= 0) {
    return strf("block size %d is not positive; a block needs at least one thread.",
                r.block_threads);
  }
  if (r.block_threads > a.max_threads_per_block) {
    return strf("block size %d exceeds the %d-thread limit of compute capability %s.",
                r.block_threads, a.max_threads_per_block, cc_text().c_str());
  }
  if (r.regs_per_thread < 0) {
    return strf("a register count of %d per thread is negative.", r.regs_per_thread);
  }
  if (r.regs_per_thread > a.max_regs_per_thread) {
    return strf("%d registers per thread exceed the %d-register limit of compute capability %s.",
                r.regs_per_thread, a.max_regs_per_thread, cc_text().c_str());
  }
  if (r.static_smem_bytes < 0 || r.dynamic_smem_bytes < 0) {
    return strf("shared memory per block cannot be negative (static %d, dynamic %d bytes).",
                r.static_smem_bytes, r.dynamic_smem_bytes);
  }
  const long long smem_asked = static_cast<long long>(r.static_smem_bytes) + r.dynamic_smem_bytes;
  if (smem_asked > a.smem_per_block_optin) {
    return "shared memory of " + bytes_text(smem_asked) + " per block exceeds the " +
           bytes_text(a.smem_per_block_optin) + " opt-in limit of compute capability " + cc_text() +
           ".";
  }
  if (r.carveout_percent < -1 || r.carveout_percent > 100) {
    return strf("carveout preference %d%% is outside -1 (driver default) to 100.",
                r.carveout_percent);
  }
  const long long regs_checked = regs_checked_per_block(a, r.block_threads, r.regs_per_thread);
  if (regs_checked > a.max_regs_per_block) {
    int fit = r.regs_per_thread;
    while (fit > 0 && regs_checked_per_block(a, r.block_threads, fit) > a.max_regs_per_block) --fit;
    return strf(
        "a block of %d threads at %d registers per thread needs %lld registers, over the "
        "%d-register per-block limit of compute capability %s (at most %d per thread fit).",
        r.block_threads, r.regs_per_thread, regs_checked, a.max_regs_per_block, cc_text().c_str(),
        fit);
  }

  OccupancyResult res;
  const int warps_per_block = ceil_div(r.block_threads, a.warp_size);
  res.max_warps = a.max_warps_per_sm;
  res.blocks_by_warps = a.max_warps_per_sm / warps_per_block;
  res.blocks_by_blocks = a.max_blocks_per_sm;

  const int warp_regs = regs_per_warp(a, r.regs_per_thread);
  res.regs_per_block = warp_regs * warps_per_block;
  if (warp_regs == 0) {
    res.blocks_by_registers = INT_MAX;  // a kernel with no registers is never register-bound
  } else {
    const int warps_per_partition = (a.regs_per_sm / a.sm_sub_partitions) / warp_regs;
    res.blocks_by_registers = warps_per_partition * a.sm_sub_partitions / warps_per_block;
  }

  res.smem_per_block =
      round_up(static_cast<int>(smem_asked) + a.smem_reserved_per_block, a.smem_alloc_unit);
  // The preference is a percentage of the largest carveout, rounded up to a selectable size;
  // it yields to the smallest size that holds one block when it is too small for that.
  long long preferred = r.carveout_percent < 0
                            ? a.smem_per_sm
                            : static_cast<long long>(r.carveout_percent) * a.smem_per_sm / 100;
  int carveout = carveout_at_least(a, preferred);
  if (carveout < res.smem_per_block) carveout = carveout_at_least(a, res.smem_per_block);
  if (carveout < 0) {
    return "compute capability " + cc_text() + " has no shared-memory carveout of " +
           bytes_text(res.smem_per_block) + ".";
  }
  res.smem_carveout_bytes = carveout;
  res.blocks_by_smem = res.smem_per_block > 0 ? carveout / res.smem_per_block : INT_MAX;

  res.blocks_per_sm = std::min(
      {res.blocks_by_registers, res.blocks_by_smem, res.blocks_by_warps, res.blocks_by_blocks});
  // Ties go to what the kernel controls; barriers (one per block) never bind alone here.
  // A full SM has no limiter: naming one would send the reader after a change that gains
  // nothing.
  if (res.blocks_per_sm * warps_per_block >= a.max_warps_per_sm) {
    res.limiter = Limiter::none;
  } else if (res.blocks_per_sm == res.blocks_by_registers) {
    res.limiter = Limiter::registers;
  } else if (res.blocks_per_sm == res.blocks_by_smem) {
    res.limiter = Limiter::shared_memory;
  } else if (res.blocks_per_sm == res.blocks_by_warps) {
    res.limiter = Limiter::warps;
  } else {
    res.limiter = Limiter::blocks;
  }
  res.active_warps = res.blocks_per_sm * warps_per_block;
  res.occupancy = static_cast<double>(res.active_warps) / a.max_warps_per_sm;
  out = res;
  return {};
}

// One lever's answer: the sentence, when the lever can raise occupancy on its own.
struct Advice {
  std::string sentence;
  bool found = false;
};

// "1 block" or "4 blocks".
std::string blocks_text(int n) {
  return strf("%d block%s", n, n == 1 ? "" : "s");
}

std::string gain_text(const OccupancyResult& now, const OccupancyResult& next) {
  return strf("%s per SM (%s occupancy instead of %s)", blocks_text(next.blocks_per_sm).c_str(),
              percent_text(next.occupancy).c_str(), percent_text(now.occupancy).c_str());
}

// The most registers per thread that still fits one more block.
Advice fewer_registers(const ArchSpec& a, const LaunchResources& r, const OccupancyResult& now) {
  LaunchResources t = r;
  OccupancyResult next;
  for (t.regs_per_thread = r.regs_per_thread - 1; t.regs_per_thread >= 0; --t.regs_per_thread) {
    if (evaluate(a, t, next).empty() && next.blocks_per_sm > now.blocks_per_sm) {
      return {strf("Use at most %d registers per thread (now %d) to fit ", t.regs_per_thread,
                   r.regs_per_thread) +
                  gain_text(now, next) + ".",
              true};
    }
  }
  return {};
}

// Applies a total static + dynamic size, taking the cut from dynamic memory first.
LaunchResources with_smem_total(const LaunchResources& r, int total) {
  LaunchResources t = r;
  t.static_smem_bytes = std::min(r.static_smem_bytes, total);
  t.dynamic_smem_bytes = total - t.static_smem_bytes;
  return t;
}

// The most shared memory per block that still fits one more block. Only sizes that end
// on an allocation unit (after the reserved part) can change the answer, so step by it.
Advice less_smem(const ArchSpec& a, const LaunchResources& r, const OccupancyResult& now) {
  const int total = r.static_smem_bytes + r.dynamic_smem_bytes;
  OccupancyResult next;
  for (int block = now.smem_per_block - a.smem_alloc_unit; block - a.smem_reserved_per_block >= 0;
       block -= a.smem_alloc_unit) {
    const int candidate = block - a.smem_reserved_per_block;
    if (candidate >= total) continue;
    if (evaluate(a, with_smem_total(r, candidate), next).empty() &&
        next.blocks_per_sm > now.blocks_per_sm) {
      return {"Use at most " + bytes_text(candidate) + " of shared memory per block (now " +
                  bytes_text(total) + ") to fit " + gain_text(now, next) + ".",
              true};
    }
  }
  return {};
}

// The smallest carveout preference above the current one that fits one more block.
Advice larger_carveout(const ArchSpec& a, const LaunchResources& r, const OccupancyResult& now) {
  if (r.carveout_percent < 0 || r.carveout_percent >= 100) return {};
  LaunchResources t = r;
  OccupancyResult next;
  for (t.carveout_percent = r.carveout_percent + 1; t.carveout_percent <= 100;
       ++t.carveout_percent) {
    if (evaluate(a, t, next).empty() && next.blocks_per_sm > now.blocks_per_sm) {
      return {strf("Raise the shared-memory carveout preference to %d%% (now %d%%) to fit ",
                   t.carveout_percent, r.carveout_percent) +
                  gain_text(now, next) + ".",
              true};
    }
  }
  return {};
}

// The block size (a multiple of the warp size) nearest the current one with more resident
// warps; on a tie in distance the larger block, which needs fewer blocks for the same work.
Advice other_block_size(const ArchSpec& a, const LaunchResources& r, const OccupancyResult& now) {
  LaunchResources t = r;
  OccupancyResult next, best;
  int best_size = 0;
  for (int size = a.warp_size; size <= a.max_threads_per_block; size += a.warp_size) {
    if (size == r.block_threads) continue;
    t.block_threads = size;
    if (!evaluate(a, t, next).empty() || next.active_warps <= now.active_warps) continue;
    const int distance = std::abs(size - r.block_threads);
    const int best_distance = std::abs(best_size - r.block_threads);
    if (best_size == 0 || distance < best_distance ||
        (distance == best_distance && size > best_size)) {
      best_size = size;
      best = next;
    }
  }
  if (best_size == 0) return {};
  return {strf("Blocks of %d threads (now %d) would give ", best_size, r.block_threads) +
              gain_text(now, best) + ".",
          true};
}

// When registers and shared memory tie, neither alone helps: find the pair that fits one
// more block.
Advice registers_and_smem(const ArchSpec& a, const LaunchResources& r, const OccupancyResult& now) {
  if (now.blocks_by_registers != now.blocks_per_sm || now.blocks_by_smem != now.blocks_per_sm) {
    return {};
  }
  const int target = now.blocks_per_sm + 1;
  OccupancyResult probe;
  LaunchResources t = r;
  while (t.regs_per_thread > 0 &&
         (!evaluate(a, t, probe).empty() || probe.blocks_by_registers < target)) {
    --t.regs_per_thread;
  }
  // Step down one allocation unit at a time until shared memory allows the target too.
  int total = r.static_smem_bytes + r.dynamic_smem_bytes;
  while (!evaluate(a, with_smem_total(t, total), probe).empty() || probe.blocks_by_smem < target) {
    if (total == 0) return {};
    const int lower_block =
        round_up(total + a.smem_reserved_per_block, a.smem_alloc_unit) - a.smem_alloc_unit;
    total = std::max(0, lower_block - a.smem_reserved_per_block);
  }
  if (probe.blocks_per_sm <= now.blocks_per_sm) return {};
  return {strf("Registers and shared memory both hold this kernel to %s per SM: use at "
               "most %d registers per thread (now %d) and at most ",
               blocks_text(now.blocks_per_sm).c_str(), t.regs_per_thread, r.regs_per_thread) +
              bytes_text(total) + " of shared memory per block (now " +
              bytes_text(r.static_smem_bytes + r.dynamic_smem_bytes) + ") to fit " +
              gain_text(now, probe) + ".",
          true};
}

}  // namespace

const char* to_string(Limiter l) {
  switch (l) {
    case Limiter::none:
      return "none";
    case Limiter::warps:
      return "warps";
    case Limiter::blocks:
      return "blocks";
    case Limiter::registers:
      return "registers";
    case Limiter::shared_memory:
      return "shared_memory";
    case Limiter::barriers:
      return "barriers";
  }
  return "unknown";
}

OccupancyResult occupancy(const ArchSpec& arch, const LaunchResources& r) {
  OccupancyResult result;
  std::string error = evaluate(arch, r, result);
  if (!error.empty()) throw OccupancyError{error};
  return result;
}

std::string occupancy_advice(const ArchSpec& arch, const LaunchResources& r,
                             const OccupancyResult& current) {
  if (current.active_warps >= current.max_warps) return {};
  // The searches below assume a valid request; a bad one gets the same error as occupancy().
  OccupancyResult checked;
  std::string error = evaluate(arch, r, checked);
  if (!error.empty()) throw OccupancyError{error};

  using Search = Advice (*)(const ArchSpec&, const LaunchResources&, const OccupancyResult&);
  // The limiter's own lever first, then every other lever in a fixed order.
  std::vector<Search> order;
  switch (current.limiter) {
    case Limiter::registers:
      order.push_back(fewer_registers);
      break;
    case Limiter::shared_memory:
      order.push_back(larger_carveout);
      order.push_back(less_smem);
      break;
    case Limiter::none:  // not reached: a full SM returned above
    case Limiter::warps:
    case Limiter::blocks:
    case Limiter::barriers:
      order.push_back(other_block_size);
      break;
  }
  for (Search s : {larger_carveout, fewer_registers, less_smem, other_block_size}) {
    if (std::find(order.begin(), order.end(), s) == order.end()) order.push_back(s);
  }
  order.push_back(registers_and_smem);

  for (Search s : order) {
    Advice advice = s(arch, r, current);
    if (advice.found) return advice.sentence;
  }
  // Nothing single helps: name the limits that tie, since each must be relieved together.
  std::vector<std::string> tied;
  if (current.blocks_by_registers == current.blocks_per_sm) tied.push_back("registers");
  if (current.blocks_by_smem == current.blocks_per_sm) tied.push_back("shared memory");
  if (current.blocks_by_warps == current.blocks_per_sm) tied.push_back("the warp limit");
  if (current.blocks_by_blocks == current.blocks_per_sm) tied.push_back("the block limit");
  std::string why;
  if (tied.size() > 1) {
    for (std::size_t i = 0; i < tied.size(); ++i) {
      why += (i == 0 ? "" : i + 1 == tied.size() ? " and " : ", ") + tied[i];
    }
    why[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(why[0])));
    why += strf(" %s hold this kernel to %s per SM, so no", tied.size() == 2 ? "both" : "all",
                blocks_text(current.blocks_per_sm).c_str());
  } else {
    why = "No";
  }
  return why +
         " single change of registers, shared memory, carveout or block size raises occupancy "
         "above " +
         percent_text(current.occupancy) + " on compute capability " + arch.cc() + ".";
}

}  // namespace memhier::model
