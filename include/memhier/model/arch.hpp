// Architecture table: the per-SM and per-block limits that decide occupancy and
// the memory geometry (banks, lines, sectors) the access models use.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace memhier::model {

/// Limits of one compute capability, as documented in the CUDA programming guide
/// (tables "Technical Specifications per Compute Capability") and cuda_occupancy.h.
struct ArchSpec {
  int cc_major = 0;
  int cc_minor = 0;
  std::string name;  ///< family name, e.g. "Hopper"

  int warp_size = 32;
  int max_threads_per_block = 1024;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;

  int regs_per_sm = 65536;           ///< 32-bit registers per SM
  int max_regs_per_block = 65536;    ///< 32-bit registers one block may use
  int max_regs_per_thread = 255;
  int reg_alloc_unit = 256;          ///< registers are allocated per warp in this unit
  int sm_sub_partitions = 4;         ///< the register file is split evenly among these

  int smem_per_sm = 0;               ///< largest shared-memory carveout, bytes
  int smem_per_block_default = 48 * 1024;  ///< without cudaFuncAttributeMaxDynamicSharedMemorySize
  int smem_per_block_optin = 0;      ///< largest dynamic + static per block with the opt-in
  int smem_reserved_per_block = 0;   ///< bytes the system reserves in each resident block
  int smem_alloc_unit = 128;         ///< shared memory is allocated per block in this unit
  /// Selectable shared-memory sizes per SM, KiB, ascending; the last equals smem_per_sm.
  /// A carveout request is rounded up to the first entry that holds it.
  std::vector<int> carveout_kb;
  int l1_plus_smem_kb = 0;           ///< unified L1 + shared capacity per SM, KiB

  int shared_banks = 32;
  int bank_width_bytes = 4;
  int cache_line_bytes = 128;        ///< L1 and L2 line: [PG] "Global Memory" (128-byte lines)
  int sector_bytes = 32;             ///< L1 and L2 sector: Nsight Compute's memory model (32 B)
  /// L1 ways (the memory-system model's L1 is set-associative with LRU): assumed, NVIDIA
  /// does not document it; 4 keeps a set's scan short and the model fast.
  int l1_ways = 4;
  /// L2 ways per partition: assumed (undocumented); 16 with the set index hashed.
  int l2_ways = 16;
  /// L2 partitions: [A100/H100 whitepapers] the L2 is split in two partitions from 8.0 on
  /// (GA100 and GH100 "L2 cache is divided into two partitions"); one before, and on the
  /// GA10x/AD10x/GB20x parts (one L2 in their whitepapers).
  int l2_partitions = 1;
  /// Dirty lines an L2 set keeps at most (the memory-system model writes the oldest whole one
  /// back past it): fitted to the H100, which ended GEMMs streaming 134 MB of C with about
  /// 22.6 MB dirty of its 50 MB (dram__bytes_write 111.6 MB); 7 of 16 ways. Assumed elsewhere.
  int l2_dirty_ways = 7;
  /// L2 lookups, all hits, that Nsight Compute counts per dirty sector a kernel leaves in L2,
  /// beyond its accesses and an empty kernel's (fabric operations neither read nor write, and
  /// lookups of no source unit). Fitted on the H200 (cc 9.0): kernels that ended with all their
  /// stores in L2 showed 0.22-0.49 a sector (elementwise at 100,003, transpose at 1000x772;
  /// scripts/simulate-vs-ncu.sh's breakdown); the h100-sxm fixture's count is unchanged. 0
  /// where not measured.
  double l2_end_lookups_per_dirty_sector = 0;

  int cuda_cores_per_sm = 0;         ///< fp32 lanes per SM (FMA per clock)
  /// Dense bf16 tensor-core FLOP per clock per SM with fp32 accumulation (2 per FMA); 0 where
  /// the architecture has no bf16 tensor path or no confirmed figure (its row says which).
  int bf16_tensor_flops_per_clk = 0;

  /// "9.0"
  std::string cc() const;
};

/// The number type a peak is quoted in: the fp32 FMA pipes, or bf16 on the tensor cores
/// (dense, fp32 accumulation).
enum class NumberType { fp32, bf16 };

/// "fp32" or "bf16".
const char* to_string(NumberType type);

/// Dense FLOP per clock per SM of `arch` in `type`: fp32 lanes x 2, or the bf16 tensor-core
/// rate; NaN where the architecture has none or the table lacks it.
double flops_per_clock_per_sm(const ArchSpec& arch, NumberType type);

/// Peak GFLOP/s in `type` of `sms` SMs at `clock_mhz`: SMs x flops_per_clock_per_sm x clock;
/// NaN where there is no rate or no clock.
double peak_gflops(const ArchSpec& arch, NumberType type, int sms, double clock_mhz);

/// Every compute capability memhier knows, in ascending order.
const std::vector<ArchSpec>& all_archs();

/// The spec for `major.minor`, or nullptr when memhier has no table for it.
const ArchSpec* find_arch(int major, int minor);

/// Parses "9.0", "90", "sm_90", "sm_90a" or "compute_90"; nullptr when unknown or malformed.
const ArchSpec* find_arch(const std::string& cc);

}  // namespace memhier::model
