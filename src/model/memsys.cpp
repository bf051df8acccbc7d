// The memory-system model (see memsys.hpp for the rules it follows).
//
// What it lacks, against the H100's counters (scripts/simulate-vs-ncu.sh's breakdowns):
// - Which fences the card merges: an SM's fences at about the same time reach the slices as
//   one (a probe: one fence a block over 1,024 blocks in one wave, 147 broadcasts; over 132
//   blocks, 132; 4,096 blocks in four waves, 730-820), so how many depends on timing the
//   replay does not have. single_pass's 1,025 MEMBAR.SC.GPU reach the slices as 608
//   (ltcfabric op membar 69,760 = 872 x 80, of which an empty launch's 264), the
//   acquire-release ticket's 512 as 503; here every fence counts (21.2 % against 15.6 %). The
//   H200 merges far more (the same kernels: 124-173 broadcasts), which the replay follows by
//   counting an SM's fences once a wave there (Card::fences_merge_per_sm).
// - The L2::256B rung's lookups: every asked sector misses at srcunit tex and one in eight
//   more hits (65,538 for 524,348), 2.5 fences' worth of membar lookups a block; here the
//   promoted neighbour line hits (42.6 % against 28.8 % at 16 MiB).
// - L1 store misses with several loads in flight a thread: random replacement meets one
//   float4 a thread (76.8 % of the stores hit on the H100) but finds 74 % where the card
//   finds 52 % with four (float4_unroll4, grid_stride_streaming at 2^26).
//   The replay's waves are synchronous: no later block's loads fall between a warp's loads
//   and its stores, as they do on the card.
// - L1 store hits without loads: stores to sectors of a line another store of the warp just
//   wrote hit on the card (warp_tiled's float4 epilogue at 8192x4096x8: 48.6 % of its
//   stores, two per line), and stores to sectors written before often miss (the naive rung:
//   18.6 % where per-sector write-allocate finds 87.5 %; a probe's eight field stores into
//   one 32-byte struct: 56 %); the card's store path keeps lines for a time, not a capacity.
//   The H200's store hits (l1tex global op st lookups, ncu at f9a44a4): naive GEMM 26.1 %,
//   transpose naive 75.4 % at 8192^2 and 84.8 % at 1000x772, warp_tiled 48.9 % at
//   8192x4096x8 and 88.1 % at 257x255x129, mma_padded 50.7 %, wmma_smem 64.7 %, reg_tile_2d
//   87.2 %. Counting a store a hit on the lines of the same warp's previous store instruction,
//   and otherwise only on sectors held whole, meets the naive GEMM, warp_tiled, mma at
//   8192x4096x8 and the 8192^2 transpose, but not wmma_smem nor the 1000x772 transpose (L1
//   48.9 % against 74.7), and loses the mma rungs' L1 at 257x255x129 (5.2 points under): each
//   measured card's traffic fixture (tests/fixtures) lost items against its record: not taken.
// - Store combining beyond one warp's round: the replay merges a warp's run of stores into
//   sectors it loaded whole (particles_aos at 65,537: fewer L2 store sectors than the card's
//   record in tests/fixtures counts), but at 2^24 particles, many blocks a wave, the card
//   merges less: its L2 hit rate (57.9 % on the H200, ncu) asks for about 17 M store sectors
//   at L2 where the replay sends 12.6 M (50.5 %); merging every run, loaded or not, overshoots
//   the small GEMMs' L2 rates.
// - Which partly written sectors the card evicts: reg_tile_2d at 8192x4096x8 read 10 MB of
//   DRAM on the card (read-modify-writes), 0.5 MB here; transpose naive at 8192^2 writes
//   306 MB and reads 323 MB for 268 MB each way.
// - What the lookups beside the accesses are (on the H200: fabric operations neither read nor
//   write, and lookups of no source unit, 0.22-0.49 per sector left dirty over 18 kernels that
//   fit in L2): a constant per dirty sector at the end stands in for them
//   (ArchSpec::l2_end_lookups_per_dirty_sector). Beside them the H200 counts op membar
//   lookups in kernels without a fence (ncu at ee4d482): 22-24k beyond an empty launch's
//   2,954 in every kernel that runs some microseconds over all SMs (about 230 broadcasts of
//   97 lookups, 1.7-1.8 per SM: reduction, histogram, axpy from 2^22), fewer in short ones
//   (axpy at 100,003: 2,704), about two broadcasts a block in the small GEMMs (1.1-7.4k); no
//   law for them is modeled: they leave the streaming reads' L2 rates 2.5-3 points low at
//   2^22 floats and 2^24 bytes.
#include "memhier/model/memsys.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "memhier/model/card.hpp"

namespace memhier::model {

namespace {

// splitmix64's finalizer: spreads power-of-two strides over the sets, partitions and the
// persisting share (hardware hashes its L2 slices likewise; the exact hash is unpublished).
inline std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Instruction fetch (MemorySystem::instruction_fetch): L2 lookups per code sector, a quarter
// of them misses.
constexpr long long kCodeLookupsPerSector = 7;

// Whether a hash falls in the first `share` (0..1) of its range: its top 24 bits as a
// fraction. Picks a share of lines or requests deterministically.
inline bool in_share(std::uint64_t hash, double share) {
  return static_cast<double>(hash >> 40) < share * static_cast<double>(1u << 24);
}

inline int popcount4(unsigned m) {
  return static_cast<int>((m & 1u) + ((m >> 1) & 1u) + ((m >> 2) & 1u) + ((m >> 3) & 1u));
}

}  // namespace

/// A sectored set-associative cache with true LRU or random replacement: each way holds a
/// line's tag, its valid, dirty and partly written sectors (with the bytes written so far)
/// and its last use.
class SectorCache {
 public:
  /// `lines` lines in sets of `ways`; `hashed`: sets chosen by mix(line), else line % sets.
  /// `random_victim`: a full set evicts a pseudo-random way (seeded by `seed`), else its LRU.
  SectorCache(long long lines, int ways, bool hashed, int dirty_ways = 0,
              bool random_victim = false, std::uint64_t seed = 1)
      : ways_(ways), dirty_ways_(dirty_ways), hashed_(hashed), random_(random_victim),
        rng_(mix(seed) | 1u) {
    if (ways < 1 || lines < ways) throw std::invalid_argument("a cache needs at least one set.");
    sets_ = static_cast<std::uint64_t>(lines / ways);
    const std::size_t n = static_cast<std::size_t>(sets_ * static_cast<std::uint64_t>(ways_));
    tag_.resize(n);
    stamp_.resize(n);
    state_.resize(n);
    part_.resize(n);
  }

  struct Result {
    unsigned hit = 0;              ///< sectors found (valid; for a write, partly written too)
    unsigned evicted_dirty = 0;    ///< dirty sectors of a line evicted to make room
    unsigned evicted_partial = 0;  ///< those of them written in part (not valid whole)
    unsigned valid_before = 0;     ///< for a write: the asked sectors valid whole before it
    int cleaned = 0;               ///< dirty sectors written back to keep the dirty-way cap
  };

  /// Looks up `sectors` of `line` for a read: allocate: make room for the line when absent
  /// (LRU victim) and fill the sectors. A partly written sector is no hit for a read.
  Result read(std::uint64_t line, unsigned sectors, bool allocate) {
    Result r;
    const std::size_t w = find(line, allocate, r);
    if (w == kNone) return r;
    r.hit = sectors & state_[w].valid;
    if (allocate || r.hit) stamp_[w] = clock_;
    if (allocate) fill(w, sectors);
    return r;
  }

  /// Writes the bytes `bytes` (bit i: byte i of the line; nullptr: the whole sectors) of
  /// `sectors` with write-allocate and no fetch: a sector becomes valid once every byte of it
  /// is written; dirty marks the written sectors dirty. A hit is a sector already present,
  /// valid or partly written.
  Result write(std::uint64_t line, unsigned sectors, const std::uint64_t* bytes, bool dirty) {
    Result r;
    const std::size_t w = find(line, true, r);
    stamp_[w] = clock_;
    State& st = state_[w];
    r.valid_before = sectors & st.valid;
    std::uint32_t* part = part_[w].bytes;
    for (int s = 0; s < 4; ++s) {
      const unsigned bit = 1u << s;
      if (!(sectors & bit)) continue;
      const std::uint32_t b =
          bytes ? static_cast<std::uint32_t>(bytes[s >> 1] >> (32 * (s & 1))) : 0xffffffffu;
      if ((st.valid & bit) || part[s]) r.hit |= bit;
      if (!(st.valid & bit)) {
        part[s] |= b;
        if (part[s] == 0xffffffffu) {
          st.valid = static_cast<std::uint8_t>(st.valid | bit);
          part[s] = 0;
        }
      }
    }
    if (dirty) {
      st.dirty = static_cast<std::uint8_t>(st.dirty | sectors);
      if (dirty_ways_ > 0) clean_over_cap(line, w, r);
    }
    return r;
  }

  /// Dirty sectors held now.
  long long dirty_sectors() const {
    long long n = 0;
    for (const State& st : state_) n += popcount4(st.dirty);
    return n;
  }

 private:
  // A way's state apart from its tag and last use, in arrays of their own: a lookup scans
  // a set's tags alone, 8 bytes a way rather than the 40 of a whole way.
  struct State {
    std::uint8_t valid = 0, dirty = 0;  ///< sector masks
  };
  struct Part {
    std::uint32_t bytes[4] = {0, 0, 0, 0};  ///< bytes written of a sector not yet valid
  };
  static constexpr std::size_t kNone = ~std::size_t{0};

  // The way holding `line`, or with allocate the LRU victim made its own (its dirty sectors
  // reported in r), else kNone. Advances the clock. A way's tag is 0 when empty, and its
  // stamp too: empty ways are chosen first.
  std::size_t find(std::uint64_t line, bool allocate, Result& r) {
    const std::size_t set = static_cast<std::size_t>(set_of(line) * static_cast<std::uint64_t>(ways_));
    const std::size_t ways = static_cast<std::size_t>(ways_);
    const std::uint64_t tag = line + 1;
    ++clock_;
    for (std::size_t i = 0; i < ways; ++i)
      if (tag_[set + i] == tag) return set + i;
    if (!allocate) return kNone;
    std::size_t victim = set;
    for (std::size_t i = 1; i < ways; ++i)
      if (stamp_[set + i] < stamp_[victim]) victim = set + i;
    if (random_ && stamp_[victim] != 0) {  // the set is full: xorshift64 picks the way
      rng_ ^= rng_ << 13;
      rng_ ^= rng_ >> 7;
      rng_ ^= rng_ << 17;
      victim = set + static_cast<std::size_t>(rng_ % static_cast<std::uint64_t>(ways_));
    }
    r.evicted_dirty = tag_[victim] ? state_[victim].dirty : 0u;
    r.evicted_partial = r.evicted_dirty & ~static_cast<unsigned>(state_[victim].valid);
    state_[victim] = State{};
    part_[victim] = Part{};
    tag_[victim] = tag;
    stamp_[victim] = clock_;
    return victim;
  }

  // With more than dirty_ways_ dirty lines in the set, the least recently used other one whose
  // dirty sectors are whole is written back (it stays, clean).
  void clean_over_cap(std::uint64_t line, std::size_t keep, Result& r) {
    const std::size_t set = static_cast<std::size_t>(set_of(line) * static_cast<std::uint64_t>(ways_));
    int n = 0;
    std::size_t oldest = kNone;
    for (std::size_t w = set; w < set + static_cast<std::size_t>(ways_); ++w) {
      const State& st = state_[w];
      if (!st.dirty) continue;
      ++n;
      const bool whole = (st.dirty & ~st.valid) == 0;  // no sector still being written
      if (w != keep && whole && (oldest == kNone || stamp_[w] < stamp_[oldest])) oldest = w;
    }
    if (n <= dirty_ways_ || oldest == kNone) return;
    r.cleaned += popcount4(state_[oldest].dirty);
    state_[oldest].dirty = 0;
  }

  void fill(std::size_t w, unsigned sectors) {
    state_[w].valid = static_cast<std::uint8_t>(state_[w].valid | sectors);
    for (int s = 0; s < 4; ++s)
      if (sectors & (1u << s)) part_[w].bytes[s] = 0;
  }

  std::uint64_t set_of(std::uint64_t line) const { return (hashed_ ? mix(line) : line) % sets_; }

  int ways_;
  int dirty_ways_;
  bool hashed_;
  bool random_;
  std::uint64_t rng_;
  std::uint64_t sets_ = 1;
  std::uint64_t clock_ = 0;
  std::vector<std::uint64_t> tag_;    ///< line + 1, 0 for an empty way
  std::vector<std::uint64_t> stamp_;  ///< last use, 0 for an empty way
  std::vector<State> state_;
  std::vector<Part> part_;
};

HierarchyConfig hierarchy_for(const Card& card, long long l1_bytes) {
  const ArchSpec& a = card.arch();
  HierarchyConfig h;
  h.sms = card.sms;
  h.line_bytes = a.cache_line_bytes;
  h.sector_bytes = a.sector_bytes;
  h.l1_bytes = l1_bytes;
  h.l1_ways = a.l1_ways;
  h.l2_bytes = card.l2_bytes;
  h.l2_ways = a.l2_ways;
  h.l2_partitions = a.l2_partitions;
  h.l2_dirty_ways = a.l2_dirty_ways;
  h.l2_slices = card.l2_slices;
  h.l2_end_lookups_per_dirty_sector = a.l2_end_lookups_per_dirty_sector;
  h.l2_pair_replay_share = card.l2_pair_replay_share;
  return h;
}

double Traffic::l1_hit_rate() const {
  const long long n = l1_ld_sectors + l1_st_sectors + l1_atom_sectors;
  return n == 0 ? NAN
                : 100.0 * static_cast<double>(l1_ld_hits + l1_st_hits) / static_cast<double>(n);
}

double Traffic::l2_hit_rate() const {
  // The fabric's second lookups count: Nsight Compute counts a far-homed sector at the near
  // partition (srcunit tex) and again at its home (srcunit ltcfabric), as the H100's
  // breakdown by source unit shows (scripts/simulate-vs-ncu.sh).
  const long long n = l2_lookups();
  return n == 0 ? NAN : 100.0 * static_cast<double>(l2_hits()) / static_cast<double>(n);
}

MemorySystem::MemorySystem(const HierarchyConfig& c) : config_(c) {
  if (c.line_bytes != 128 || c.sector_bytes != 32)
    throw std::invalid_argument("the memory-system model knows 128-byte lines of 32-byte sectors.");
  if (c.sms < 1 || c.l2_partitions < 1)
    throw std::invalid_argument("the memory-system model needs at least one SM and L2 partition.");
  const PersistWindow& p = c.persist;
  if (p.active() && (p.hit_ratio > 1.0 || p.carve_bytes >= c.l2_bytes))
    throw std::invalid_argument(
        "the persisting window needs a hit ratio of at most 1 and a set-aside below the L2 size.");
  t_.sector_bytes = c.sector_bytes;
  last_l2_load_.assign(static_cast<std::size_t>(c.sms), {~std::uint64_t{0}, 0u});
  const long long l1_lines = c.l1_bytes / c.line_bytes;
  for (int s = 0; s < c.sms; ++s)
    l1_.push_back(l1_lines >= c.l1_ways
                      ? std::make_unique<SectorCache>(l1_lines, c.l1_ways, false, 0,
                                                      c.l1_random_replacement,
                                                      static_cast<std::uint64_t>(s) + 1)
                      : nullptr);  // no L1 left by the carveout
  const long long carve = p.active() ? p.carve_bytes : 0;
  const long long part_lines = (c.l2_bytes - carve) / c.line_bytes / c.l2_partitions;
  const long long carve_lines = carve / c.line_bytes / c.l2_partitions;
  for (int i = 0; i < c.l2_partitions; ++i) {
    l2_.push_back(std::make_unique<SectorCache>(part_lines, c.l2_ways, true, c.l2_dirty_ways));
    if (carve > 0)
      persist_.push_back(std::make_unique<SectorCache>(std::max<long long>(carve_lines, c.l2_ways),
                                                       c.l2_ways, true));
  }
}

MemorySystem::~MemorySystem() = default;
MemorySystem::MemorySystem(MemorySystem&&) noexcept = default;
MemorySystem& MemorySystem::operator=(MemorySystem&&) noexcept = default;

void MemorySystem::access(int sm, std::uint64_t line, unsigned sectors, bool store, bool l1_cached,
                          const std::uint64_t* bytes, int l2_promote_bytes, bool async_copy) {
  sectors &= 0xfu;
  if (!sectors) return;
  const int n = popcount4(sectors);
  SectorCache* l1 = l1_[static_cast<std::size_t>(sm % config_.sms)].get();
  if (store) {
    // Write-through with write-allocate and no fetch (Accel-Sim's Volta-and-later L1, after
    // NVIDIA's GTC 2018 S81006): a store finds its sector when an earlier load or store put
    // it there (a hit, as Nsight Compute counts it) and allocates it otherwise; it goes on to
    // L2 unless it merges.
    unsigned merged = 0;
    if (l1) {
      const SectorCache::Result r = l1->write(line, sectors, bytes, false);
      // Store combining: a warp's store into sectors L1 held whole (loaded, or written whole),
      // which an earlier store of the same round sent already, joins that write: Nsight
      // Compute counts it neither in L1 nor in L2 (particles_aos at 65,537 on the H100: 55,189
      // L2 store sectors for 147,459 stored, and L1's 85.6 % hits are the loads' and the first
      // stores'). Into sectors it did not hold, L1 hardly merges (a probe: 6.5 %).
      if (r.valid_before) {
        auto it = run_stores_.begin();
        while (it != run_stores_.end() && it->first != line) ++it;
        if (it == run_stores_.end()) {
          run_stores_.push_back({line, r.valid_before});
        } else {
          merged = it->second & r.valid_before;
          it->second |= r.valid_before;
        }
      }
      t_.l1_st_hits += popcount4(r.hit & ~merged);
    }
    t_.l1_st_sectors += n - popcount4(merged);
    const unsigned send = sectors & ~merged;
    if (send) l2_access(sm, line, send, Op::store, bytes);
    return;
  }
  t_.l1_ld_sectors += n;
  unsigned miss = sectors;
  if (l1) {
    const unsigned hit = l1->read(line, sectors, l1_cached).hit;
    t_.l1_ld_hits += popcount4(hit);
    miss = sectors & ~hit;
  }
  if (!miss) return;
  const long long near = t_.l2_ld_sectors, far = t_.l2_fabric_sectors, near_hits = t_.l2_ld_hits;
  l2_access(sm, line, miss, Op::load, nullptr, l2_promote_bytes);
  // A one-sector request that misses while the SM's previous request asked the other sector
  // of its 64-byte pair is looked up again, a hit, in a share of cases the card sets
  // (Card::l2_pair_replay_share, measured per card where warps read a line's four sectors
  // one after another, one byte a lane; two bytes a lane or more showed none; none on a card
  // not measured). Which of them is chosen by a hash of the sector.
  auto& last = last_l2_load_[static_cast<std::size_t>(sm % config_.sms)];
  const unsigned partner = ((miss & 0x5u) << 1) | ((miss & 0xau) >> 1);
  if (popcount4(miss) == 1 && t_.l2_ld_hits == near_hits && last.first == line &&
      (last.second & partner)) {
    if (in_share(mix(line * 4 + static_cast<std::uint64_t>(miss) + 0x51ed27u),
                 config_.l2_pair_replay_share)) {
      ++t_.l2_ld_sectors;
      ++t_.l2_ld_hits;
    }
  }
  last = {line, miss};
  if (async_copy) {  // every lookup it made counted again, as a hit (near and over the fabric)
    const long long again = t_.l2_ld_sectors - near, f = t_.l2_fabric_sectors - far;
    t_.l2_ld_sectors += again;
    t_.l2_ld_hits += again;
    t_.l2_fabric_sectors += f;
    t_.l2_fabric_hits += f;
  }
}

void MemorySystem::atomic(int sm, std::uint64_t line, unsigned sectors) {
  sectors &= 0xfu;
  if (!sectors) return;
  t_.l1_atom_sectors += popcount4(sectors);
  l2_access(sm, line, sectors, Op::atomic, nullptr);
}

void MemorySystem::l2_prefetch(int sm, std::uint64_t line, unsigned sectors) {
  sectors &= 0xfu;
  if (sectors) l2_access(sm, line, sectors, Op::load, nullptr);
}

std::size_t MemorySystem::home_of(std::uint64_t line) const {
  return static_cast<std::size_t>(mix(line ^ 0x9e3779b97f4a7c15ull) %
                                  static_cast<std::uint64_t>(l2_.size()));
}

void MemorySystem::l2_fill(std::uint64_t line, unsigned sectors) {
  const SectorCache::Result r = l2_[home_of(line)]->read(line, sectors, true);
  t_.dram_rd_sectors += popcount4(sectors & ~r.hit);
  evicted(r.evicted_dirty, r.evicted_partial);
  t_.dram_wr_sectors += r.cleaned;
}

void MemorySystem::evicted(unsigned dirty, unsigned partial) {
  // A sector written in part reaches DRAM as a read-modify-write: the H100 read 10 MB for the
  // 0.5 MB of operands of reg_tile_2d at 8192x4096x8, whose C stores leave sectors in part.
  t_.dram_wr_sectors += popcount4(dirty);
  t_.dram_rd_sectors += popcount4(partial);
}

void MemorySystem::l2_access(int sm, std::uint64_t line, unsigned sectors, Op op,
                             const std::uint64_t* bytes, int promote) {
  const std::size_t parts = l2_.size();
  const std::size_t home = home_of(line);
  const std::size_t local =
      static_cast<std::size_t>((sm % config_.sms) * parts) / static_cast<std::size_t>(config_.sms);
  const bool load = op == Op::load;
  long long& lookups = load                ? t_.l2_ld_sectors
                       : op == Op::store ? t_.l2_st_sectors
                                         : t_.l2_atom_sectors;
  long long& hits = load ? t_.l2_ld_hits : op == Op::store ? t_.l2_st_hits : t_.l2_atom_hits;
  // A promoted load that misses at home fetches the whole aligned block there: the line's
  // other sectors and, for 256 bytes, its neighbour's (filled at that line's home, where its
  // lookups go; the persisting set-aside is not modeled for promoted fills).
  auto promoted = [&](unsigned home_hit, unsigned asked) {
    if (!load || promote < 128 || (asked & ~home_hit) == 0) return;
    if (asked != 0xfu) l2_fill(line, 0xfu & ~asked);
    if (promote >= 256) l2_fill(line ^ 1u, 0xfu);
  };
  if (!config_.l2_local_caching || local == home) {
    promoted(l2_lookup(home, line, sectors, op, bytes, true, lookups, hits), sectors);
    return;
  }
  // The local caching node: a clean copy. A load it serves stops there; the rest, and every
  // store and atomic, goes on to the home partition.
  const unsigned found = l2_lookup(local, line, sectors, op, bytes, false, lookups, hits);
  const unsigned rest = load ? sectors & ~found : sectors;
  if (rest)
    promoted(
        l2_lookup(home, line, rest, op, bytes, true, t_.l2_fabric_sectors, t_.l2_fabric_hits),
        rest);
}

unsigned MemorySystem::l2_lookup(std::size_t part, std::uint64_t line, unsigned sectors, Op op,
                                 const std::uint64_t* bytes, bool home, long long& lookups,
                                 long long& hits) {
  const int n = popcount4(sectors);
  SectorCache* cache = l2_[part].get();
  const PersistWindow& p = config_.persist;
  const std::uint64_t byte = line * static_cast<std::uint64_t>(config_.line_bytes);
  bool persisting = false;
  if (home && !persist_.empty() && byte >= p.base && byte < p.base + p.bytes) {
    // The hit-ratio share of the window's lines, by a second hash.
    const std::uint64_t h = mix(line ^ 0x9e3779b97f4a7c15ull);
    if (in_share(mix(h), p.hit_ratio)) {
      cache = persist_[part].get();
      persisting = true;
    }
  }
  // Loads read the missing sectors from DRAM (a partly written sector too: its other bytes
  // are there); stores allocate with their byte mask and fetch nothing; an atomic is a read
  // at home that leaves the sectors dirty, and at the local node a look that keeps nothing;
  // only the home partition holds dirty data.
  const bool store = op == Op::store;
  SectorCache::Result r;
  if (store)
    r = cache->write(line, sectors, bytes, home);
  else if (op == Op::load || home)
    r = cache->read(line, sectors, true);
  else
    r = cache->read(line, sectors, false);
  if (op == Op::atomic && home) cache->write(line, sectors, nullptr, true);
  // An atomic's lookup at the local node counts as a hit, as a store's does (the H100's
  // global_atomics: 11.87 M red sectors at srcunit tex, 17 misses).
  const bool counted_hit = store || (op == Op::atomic && !home);
  const int found = counted_hit && config_.l2_store_hits ? n : popcount4(r.hit);
  lookups += n;
  hits += found;
  if (persisting) t_.l2_persist_hits += found;
  if (home && !store) t_.dram_rd_sectors += n - popcount4(r.hit);
  evicted(r.evicted_dirty, r.evicted_partial);
  t_.dram_wr_sectors += r.cleaned;
  return r.hit;
}

void MemorySystem::membar() {
  t_.l2_membar_sectors += static_cast<long long>(config_.l2_slices) * (l2_.size() > 1 ? 2 : 1);
}

void MemorySystem::instruction_fetch(long long code_bytes) {
  if (code_bytes <= 0) return;
  const long long sectors = (code_bytes + config_.sector_bytes - 1) / config_.sector_bytes;
  const long long lookups = kCodeLookupsPerSector * sectors;
  t_.l2_code_sectors += lookups;
  t_.l2_code_hits += lookups - lookups / 4;
  t_.dram_rd_sectors += sectors;
}

Traffic MemorySystem::traffic() const {
  Traffic t = t_;
  t.l2_dirty_end_sectors = 0;
  for (const auto& c : l2_) t.l2_dirty_end_sectors += c->dirty_sectors();
  for (const auto& c : persist_) t.l2_dirty_end_sectors += c->dirty_sectors();
  t.l2_end_sectors = std::llround(config_.l2_end_lookups_per_dirty_sector *
                                  static_cast<double>(t.l2_dirty_end_sectors));
  return t;
}

}  // namespace memhier::model
