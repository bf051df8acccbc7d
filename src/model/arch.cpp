// The architecture table: one entry per compute capability memhier models.
//
// Sources, cited per entry below:
//   [PG]  CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"
//         and the per-architecture "Shared Memory" sections (carveout sizes).
//   [OCC] /usr/local/cuda/include/cuda_occupancy.h (CUDA 13.0), which the occupancy
//         model must reproduce; where it disagrees with [PG] the entry follows [OCC]
//         and says so, because the runtime's occupancy API computes the same numbers.
//   [TC]  The bf16 tensor-core rate (dense, fp32 accumulation): NVIDIA's architecture
//         whitepapers and datasheets, as per-GPU TFLOP/s = SMs x FLOP/clk/SM x the clock
//         NVIDIA quotes for tensor work. Left 0 (no peak) where no bf16 path exists or where
//         the compute capability alone does not fix the rate; each row says which.
#include "memhier/model/arch.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace memhier::model {

namespace {

constexpr int kKiB = 1024;

// The fields that differ between compute capabilities; everything else keeps the
// defaults declared in ArchSpec (32-thread warps, 1024 threads and 64K registers per
// block, 64K registers per SM, 255 per thread, 256-register warp allocation, 4
// sub-partitions, 48 KiB default per-block shared memory, 32 x 4-byte banks,
// 128-byte lines and 32-byte sectors), which hold for every entry in the table.
struct Row {
  int major, minor;
  const char* name;
  int max_warps_per_sm;
  int max_blocks_per_sm;
  int smem_per_sm_kb;
  int smem_optin_kb;
  int smem_reserved_bytes;
  int smem_alloc_unit;
  std::vector<int> carveout_kb;
  int l1_plus_smem_kb;
  int fp32_lanes;
  int bf16_tensor_flops;  ///< per clock per SM, [TC]; 0: none or not confirmed
};

ArchSpec make(const Row& row) {
  ArchSpec a;
  a.cc_major = row.major;
  a.cc_minor = row.minor;
  a.name = row.name;
  a.max_warps_per_sm = row.max_warps_per_sm;
  a.max_blocks_per_sm = row.max_blocks_per_sm;
  a.smem_per_sm = row.smem_per_sm_kb * kKiB;
  a.smem_per_block_optin = row.smem_optin_kb * kKiB;
  a.smem_reserved_per_block = row.smem_reserved_bytes;
  a.smem_alloc_unit = row.smem_alloc_unit;
  a.carveout_kb = row.carveout_kb;
  a.l1_plus_smem_kb = row.l1_plus_smem_kb;
  a.cuda_cores_per_sm = row.fp32_lanes;
  a.bf16_tensor_flops_per_clk = row.bf16_tensor_flops;
  // Two L2 partitions on the big-die datacenter parts (see ArchSpec::l2_partitions).
  a.l2_partitions = (row.major == 8 && row.minor == 0) || row.major == 9 || row.major == 10 ? 2 : 1;
  a.l2_end_lookups_per_dirty_sector = row.major == 9 ? 0.4 : 0;  // see ArchSpec
  return a;
}

std::vector<ArchSpec> build_table() {
  // Selectable shared-memory sizes per SM (KiB), shared by several generations; local, so
  // a static initializer elsewhere that calls all_archs() never sees them unconstructed.
  const std::vector<int> kVoltaSteps{0, 8, 16, 32, 64, 96};
  const std::vector<int> kTuringSteps{32, 64};
  const std::vector<int> kA100Steps{0, 8, 16, 32, 64, 100, 132, 164};
  const std::vector<int> kGa10xSteps{0, 8, 16, 32, 64, 100};
  const std::vector<int> kHopperSteps{0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

  std::vector<ArchSpec> t;
  // 7.0 Volta (V100). [PG] tech specs: 64 warps, 32 blocks, 96 KB smem/SM and per block
  // opt-in, 128 KB L1+smem, no reserved smem; [PG] 7.x shared memory: carveout 0, 8, 16,
  // 32, 64 or 96 KB. [OCC] 256-byte smem granularity on 7.x. [PG] arithmetic table: 64 fp32.
  // [TC] Volta's tensor cores take fp16 only: no bf16 (it arrives with 8.0).
  t.push_back(make({7, 0, "Volta", 64, 32, 96, 96, 0, 256, kVoltaSteps, 128, 64, 0}));
  // 7.5 Turing. [PG] tech specs: 32 warps, 16 blocks, 64 KB smem/SM and per block, 96 KB
  // L1+smem; [PG] 7.x shared memory: Turing offers 32 or 64 KB only, so a 0% carveout
  // still gives 32 KB ([OCC] rounds every request up to 32 or 64 KB). 64 fp32 lanes.
  // [TC] Turing's tensor cores take fp16, int8 and int4: no bf16.
  t.push_back(make({7, 5, "Turing", 32, 16, 64, 64, 0, 256, kTuringSteps, 96, 64, 0}));
  // 8.0 Ampere A100. [PG] tech specs: 64 warps, 32 blocks, 164 KB smem/SM, 163 KB opt-in,
  // 1 KB reserved per block, 192 KB L1+smem; [PG] 8.x shared memory: carveout 0, 8, 16,
  // 32, 64, 100, 132 or 164 KB. [OCC] 128-byte granularity from 8.x on. 64 fp32 lanes.
  // [TC] A100 whitepaper: 256 bf16 FMA per clock per tensor core, 4 per SM = 2048 FLOP/clk;
  // its 312 TFLOP/s dense bf16 = 108 SMs x 2048 x 1410 MHz.
  t.push_back(make({8, 0, "Ampere", 64, 32, 164, 163, 1024, 128, kA100Steps, 192, 64, 2048}));
  // 8.6 Ampere GA10x (RTX 30, A40). [PG] tech specs: 48 warps, 16 blocks, 100 KB smem/SM,
  // 99 KB opt-in, 1 KB reserved, 128 KB L1+smem; [PG] 8.x shared memory: carveout 0, 8,
  // 16, 32, 64 or 100 KB. [PG] arithmetic table: 128 fp32 lanes.
  // [TC] unset: no per-SM figure for this CC confirmed from NVIDIA's documents; GeForce
  // parts accumulate fp32 at half their fp16-accumulate rate, so fp16 figures do not carry.
  t.push_back(make({8, 6, "Ampere", 48, 16, 100, 99, 1024, 128, kGa10xSteps, 128, 128, 0}));
  // 8.9 Ada (RTX 40, L4, L40). [PG] tech specs: 48 warps, 24 blocks, 100 KB smem/SM, 99 KB
  // opt-in, 1 KB reserved, 128 KB L1+smem; carveouts as 8.6 ([OCC] treats all 8.x but 8.0
  // and 8.7 alike). 128 fp32 lanes.
  // [TC] unset as 8.6: the RTX 4090's 165.2 TFLOP/s dense bf16 with fp32 accumulation (a
  // third-party listing, not checked against NVIDIA's Ada whitepaper) is 128 SMs x 512 x
  // 2520 MHz, half its fp16-accumulate rate.
  t.push_back(make({8, 9, "Ada", 48, 24, 100, 99, 1024, 128, kGa10xSteps, 128, 128, 0}));
  // 9.0 Hopper (H100, H200). [PG] tech specs: 64 warps, 32 blocks, 228 KB smem/SM, 227 KB
  // opt-in, 1 KB reserved, 256 KB L1+smem; [PG] 9.0 shared memory: carveout 0, 8, 16, 32,
  // 64, 100, 132, 164, 196 or 228 KB. 128 fp32 lanes.
  // [TC] H100 whitepaper: twice A100's tensor rate per SM per clock = 4096 FLOP/clk; the
  // SXM5's 989.4 TFLOP/s dense bf16 = 132 SMs x 4096 x 1830 MHz (its boost clock for tensor
  // work; the board reports 1980), the PCIe card's 756 = 114 x 4096 x 1620 MHz.
  t.push_back(make({9, 0, "Hopper", 64, 32, 228, 227, 1024, 128, kHopperSteps, 256, 128, 4096}));
  // 10.0 Blackwell datacenter (B200, GB200). [PG] tech specs: 64 warps, 32 blocks, 228 KB
  // smem/SM, 227 KB opt-in, 1 KB reserved, 256 KB L1+smem; carveouts as 9.0 ([OCC] lists
  // the same steps for 10.0). 128 fp32 lanes.
  // [TC] unset: NVIDIA quotes B200 and GB200 per GPU but publishes no tensor clock for them,
  // so the per-SM rate cannot be checked against the totals.
  t.push_back(make({10, 0, "Blackwell", 64, 32, 228, 227, 1024, 128, kHopperSteps, 256, 128, 0}));
  // 12.0 Blackwell GeForce / RTX PRO (RTX 50). [PG] tech specs: 48 warps, 100 KB smem/SM,
  // 99 KB opt-in, 1 KB reserved, 128 KB L1+smem; carveouts as 8.6 ([OCC]). Blocks per SM:
  // [OCC] cudaOccMaxBlocksPerMultiprocessor gives 24 for every 12.x, so 24 here (some
  // editions of [PG] print 32). 128 fp32 lanes.
  // [TC] unset as 8.6: third-party listings give 512 FLOP/clk/SM with fp32 accumulation
  // (RTX PRO 5000 Blackwell: 147.4 TFLOP/s = 110 SMs x 512 x 2620 MHz), not NVIDIA's own.
  t.push_back(make({12, 0, "Blackwell", 48, 24, 100, 99, 1024, 128, kGa10xSteps, 128, 128, 0}));
  return t;
}

// Reads a run of decimal digits at s[i...]; returns false when there is none or it
// is absurdly long (no compute capability has more than three digits).
bool read_digits(const std::string& s, std::size_t& i, int& value) {
  std::size_t start = i;
  value = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - start < 4) {
    value = value * 10 + (s[i] - '0');
    ++i;
  }
  return i > start && (i == s.size() || !std::isdigit(static_cast<unsigned char>(s[i])));
}

}  // namespace

const char* to_string(NumberType type) {
  return type == NumberType::bf16 ? "bf16" : "fp32";
}

double flops_per_clock_per_sm(const ArchSpec& arch, NumberType type) {
  const int rate =
      type == NumberType::bf16 ? arch.bf16_tensor_flops_per_clk : 2 * arch.cuda_cores_per_sm;
  return rate > 0 ? static_cast<double>(rate) : NAN;
}

double peak_gflops(const ArchSpec& arch, NumberType type, int sms, double clock_mhz) {
  if (sms <= 0 || !(clock_mhz > 0)) return NAN;
  return static_cast<double>(sms) * flops_per_clock_per_sm(arch, type) * clock_mhz / 1e3;
}

std::string ArchSpec::cc() const {
  return std::to_string(cc_major) + "." + std::to_string(cc_minor);
}

const std::vector<ArchSpec>& all_archs() {
  static const std::vector<ArchSpec> table = build_table();
  return table;
}

const ArchSpec* find_arch(int major, int minor) {
  for (const ArchSpec& a : all_archs()) {
    if (a.cc_major == major && a.cc_minor == minor) return &a;
  }
  return nullptr;
}

const ArchSpec* find_arch(const std::string& text) {
  std::string s;
  for (char c : text) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));

  // "sm_90", "sm_90a", "compute_90": the compact form behind a prefix, with the
  // architecture-specific ('a') or family ('f') suffix nvcc accepts.
  for (const char* prefix : {"sm_", "compute_"}) {
    std::string p = prefix;
    if (s.compare(0, p.size(), p) == 0) {
      s = s.substr(p.size());
      if (!s.empty() && (s.back() == 'a' || s.back() == 'f')) s.pop_back();
      if (s.find('.') != std::string::npos) return nullptr;  // "sm_9.0" is not a real name
      break;
    }
  }

  std::size_t i = 0;
  int first = 0;
  if (!read_digits(s, i, first)) return nullptr;
  if (i == s.size()) {
    // Compact "90" / "100" / "120": the last digit is the minor version.
    if (s.size() < 2 || s[0] == '0') return nullptr;
    return find_arch(first / 10, first % 10);
  }
  // Dotted "9.0" / "12.0": exactly one minor digit after the dot.
  if (s[i] != '.') return nullptr;
  ++i;
  std::size_t minor_start = i;
  int minor = 0;
  if (!read_digits(s, i, minor) || i != s.size() || i - minor_start != 1) return nullptr;
  return find_arch(first, minor);
}

}  // namespace memhier::model
