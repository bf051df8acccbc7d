// The launch-order replay (see replay.hpp).
#include "memhier/model/replay.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "memhier/model/occupancy.hpp"

namespace memhier::model {

namespace {

// One entry per (instruction, line): the line in the high bits, then a bit marking a cp.async.cg
// copy, a bit marking an atomic,
// two bits of L2 promotion (0 none, 1: 128 bytes, 2: 256 bytes), a bit marking an L2 prefetch,
// the 4-bit sector mask, a bit
// saying two words of byte mask follow (a store that writes part of a sector), the store bit, the
// L1-caching bit and a bit marking an instruction's last line.
constexpr int kLineShift = 13;
constexpr std::uint64_t kAsyncBit = std::uint64_t{1} << 12;
constexpr std::uint64_t kAtomicBit = std::uint64_t{1} << 11;
constexpr int kPromoteShift = 9;
constexpr std::uint64_t kPrefetchBit = std::uint64_t{1} << 8;
inline std::uint64_t encode(std::uint64_t line, unsigned mask, bool bytes, bool store, bool cached,
                            bool last) {
  return line << kLineShift | std::uint64_t{mask} << 4 | std::uint64_t{bytes} << 3 |
         std::uint64_t{store} << 2 | std::uint64_t{cached} << 1 | std::uint64_t{last};
}

}  // namespace

long long l1_bytes_beside(const ArchSpec& arch, int blocks_per_sm, int smem_per_block) {
  const long long need = static_cast<long long>(blocks_per_sm) * smem_per_block;
  long long carveout = static_cast<long long>(arch.smem_per_sm);
  for (int kb : arch.carveout_kb)
    if (kb * 1024LL >= need) {
      carveout = kb * 1024LL;
      break;
    }
  return std::max(0LL, arch.l1_plus_smem_kb * 1024LL - carveout);
}

LaunchSimulator::LaunchSimulator(const Card& card, PersistWindow persist, int regs_per_thread)
    : card_(card), persist_(persist), regs_(regs_per_thread) {}

void LaunchSimulator::launch(int block_threads, int smem_bytes_per_block) {
  if (launched_) {  // the next kernel of the stream: this one ends, and the caches go cold
    flush();
    earlier_ += mem_->traffic();
    wave_ = 0;
    any_ = false;
    current_ = nullptr;
  }
  LaunchResources lr;
  lr.block_threads = block_threads;
  lr.regs_per_thread = regs_;
  lr.static_smem_bytes = smem_bytes_per_block;
  OccupancyResult occ;
  try {
    occ = occupancy(card_.arch(), lr);
  } catch (const OccupancyError& e) {
    throw std::invalid_argument(e.message);
  }
  r_.blocks_per_sm = occ.blocks_per_sm;
  r_.l1_bytes = l1_bytes_beside(card_.arch(), occ.blocks_per_sm, occ.smem_per_block);
  HierarchyConfig h = hierarchy_for(card_, r_.l1_bytes);
  h.persist = persist_;
  mem_ = std::make_unique<MemorySystem>(h);
  warps_per_block_ = (block_threads + kWarpSize - 1) / kWarpSize;
  wave_size_ =
      static_cast<std::uint64_t>(card_.sms) * static_cast<std::uint64_t>(occ.blocks_per_sm);
  queues_.assign(static_cast<std::size_t>(wave_size_ * warps_per_block_), {});
  blocks_seen_.assign(static_cast<std::size_t>(wave_size_), ~std::uint64_t{0});
  fenced_wave_.assign(static_cast<std::size_t>(card_.sms), ~std::uint64_t{0});
  launched_ = true;
}

void LaunchSimulator::at(std::uint64_t block, int warp) {
  if (!launched_) throw std::logic_error("a stream model reported accesses before its launch");
  if (warp < 0 || warp >= warps_per_block_)
    throw std::logic_error("a stream model named a warp outside its block");
  if (block / wave_size_ > wave_) {
    flush();
    wave_ = block / wave_size_;
  }
  const std::size_t slot = static_cast<std::size_t>(block % wave_size_);
  slot_ = slot;
  if (blocks_seen_[slot] != block) {
    blocks_seen_[slot] = block;
    ++r_.blocks;
  }
  current_ =
      &queues_[slot * static_cast<std::size_t>(warps_per_block_) + static_cast<std::size_t>(warp)];
}

void LaunchSimulator::global(const WarpAccess& w) {
  if (!current_) throw std::logic_error("a stream model reported an access before naming its warp");
  if (w.active_mask == 0) return;
  // The distinct lines the instruction touches and each one's sectors (and, for a store, its
  // bytes), in lane order.
  std::uint64_t lines[2 * kWarpSize];
  unsigned masks[2 * kWarpSize];
  std::uint64_t bytes[2 * kWarpSize][2];
  int n = 0;
  const bool store = w.is_store && !w.is_atomic;
  std::uint64_t prev_sector = ~std::uint64_t{0};  // the last lane's one sector, if it had one
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!w.active(lane)) continue;
    const std::uint64_t first = w.address[lane], last = first + w.width_bytes - 1;
    // A load lane within the sector the last lane touched adds nothing (broadcasts and narrow
    // coalesced lanes: most lanes of most instructions).
    if (!store && first >> 5 == prev_sector && last >> 5 == prev_sector) continue;
    prev_sector = first >> 5 == last >> 5 ? first >> 5 : ~std::uint64_t{0};
    for (std::uint64_t s = first >> 5; s <= last >> 5; ++s) {
      const std::uint64_t line = s >> 2;
      const unsigned bit = 1u << (s & 3u);
      int i = n - 1;
      while (i >= 0 && lines[i] != line) --i;  // recent lines first: coalesced runs end fast
      if (i < 0) {
        i = n++;
        lines[i] = line;
        masks[i] = 0;
        bytes[i][0] = bytes[i][1] = 0;
      }
      masks[i] |= bit;
    }
    if (!store) continue;
    // The lane's bytes: one run of at most 16, split where it crosses a 64-byte word.
    for (std::uint64_t b = first; b <= last;) {
      const std::uint64_t end = std::min(last, b | 63u);  // the run's last byte in this word
      const unsigned len = static_cast<unsigned>(end - b + 1);
      int i = n - 1;
      while (lines[i] != b >> 7) --i;
      const std::uint64_t run = len == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << len) - 1;
      bytes[i][(b >> 6) & 1u] |= run << (b & 63u);
      b = end + 1;
    }
  }
  for (int i = 0; i < n; ++i) {
    bool partial = false;  // a sector of the mask not written whole
    for (int s = 0; s < 4; ++s)
      if ((masks[i] >> s) & 1u)
        partial = partial ||
                  static_cast<std::uint32_t>(bytes[i][s >> 1] >> (32 * (s & 1))) != 0xffffffffu;
    const bool with_bytes = store && partial;
    const std::uint64_t promote = w.is_store || w.is_atomic   ? 0
                                  : w.l2_promote_bytes >= 256 ? 2
                                  : w.l2_promote_bytes >= 128 ? 1
                                                              : 0;
    current_->push_back(
        encode(lines[i], masks[i], with_bytes, store, w.l1_cached, i == n - 1) |
        promote << kPromoteShift | (w.is_atomic ? kAtomicBit : 0) |
        (w.async_copy && !w.is_store ? kAsyncBit : 0));
    if (with_bytes) {
      current_->push_back(bytes[i][0]);
      current_->push_back(bytes[i][1]);
    }
  }
  ++r_.instructions;
  any_ = true;
}

void LaunchSimulator::instruction_fetch(long long code_bytes) {
  if (!launched_) throw std::logic_error("a kernel's code was fetched before its launch");
  mem_->instruction_fetch(code_bytes);
  r_.code_bytes += code_bytes;
}

void LaunchSimulator::fence() {
  if (!current_) throw std::logic_error("a stream model fenced before naming its warp");
  if (card_.fences_merge_per_sm) {  // the SM of the block's slot, as flush() places it
    std::uint64_t& last = fenced_wave_[slot_ % static_cast<std::size_t>(card_.sms)];
    if (last == wave_) return;
    last = wave_;
  }
  mem_->membar();  // hits only, no state: its place in the replay order does not matter
}

void LaunchSimulator::l2_prefetch(std::uint64_t address, std::uint64_t bytes) {
  if (!current_) throw std::logic_error("a stream model prefetched before naming its warp");
  if (bytes == 0) return;
  const std::uint64_t first = address >> 5, last = (address + bytes - 1) >> 5;
  for (std::uint64_t line = first >> 2; line <= last >> 2; ++line) {
    unsigned mask = 0;
    for (unsigned s = 0; s < 4; ++s)
      if (line * 4 + s >= first && line * 4 + s <= last) mask |= 1u << s;
    // Not marked last: a warp's prefetches take no round of their own (fire-and-forget, one
    // instruction covers a lane's whole range) but issue with its next instruction.
    current_->push_back(encode(line, mask, false, false, false, false) | kPrefetchBit);
  }
  any_ = true;
}

void LaunchSimulator::flush() {
  if (!any_) return;
  ++r_.waves;
  struct Cursor {
    std::vector<std::uint64_t>* q;
    std::size_t pos;
  };
  const int sms = card_.sms;
  std::vector<std::vector<Cursor>> on_sm(static_cast<std::size_t>(sms));
  for (std::size_t slot = 0; slot < wave_size_; ++slot)
    for (int w = 0; w < warps_per_block_; ++w) {
      std::vector<std::uint64_t>& q = queues_[slot * warps_per_block_ + w];
      if (!q.empty()) on_sm[slot % sms].push_back({&q, 0});
    }
  bool progress = true;
  while (progress) {
    progress = false;
    for (int sm = 0; sm < sms; ++sm) {
      std::vector<Cursor>& cs = on_sm[static_cast<std::size_t>(sm)];
      std::size_t keep = 0;
      for (Cursor c : cs) {
        const std::vector<std::uint64_t>& q = *c.q;
        mem_->begin_warp_round();
        for (;;) {  // one instruction: its lines up to the one marked last
          const std::uint64_t e = q[c.pos++];
          const std::uint64_t* bytes = nullptr;
          if ((e >> 3) & 1u) {
            bytes = &q[c.pos];
            c.pos += 2;
          }
          if (e & kPrefetchBit)
            mem_->l2_prefetch(sm, e >> kLineShift, static_cast<unsigned>(e >> 4) & 0xfu);
          else if (e & kAtomicBit)
            mem_->atomic(sm, e >> kLineShift, static_cast<unsigned>(e >> 4) & 0xfu);
          else
            mem_->access(sm, e >> kLineShift, static_cast<unsigned>(e >> 4) & 0xfu, (e >> 2) & 1u,
                         (e >> 1) & 1u, bytes, 128 * static_cast<int>((e >> kPromoteShift) & 3u),
                         (e & kAsyncBit) != 0);
          if (c.pos >= q.size()) break;
          if (e & 1u) {
            // A store never waits for data: a warp's run of stores issues in one round.
            const std::uint64_t next = q[c.pos];
            auto plain_store = [](std::uint64_t x) {
              return ((x >> 2) & 1u) && !(x & (kAtomicBit | kPrefetchBit));
            };
            if (!plain_store(e) || !plain_store(next)) break;
          }
        }
        if (c.pos < q.size()) cs[keep++] = c;
      }
      cs.resize(keep);
      progress = progress || keep > 0;
    }
  }
  for (auto& q : queues_) q.clear();
  std::fill(blocks_seen_.begin(), blocks_seen_.end(), ~std::uint64_t{0});
  any_ = false;
}

SimResult LaunchSimulator::finish() {
  if (!launched_) throw std::logic_error("a stream model reported no launch");
  flush();
  r_.traffic = earlier_;
  r_.traffic += mem_->traffic();
  const Traffic& t = r_.traffic;
  const double dram = t.dram_read_bytes() + t.dram_write_bytes();
  const double dram_s = dram / (card_.dram_gbps * 1e9);
  const double l2_s = card_.l2_gbps > 0 ? static_cast<double>(t.l2_sm_sectors()) * t.sector_bytes /
                                              (card_.l2_gbps * 1e9)
                                        : 0.0;
  r_.l2_bound = l2_s > dram_s;
  r_.time_bound_s = std::max(dram_s, l2_s);
  return r_;
}

}  // namespace memhier::model
