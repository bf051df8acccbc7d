// The memory-system model: per-SM L1, a partitioned L2 and DRAM, replaying a kernel's
// global accesses sector by sector and counting what Nsight Compute counts
// (l1tex__t_sector_hit_rate, lts__t_sector_hit_rate, dram__bytes_read / _write).
//
// L1: one per SM, 128-byte lines of four 32-byte sectors, set-associative (ArchSpec::l1_ways,
// assumed) with random replacement (HierarchyConfig::l1_random_replacement); a load miss
// fetches only the missing sectors (sector fill);
// stores are write-through with write-allocate and no fetch, bytes tracked per sector
// (Accel-Sim's model of Volta and later: "L1 cache is write_allocate write_through", after
// NVIDIA GTC 2018 S81006): a store hits a sector an earlier load or store put there and
// allocates it otherwise, and a load hits a store-allocated sector only once it is written
// whole; a warp's run of stores sends a sector L1 held whole (loaded, say) to L2 once, its later
// stores into it merging (store combining, counted neither in L1 nor in L2); non-caching
// loads (ld.global.cg) look up and never allocate.
// L2: ArchSpec::l2_partitions partitions of equal size, a line's home partition chosen by a
// hash of its address (every SM reaches it; no far-side copies), each set-associative with
// true LRU over hashed sets; write-back with write-allocate at sector granularity and a byte
// mask (a store miss allocates the sector dirty without reading DRAM, and counts as a hit, see
// HierarchyConfig::l2_store_hits); a load miss reads the missing sectors from DRAM (a partly
// written sector too); an evicted dirty sector is one DRAM sector written (and one read when
// written only in part); a set keeps at most ArchSpec::l2_dirty_ways dirty lines, writing the
// oldest whole one back past it. Global atomics count as L1 lookups that never hit and
// read-modify-write the sector at its home. Two lookups Nsight Compute counts beside the
// accesses: a GPU-scope fence hits every slice (membar), and a one-sector load right after
// its 64-byte partner's is looked up again, a hit, in a measured share of cases. Dirty
// sectors still in L2 when the kernel ends are not DRAM traffic of the kernel (Nsight Compute
// counts them neither) and are reported apart. The persisting-access window
// (cudaAccessPolicyWindow): a `hit_ratio` share of the window's lines, chosen by a hash,
// lives in a set-aside of `carve_bytes`; every other line uses the rest of the L2.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace memhier::model {

struct Card;

/// cudaAccessPolicyWindow with hitProp persisting, missProp streaming, and the set-aside
/// (cudaLimitPersistingL2CacheSize); inactive while bytes or carve_bytes is 0.
struct PersistWindow {
  std::uint64_t base = 0;     ///< first byte of the window
  std::uint64_t bytes = 0;    ///< window size
  double hit_ratio = 1.0;     ///< share of the window's lines that persist, 0..1
  long long carve_bytes = 0;  ///< L2 set aside for persisting lines

  bool active() const { return bytes > 0 && carve_bytes > 0 && hit_ratio > 0; }
};

/// The geometry a replay runs on.
struct HierarchyConfig {
  int sms = 1;
  int line_bytes = 128;
  int sector_bytes = 32;
  long long l1_bytes = 0;  ///< per SM, after the shared-memory carveout
  int l1_ways = 4;
  /// A full L1 set evicts a pseudo-random way rather than its least recently used: on the
  /// H100 (L1 of 224 KiB), an axpy's stores found their line, loaded a moment before, in 76.8 %
  /// (float4) and 57.4 % (two float4 a thread) of cases with 64 and 128 KiB in flight per SM,
  /// near a random cache's e^(-in flight / capacity) of 75 % and 56 %, where LRU keeps them all.
  bool l1_random_replacement = true;
  long long l2_bytes = 0;
  int l2_ways = 16;
  int l2_partitions = 1;
  /// With several partitions, an SM's access to a line another partition is home to looks up
  /// the SM's own partition first (the local caching node), which keeps a clean copy, and
  /// on a load miss or any store goes on over the fabric to the home partition (the point of
  /// coherence), where DRAM is read and dirty data lives; both lookups count (Nsight Compute
  /// attributes the second to srcunit ltcfabric). NVIDIA on GH100 and GB100: "When a GPC on
  /// one partition reads from memory attached to the other partition the request is sent to
  /// a local L2 cache slice (local caching node) and then direct over the LTCFABRIC to the
  /// remote memory partition L2 cache slice (point of coherence)" (developer forums, "NCU L2
  /// metric understanding"); the A100 whitepaper: "each L2 partition localizes and caches
  /// data for memory accesses from SMs in the GPCs directly connected to the partition".
  /// SM s belongs to partition s * partitions / sms (assumed: SMs numbered GPC by GPC).
  bool l2_local_caching = true;
  /// A store's L2 lookup counts as a hit whatever the sector held: the L2 allocates it
  /// with a byte mask and needs no fill, and Nsight Compute reports write hit rates of
  /// 100% (lts__t_sector_op_write_hit_rate). False counts a store to an absent sector a miss.
  bool l2_store_hits = true;
  /// At most this many dirty lines per L2 set (0: no cap): a write past it writes the least
  /// recently used other dirty line back to DRAM.
  int l2_dirty_ways = 0;
  /// L2 slices a GPU-scope fence reaches (0: fences cost no lookup); see MemorySystem::membar.
  int l2_slices = 0;
  /// Lookups, all hits, per dirty sector left in L2 when the kernel ends (0: none); see
  /// Traffic::l2_end_sectors.
  double l2_end_lookups_per_dirty_sector = 0;
  /// The share of one-sector loads looked up again after their partner's (access; 0: none).
  double l2_pair_replay_share = 0;
  PersistWindow persist;
};

/// The geometry of `card` with `l1_bytes` of L1 per SM.
HierarchyConfig hierarchy_for(const Card& card, long long l1_bytes);

/// Sector counts of one replay (names follow Nsight Compute's).
struct Traffic {
  long long l1_ld_sectors = 0, l1_ld_hits = 0;  ///< global-load sector lookups in L1, hits
  long long l1_st_sectors = 0, l1_st_hits = 0;  ///< global-store sector lookups, hits
  long long l1_atom_sectors = 0;  ///< global atomic sectors through L1 (never hits)
  long long l2_ld_sectors = 0, l2_ld_hits = 0;  ///< L2 sector lookups from loads (L1 misses)
  long long l2_st_sectors = 0, l2_st_hits = 0;  ///< L2 sector lookups from stores
  long long l2_atom_sectors = 0, l2_atom_hits = 0;  ///< L2 sector lookups from atomics
  /// Lookups (and hits) at a home partition for another partition's SMs, over the fabric.
  long long l2_fabric_sectors = 0, l2_fabric_hits = 0;
  /// Lookups (all hits) that GPU-scope fences make at the slices (MemorySystem::membar).
  long long l2_membar_sectors = 0;
  /// Instruction-fetch lookups and hits (MemorySystem::instruction_fetch).
  long long l2_code_sectors = 0, l2_code_hits = 0;
  long long l2_persist_hits = 0;       ///< hits in the persisting set-aside
  long long dram_rd_sectors = 0;       ///< sectors read from DRAM
  long long dram_wr_sectors = 0;       ///< dirty sectors evicted to DRAM
  long long l2_dirty_end_sectors = 0;  ///< dirty sectors left in L2 at the end
  /// Lookups (all hits) that are no access of the kernel's and scale with the dirty sectors
  /// it leaves in L2 (HierarchyConfig::l2_end_lookups_per_dirty_sector).
  long long l2_end_sectors = 0;
  int sector_bytes = 32;

  /// L1 sector hit rate over loads and stores, percent (NaN with no lookup).
  double l1_hit_rate() const;
  /// Every L2 sector lookup as Nsight Compute counts them (lts__t_sectors_lookup_hit + _miss):
  /// the SMs' (srcunit tex) and the home partitions' second lookups over the fabric.
  long long l2_lookups() const {
    return l2_ld_sectors + l2_st_sectors + l2_atom_sectors + l2_fabric_sectors +
           l2_membar_sectors + l2_code_sectors + l2_end_sectors;
  }
  /// The hits among l2_lookups().
  long long l2_hits() const {
    return l2_ld_hits + l2_st_hits + l2_atom_hits + l2_fabric_hits + l2_membar_sectors +
           l2_code_hits + l2_end_sectors;
  }
  /// L2 sector hit rate over l2_lookups(), percent (NaN with no lookup).
  double l2_hit_rate() const;
  /// Sectors crossing between the SMs and L2 (L1 load misses, stores and atomics).
  long long l2_sm_sectors() const { return l2_ld_sectors + l2_st_sectors + l2_atom_sectors; }
  double dram_read_bytes() const { return static_cast<double>(dram_rd_sectors) * sector_bytes; }
  double dram_write_bytes() const { return static_cast<double>(dram_wr_sectors) * sector_bytes; }
  /// Adds `o`'s counts (kernels replayed one after another); sector_bytes stays.
  Traffic& operator+=(const Traffic& o) {
    l1_ld_sectors += o.l1_ld_sectors;
    l1_ld_hits += o.l1_ld_hits;
    l1_st_sectors += o.l1_st_sectors;
    l1_st_hits += o.l1_st_hits;
    l1_atom_sectors += o.l1_atom_sectors;
    l2_ld_sectors += o.l2_ld_sectors;
    l2_ld_hits += o.l2_ld_hits;
    l2_st_sectors += o.l2_st_sectors;
    l2_st_hits += o.l2_st_hits;
    l2_atom_sectors += o.l2_atom_sectors;
    l2_atom_hits += o.l2_atom_hits;
    l2_fabric_sectors += o.l2_fabric_sectors;
    l2_fabric_hits += o.l2_fabric_hits;
    l2_membar_sectors += o.l2_membar_sectors;
    l2_code_sectors += o.l2_code_sectors;
    l2_code_hits += o.l2_code_hits;
    l2_persist_hits += o.l2_persist_hits;
    dram_rd_sectors += o.dram_rd_sectors;
    dram_wr_sectors += o.dram_wr_sectors;
    l2_dirty_end_sectors += o.l2_dirty_end_sectors;
    l2_end_sectors += o.l2_end_sectors;
    return *this;
  }
};

class SectorCache;

/// The caches of one device: an L1 per SM, the L2 partitions, DRAM counters.
class MemorySystem {
 public:
  /// Empty (cold) caches of the given geometry; throws std::invalid_argument for a
  /// geometry with no sets.
  explicit MemorySystem(const HierarchyConfig& config);
  ~MemorySystem();
  MemorySystem(MemorySystem&&) noexcept;
  MemorySystem& operator=(MemorySystem&&) noexcept;

  /// One warp instruction's sectors in one 128-byte line: `line` is the byte address / 128,
  /// `sectors` a 4-bit mask. `l1_cached`: a caching load (ld.ca, the default from 7.0);
  /// ignored for stores. `bytes`: a store's bytes of the line (two words, bit i = byte i),
  /// nullptr when it writes its sectors whole. `l2_promote_bytes` (128 or 256; 0 none): a
  /// load whose home lookup misses fills that aligned block at home (its other sectors read
  /// from DRAM, no lookup counted), as the L2::128B / L2::256B hints ask. `async_copy`: a
  /// cp.async.cg load, whose L2 sectors are counted a second time as hits (WarpAccess).
  void access(int sm, std::uint64_t line, unsigned sectors, bool store, bool l1_cached = true,
              const std::uint64_t* bytes = nullptr, int l2_promote_bytes = 0,
              bool async_copy = false);

  /// A warp's next instruction, or its next run of stores issued in one round, begins: a
  /// store of the run into a sector L1 held whole before it, which an earlier store of the
  /// run already sent to L2, merges into that write (no second L2 lookup).
  void begin_warp_round() { run_stores_.clear(); }

  /// A global atomic or reduction on `sectors` of `line` from SM `sm`: an L1 lookup that never
  /// hits nor allocates, then a read-modify-write at L2 taking the store's path (the SM's own
  /// partition, then the home over the fabric): at home a hit when the sector is there, else
  /// read from DRAM; the sector is then dirty.
  void atomic(int sm, std::uint64_t line, unsigned sectors);

  /// A prefetch of `sectors` of `line` into L2 from SM `sm`: counted as the SM's L2 load
  /// lookups (Nsight Compute counts them under srcunit tex), never in L1.
  void l2_prefetch(int sm, std::uint64_t line, unsigned sectors);

  /// A GPU-scope fence (membar.gl, a release or acquire at device or cluster scope): one
  /// lookup hit at every L2 slice, counted again at the requesting side with two partitions.
  /// The H100 counts 160 (ltcfabric op membar, 80, and as many at srcnode gpc) per fence:
  /// 4.0 per block of the lane-privatized pairs (two cluster.sync), 0.98 per block of the
  /// acquire-release ticket; an empty launch makes 264 (scripts/simulate-vs-ncu.sh).
  void membar();

  /// The kernel's `code_bytes` of machine code fetched after a cold start (Nsight Compute
  /// flushes the caches): read once from DRAM, and 7 L2 lookups a sector of which 1.75 miss
  /// (srcunit gcc, the GPCs' instruction caches). Measured on the H100: DRAM read beyond the
  /// operands at 257x255x129 of 61,920 B for cfg_cp4's 62,080 B of code, 66,272 for
  /// cfg_128x256's 67,712, 78,560 for warp_tiled's 86,656; 6.1-7.8 lookups and 1.6-1.9
  /// misses a code sector beyond an empty kernel's.
  void instruction_fetch(long long code_bytes);

  /// The counts so far, with the dirty sectors now in L2.
  Traffic traffic() const;
  const HierarchyConfig& config() const { return config_; }

 private:
  enum class Op { load, store, atomic };
  void l2_access(int sm, std::uint64_t line, unsigned sectors, Op op, const std::uint64_t* bytes,
                 int promote = 0);
  // The partition a line is homed in.
  std::size_t home_of(std::uint64_t line) const;
  // Counts the DRAM traffic of the dirty sectors a lookup evicted.
  void evicted(unsigned dirty, unsigned partial);
  // Fills the sectors of `line` absent at its home from DRAM (a promoted fetch): no lookup.
  void l2_fill(std::uint64_t line, unsigned sectors);
  // One lookup in a partition (its persisting set-aside for a line of the window); counts
  // DRAM reads and dirty evictions at a home partition. Returns the sectors found.
  unsigned l2_lookup(std::size_t part, std::uint64_t line, unsigned sectors, Op op,
                     const std::uint64_t* bytes, bool home, long long& lookups, long long& hits);

  HierarchyConfig config_;
  Traffic t_;
  std::vector<std::unique_ptr<SectorCache>> l1_;       ///< one per SM
  std::vector<std::unique_ptr<SectorCache>> l2_;       ///< one per partition
  std::vector<std::unique_ptr<SectorCache>> persist_;  ///< set-aside per partition
  /// Per SM, the line and sectors of its last L2 load request (see access: pair replays).
  std::vector<std::pair<std::uint64_t, unsigned>> last_l2_load_;
  /// The held sectors the current warp round's stores sent to L2, per line (begin_warp_round).
  std::vector<std::pair<std::uint64_t, unsigned>> run_stores_;
};

}  // namespace memhier::model
