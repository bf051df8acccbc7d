// The claims catalogue: the data. In the data a source text is cited by its number
// ("001 §L2 Cache", the heading or table title the figure sits under); catalogue() spells
// each number out as the text's title. "memhier goal:" states a promise this project makes
// of itself, "published figures:" figures from elsewhere that a probe also compares.
#include "memhier/claims/catalogue.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "stated.hpp"

namespace memhier::claims {
namespace {

const std::string k000tiers = "000 §The Five Memory Spaces: Real Numbers";
const std::string k001tiers = "001 §GPU Memory Hierarchy Comparison (H100 SXM)";
const std::string k001coalescing = "001 §Global Memory Bandwidth: Coalescing Impact (A100)";
const std::string k001anti = "001 §Common Memory Anti-Patterns and Their Fixes";
const std::string k001priority = "001 §The Optimization Hierarchy: What to Fix First";
const std::string k001transpose = "001 §Matrix Transpose Performance (4096x4096, V100)";
const std::string k001softmax = "001 §Softmax Optimization Results (1024x4096, A100)";
const std::string k001async = "001 §Async Copy Impact on Tiled Kernels (A100)";
const std::string k001l2table =
    "001 §L2 Cache Impact by Working Set Size (A100, streaming read kernel)";
const std::string k002gemm = "002 §GEMM Performance (A100, M=N=K=4096, FP32)";
const std::string kPublished = "published figures: H100 pointer-chase microbenchmarks";

std::vector<Claim> build() {
  return {
      // ---- Latency per tier (probe latency; HBM also latency-working-set).
      checked(ClaimId::latency_shared_20_30_cycles, k001tiers,
              "shared memory latency ~20-30 cycles", {probe("latency")}, kLatency),
      checked(ClaimId::latency_shared_32_cycles, k000tiers,
              "shared memory latency ~32 cycles (H100 SXM5)", {probe("latency")}, kLatency),
      checked(ClaimId::latency_l1_30_40_cycles, "001 §L1 Cache; " + k001tiers,
              "L1 hit latency ~30-40 cycles", {probe("latency")}, kLatency),
      checked(ClaimId::latency_l1_40_cycles, k000tiers, "L1 + texture latency ~40 cycles",
              {probe("latency")}, kLatency),
      checked(ClaimId::latency_l1_33_cycles_published, kPublished,
              "L1 hit about 33 cycles on an H100", {probe("latency")}, kLatency),
      checked(ClaimId::latency_l2_200_cycles, "001 §L2 Cache; " + k001tiers + "; " + k000tiers,
              "L2 latency ~200 cycles", {probe("latency")}, kLatency),
      checked(ClaimId::latency_l2_265_530_cycles_published, kPublished,
              "L2 about 265-280 cycles (near partition) to 475-530 (far) on an H100",
              {probe("latency"), probe("l2-partitions")}, kLatency),
      checked(ClaimId::latency_hbm_400_600_cycles, "001 §HBM Basics; " + k001tiers,
              "global memory (HBM) latency 400-600 cycles",
              {probe("latency"), probe("latency-working-set")}, kLatency),
      checked(ClaimId::latency_hbm_400_cycles, k000tiers + "; 000 §The 8% Problem",
              "global memory (HBM) latency ~400 cycles", {probe("latency")}, kLatency),
      checked(ClaimId::latency_hbm_650_690_cycles_published, kPublished,
              "HBM about 650-690 cycles on an H100", {probe("latency")}, kLatency),
      checked(ClaimId::latency_constant_40_cycles, k000tiers,
              "constant memory ~40 cycles (cached broadcast), 64 KB",
              {probe("latency"), probe("constant")}, kLatency),
      checked(ClaimId::latency_local_400_cycles, k000tiers,
              "local memory ~400 cycles: it lives in HBM", {probe("latency")}, kLatency),
      checked(ClaimId::latency_spill_400_600_cycles,
              "001 §Register Spilling: The Silent Catastrophe",
              "a spilled register is a 400-600 cycle access when it misses both caches",
              {probe("latency")}, kLatency),
      checked(ClaimId::shared_12x_faster_than_global, "000 §Summary; 000 §The 8% Problem",
              "shared memory at 32 cycles is 12x faster than global memory at 400",
              {probe("latency")},
              {Tolerance::within_percent(50),
               "a ratio of two rounded latencies (32 and 400 cycles), each good to about ±25 %: "
               "wider than the default ±25 %"}),
      unmeasured(ClaimId::registers_1_cycle, k000tiers + "; " + k001tiers,
                 "registers: ~1 cycle, the same as an arithmetic instruction",
                 "a register operand needs no load, so there is no access to time apart from "
                 "the instruction that uses it"),
      unmeasured(ClaimId::registers_bandwidth, k000tiers + "; " + k001tiers,
                 "registers: ~20 TB/s (Global, Shared, and Register Memory), ~100+ TB/s aggregate "
                 "(GPU Memory Hierarchy)",
                 "register reads are part of every instruction; no kernel streams them apart "
                 "from its arithmetic"),

      // ---- Sizes and device figures.
      checked(ClaimId::l1_size_128_256kb, "001 §L1 Cache",
              "L1 holds up to 128-256 KB per SM, depending on the shared-memory split",
              {probe("latency-working-set")}, kKnee),
      checked(ClaimId::l2_size_50mb,
              "001 §L2 Cache; 001 §Memory Subsystem Evolution: V100, A100, H100",
              "L2 is 50 MB on an H100 (6 MB V100, 40 MB A100): latency steps up beyond it",
              {probe("latency-working-set")}, kKnee),
      unmeasured(ClaimId::h100_device_figures,
                 "001 §Memory Subsystem Evolution: V100, A100, H100; 000 §Why This Exists: The "
                 "Memory Wall; 000 §Python Wrapper: Measuring the Speedup",
                 "H100: 132 SMs, 256 KB of registers per SM, 16,896 CUDA cores at 1.98 GHz = "
                 "66.9 TFLOP/s fp32",
                 "device properties and a datasheet product, not measurements (memhier info "
                 "prints this card's; the GEMM ladder's fp32-peak column is computed from them)"),

      // ---- Bandwidth per tier (probe bandwidth; L2 and HBM also l2-working-set).
      checked(ClaimId::shared_bandwidth_3tbs, k001tiers, "shared memory ~3+ TB/s aggregate",
              {probe("bandwidth")}, kTierBandwidth),
      checked(ClaimId::shared_bandwidth_19tbs, k000tiers, "shared memory ~19 TB/s",
              {probe("bandwidth")}, kTierBandwidth),
      checked(ClaimId::l1_bandwidth_2tbs, k001tiers, "L1 cache ~1.5-2 TB/s", {probe("bandwidth")},
              kTierBandwidth),
      checked(ClaimId::l1_bandwidth_19tbs, k000tiers, "L1 + texture ~19 TB/s", {probe("bandwidth")},
              kTierBandwidth),
      checked(ClaimId::l2_bandwidth_12tbs, "001 §L2 Cache; " + k001tiers + "; " + k000tiers,
              "L2 ~12 TB/s on an H100", {probe("bandwidth"), probe("l2-working-set")},
              kTierBandwidth),
      checked(ClaimId::hbm_bandwidth_3350, "001 §HBM Basics; " + k001tiers + "; " + k000tiers,
              "HBM3 peak 3,350 GB/s on an H100 (900 GB/s V100, 2,039 A100)",
              {probe("bandwidth"), probe("l2-working-set")},
              {Tolerance::within_factor(1.25),
               "the H100 datasheet figure: a streaming kernel reaches 80-95 % of it, so x/÷1.25"}),
      checked(ClaimId::local_bandwidth_3350, k000tiers, "local memory 3.35 TB/s: it is HBM",
              {probe("local-memory")},
              {Tolerance::within_factor(1.25),
               "the HBM datasheet figure, which a stream from DRAM reaches 80-95 % of: x/÷1.25, "
               "as for HBM itself"}),
      checked(ClaimId::constant_broadcast_one_cycle,
              "000 §Constant Memory: Read-Only Broadcast; 001 §Constant Memory",
              "a warp-uniform constant read is broadcast in a single cycle: essentially free",
              {probe("bandwidth"), probe("constant")},
              {Tolerance::per_figure(),
               "two figures: at least 0.8 warp reads per SM clock (probe bandwidth) and at most "
               "1.5x the time of a loop with no load (probe constant)"}),
      checked(ClaimId::memhier_copy_vs_memcpy, "memhier goal: copy kernel >= 0.90 x cudaMemcpy",
              "a hand-written copy kernel reaches at least 90% of cudaMemcpy in the same run",
              {probe("bandwidth")},
              {Tolerance::at_least(0.9), "the goal itself: 90 % of cudaMemcpy in the same run"}),

      // ---- Coalescing (probe global-stride; the 10x claims on the GEMM ladder).
      checked(ClaimId::coalesced_88pct_of_peak, k001coalescing,
              "coalesced 4-byte loads reach ~88% of the peak DRAM bandwidth (~1,800 GB/s on an "
              "A100)",
              {probe("bandwidth"), probe("global-stride")},
              {Tolerance::inside_range(),
               "~88 % taken as 73..103 % of the datasheet: copy kernels reach 75-95 % of it across "
               "cards"}),
      checked(ClaimId::coalescing_stride_2_half, k001coalescing,
              "stride 2 halves the useful bandwidth (~900 vs ~1,800 GB/s, 44% of peak)",
              {probe("global-stride")}, kModelBand),
      checked(ClaimId::coalescing_stride_4_8, k001coalescing,
              "stride 4: ~1/4 (~450 GB/s); stride 8: ~1/8 (~230 GB/s)", {probe("global-stride")},
              kModelBand),
      checked(ClaimId::coalescing_stride_32,
              k001coalescing + "; 004 §Access Patterns vs. Memory Throughput",
              "stride 32: a transaction per thread, ~60 GB/s, 3% of peak (1/32 counted in "
              "128-byte lines, 1/8 in 32-byte sectors)",
              {probe("global-stride")}, kModelBand),
      checked(ClaimId::coalescing_random_25x, k001coalescing,
              "a random gather reaches ~70 GB/s (3.5% of peak): ~25x below coalesced",
              {probe("global-stride")},
              {Tolerance::within_factor(2),
               "an A100 gather whose cost rides on DRAM page hits and the sector size: wider than "
               "the default, x/÷2"}),
      checked(ClaimId::coalescing_10_20x, "001 §Memory Coalescing: THE Most Important Optimization",
              "coalescing makes 10-20x performance differences", {bench("gemm")}, kRatio),
      checked(ClaimId::coalescing_first_7_10x, k001priority + "; 001 §Summary",
              "fix coalescing first: ~7-10x, from ~10% to 75%+ of peak", {bench("gemm")}, kRatio),
      checked(ClaimId::coalescing_scenarios_utilization,
              "004 §Access Patterns vs. Memory Throughput; 004 §Caching Load; 004 §Non-caching "
              "Load",
              "bus utilization per warp: misaligned consecutive words at least 80% in 32-byte "
              "segments, 50% in 128-byte lines; one word for all lanes 12.5% (3.125% in "
              "lines); N scattered segments 128 / (N x 32)",
              {profile("global-stride")},
              {Tolerance::per_figure(),
               "per figure, exact: a count of 32-byte sectors per request (Nsight Compute); the "
               "128-byte-line figures are not judged: from Volta on, L1 fetches sectors"}),

      // ---- Data layout (probe layout; float4 also on the elementwise ladder).
      checked(ClaimId::aos_soa_4x,
              "001 §AoS vs SoA Performance (Particle update, 10M particles, A100); " + k001anti,
              "AoS (stride 4) to SoA: ~4x the useful bandwidth (~400 to ~1,700 GB/s)",
              {probe("layout")}, kRatio),
      checked(
          ClaimId::aos_wastes_50_75pct,
          "001 §AoS vs SoA: The Data Layout That Determines Performance",
          "AoS causes strided access that wastes 50-75% or more of the memory bandwidth",
          {probe("layout")},
          {Tolerance::inside_range(), "\"50-75 % or more\" taken as 40..85 % of the bytes moved"}),
      checked(ClaimId::struct12_3x_bytes, "004 §Structures of Non-Native Size",
              "a 12-byte struct read per thread is three 4-byte loads moving 3x the bytes "
              "requested; SoA fixes it",
              {probe("layout")},
              {Tolerance::inside_range(),
               "3x the bytes taken as 2..4.5x the time: the three loads partly overlap"}),
      checked(ClaimId::float4_1_25x,
              k001anti + "; 001 §Bandwidth by Load Width (A100, elementwise kernel)",
              "scalar loads to float4: ~1,400 to ~1,750 GB/s, 1.25x",
              {probe("layout"), bench("elementwise")}, kGain),
      checked(ClaimId::vectorize_1_1_1_25x, k001priority + "; 001 §Vectorized Loads: float4",
              "vectorize loads with float4: ~1.1-1.25x, 4x fewer load instructions",
              {bench("elementwise")}, kGain),
      checked(
          ClaimId::alignment_1_25x, k001anti,
          "a misaligned base address: aligning to 128 bytes gives ~1.25x (~1,400 to ~1,750 "
          "GB/s)",
          {probe("layout")},
          {Tolerance::inside_range(),
           "~1.25x taken as 1.10..1.45x: the misaligned copy loses one sector in four at most"}),
      checked(ClaimId::gather_sort_8x, k001anti,
              "small irregular gathers: sorting the indices into coalesced runs gives 8x (~100 "
              "to ~800 GB/s)",
              {probe("gather")}, kRatio),

      // ---- Shared-memory banks (probe shared-stride; padding on the ladders).
      checked(ClaimId::bank_degree_gcd,
              "002 §Bank Conflict Degree by Stride; 002 §N-Way Bank Conflict; 004 §Linear "
              "Addressing",
              "a stride of s 4-byte words is a gcd(s, 32)-way conflict, gcd(s, 32)x slower; odd "
              "strides are free",
              {probe("shared-stride")}, kModelBand),
      checked(ClaimId::bank_stride_2_4_8,
              "001 §Bank Conflict Impact on Shared Memory Bandwidth (V100)",
              "stride 2, 4, 8: 2x, 4x, 8x slower (1.4, 0.7, 0.35 of 2.8 TB/s on a V100)",
              {probe("shared-stride")}, kModelBand),
      checked(ClaimId::bank_stride_32_serializes,
              "002 §32-Way Bank Conflict: The Worst Case; 001 §Bank Conflict Impact on Shared "
              "Memory Bandwidth (V100); " +
                  k001anti + "; 004 §Shared Memory: Avoiding Bank Conflicts",
              "stride 32 (a column of a 32x32 tile): every lane in one bank, 32x slower (0.09 "
              "against 2.8 TB/s; padding fixes it, 31x)",
              {probe("shared-stride")}, kModelBand),
      checked(ClaimId::bank_stride_33_free,
              "002 §Why Stride-33 Has No Conflicts; 004 §Shared Memory: Avoiding Bank Conflicts",
              "stride 33 (the [32][33] padding) is conflict-free", {probe("shared-stride")},
              kModelBand),
      checked(ClaimId::memhier_wide_access_phases,
              "memhier goal: the shared-memory model predicts wide accesses",
              "8-byte accesses are served per half-warp, 16-byte per quarter-warp: the slowdown "
              "is the model's wavefronts over the ideal",
              {probe("shared-stride")}, kModelBand),
      checked(ClaimId::padding_3x_matmul, "002 §(introduction)",
              "one column of padding takes a tiled matmul from 4 to 12 TFLOP/s on an A100: 3x",
              {bench("gemm")}, kRatio),
      checked(ClaimId::padding_memory_3pct, "002 §(introduction); 002 §After Padding",
              "padding a 32x32 float tile costs 128 bytes on 4,096: 3.1% more shared memory",
              {bench("gemm")}, kRatio),
      checked(ClaimId::padding_stalls_67pct, "002 §(introduction)",
              "padding eliminates 67% of the memory stalls of the tiled matmul",
              {profile("gemm"), profile("transpose")},
              {Tolerance::within_percent(50),
               "stall shares come from warp-state sampling and the source counts 'memory "
               "stalls' its own way: wider than the default"}),
      checked(ClaimId::padding_30pct, "001 §The Padding Trick",
              "the padding trick ([N][N+1]): a 30%+ speedup", {bench("transpose")}, kGain),
      checked(ClaimId::bank_fix_1_1_1_5x, k001priority,
              "fixing bank conflicts: ~1.1-1.5x in shared-memory-heavy kernels",
              {bench("transpose")}, kGain),
      checked(
          ClaimId::swizzle_matches_padding,
          "002 §Swizzled Shared Memory Access; 002 §When to Swizzle vs Pad",
          "an XOR swizzle is as conflict-free as padding and saves its 3% of shared memory",
          {bench("transpose")},
          {Tolerance::within_percent(10), "equal: ±10 % for timing noise and the XOR's own cost"}),

      // ---- Transpose (the transpose ladder at the texts' 4096x4096).
      checked(ClaimId::transpose_naive_13pct, k001transpose,
              "naive transpose (non-coalesced writes): 120 GB/s, 13% of the V100's 900 GB/s",
              {bench("transpose")}, kFraction),
      checked(ClaimId::transpose_tiled_64pct, k001transpose,
              "shared-memory tile without padding: 580 GB/s, 64%: coalesced, but 32-way bank "
              "conflicts",
              {bench("transpose")}, kFraction),
      checked(ClaimId::transpose_padded_83pct, k001transpose,
              "the tile padded to [32][33]: 750 GB/s, 83%", {bench("transpose")}, kFraction),
      checked(ClaimId::column_major_7_5x, k001anti,
              "column-major access of row-major data: tiling through shared memory gives 7.5x "
              "(~200 to ~1,500 GB/s)",
              {bench("transpose")}, kRatio),

      // ---- GEMM (the GEMM ladder at the texts' 4096^3).
      checked(ClaimId::gemm_naive_310, k002gemm,
              "naive (no tiling): 310 GFLOP/s, 1.6% of the 19.5 TFLOP/s peak, 1.7% of cuBLAS",
              {bench("gemm")}, kFraction),
      checked(ClaimId::gemm_tiled_2800, k002gemm,
              "tiled 32x32 (TILE_K = 32): 2,800 GFLOP/s, 14.4% of peak, 15% of cuBLAS",
              {bench("gemm")}, kFraction),
      checked(ClaimId::gemm_register_tiled_6200, k002gemm,
              "register tiling (64x64, 4x4 per thread): 6,200 GFLOP/s, 31.8% of peak, 34% of "
              "cuBLAS",
              {bench("gemm")}, kFraction),
      checked(ClaimId::gemm_cp_async_7100, k002gemm,
              "register tiling + a cp.async pipeline: 7,100 GFLOP/s, 36.4% of peak, 38% of "
              "cuBLAS",
              {bench("gemm")}, kFraction),
      checked(ClaimId::gemm_cublas_18500, k002gemm,
              "cuBLAS: 18,500 GFLOP/s, 94.9% of the fp32 peak", {bench("gemm")}, kFraction),
      checked(ClaimId::gemm_register_tiling_2_2x, k002gemm + "; 002 §Summary",
              "register tiling is as important as shared-memory tiling: 6,200 against 2,800 "
              "GFLOP/s, 2.2x",
              {bench("gemm")}, kRatio),
      checked(ClaimId::gemm_cp_async_1_15x, k002gemm,
              "a cp.async pipeline on the register-tiled kernel: 7,100 against 6,200 GFLOP/s, "
              "1.15x",
              {bench("gemm")}, kGain),
      checked(ClaimId::cp_async_gemm_1_05x, k001async,
              "cp.async in an already pipelined GEMM (CUTLASS): 280 to 295 TFLOP/s, 1.05x",
              {bench("gemm")}, kGain),
      checked(ClaimId::cp_async_flashattention_1_07x, k001async,
              "cp.async in FlashAttention-2: 145 to 156 TFLOP/s, 1.07x", {bench("attention")},
              kGain),
      checked(ClaimId::attention_best_vs_cudnn, "memhier goal: attention at the vendor's speed",
              "attention's best reaches at least 0.90 x cuDNN's fused attention at head_dim 128 "
              "and 0.85 x at 64 (FlashAttention-2 class), timed in the same run",
              {bench("attention")},
              {Tolerance::per_figure(),
               "the goal itself, two figures: best's lowest paired median over cuDNN among the "
               "run's head_dim-128 shapes at least 0.90, among its head_dim-64 shapes at least "
               "0.85"}),
      checked(ClaimId::gemm_best_vs_vendor_sweep,
              "memhier goal: GEMM at the vendor's speed over the shapes users run",
              "each GEMM ladder's best reaches at least 0.95 x cuBLAS as the geometric mean over "
              "the report's sweep of shapes (squares, LLM projections, skinny M, primes), timed "
              "in the same run",
              {report("sweep")},
              {Tolerance::per_figure(),
               "the goal itself, one figure per GEMM ladder: the geometric mean of best's paired "
               "medians over cuBLAS across the sweep's shapes, at least 0.95; a shape best ran "
               "but did not verify counts against it"}),
      checked(ClaimId::cp_async_reduction_1_09x, k001async,
              "cp.async in a custom reduction: 1,600 to 1,750 GB/s, 1.09x", {bench("reduction")},
              kGain),
      checked(ClaimId::tiling_5_30x, "000 §Summary",
              "tiling through shared memory: typically 5-30x over reading global memory in the "
              "inner loop",
              {bench("gemm")}, kRatio),
      checked(ClaimId::tiling_10_30x, "000 §Q3: Walk through the tiled matrix multiply",
              "the tiled matmul: roughly 10-30x, with 32x fewer global transactions at T = 32",
              {bench("gemm")}, kRatio),
      checked(ClaimId::tiling_15x_v100,
              "001 §Kernel Performance: With vs Without Shared Memory Tiling (V100); 001 §Why "
              "Shared Memory Matters: Data Reuse",
              "GEMM: shared-memory tiling gives a 15x speedup (V100)", {bench("gemm")}, kRatio),
      checked(ClaimId::tiling_2_15x, k001priority,
              "shared-memory tiling: ~2-15x for kernels with data reuse", {bench("gemm")}, kRatio),
      checked(ClaimId::tile_32_optimal,
              "000 §Tile Size Choices; 000 §Q6: How do you choose tile size for tiled matrix "
              "multiply?",
              "TILE_SIZE = 32 is nearly always optimal for fp32 matmul on A100/H100 (over 16 and "
              "64)",
              {bench("gemm")},
              {Tolerance::at_most(1.05),
               "within 5 % of the fastest other tile (timing noise) counts as a tie"}),
      checked(ClaimId::tile_traffic_reduction,
              "000 §Tile Size Choices; 000 §The Tiling Insight; 002 §Why Shared Memory Matters "
              "for GEMM",
              "a T x T tile cuts global traffic T-fold: 16x (2 KB of shared memory), 32x (8 "
              "KB), 64x (32 KB)",
              {profile("gemm")},
              {Tolerance::per_figure(),
               "per figure, T = 16, 32, 64 each within 2x of T: L1 hits and the edges of the "
               "tiles move the counted sectors, and a factor-of-two apart is the next T"}),
      checked(ClaimId::smem_64kb_1_2_blocks, "000 §Production Engineering Notes",
              "a kernel using 64 KB of shared memory per block runs 1-2 blocks per SM",
              {bench("gemm")}, kExact),
      checked(ClaimId::gemm_8pct_bandwidth, "000 §The 8% Problem; 000 §Summary",
              "a naive matmul uses 8.3% of the HBM bandwidth (278 of 3,350 GB/s); shared-memory "
              "tiles raise it to 70-85%",
              {profile("gemm")}, kFraction),

      // ---- Softmax (the softmax ladder at the texts' 1024x4096).
      checked(ClaimId::softmax_parallel_max_2_1x, k001softmax,
              "+ parallel max: 89 to 42 us (380 to 800 GB/s), 2.1x", {bench("softmax")}, kRatio),
      checked(ClaimId::softmax_warp_shuffle_1_2x, k001softmax,
              "+ warp shuffles: 42 to 35 us (960 GB/s), 1.2x", {bench("softmax")}, kGain),
      checked(ClaimId::softmax_float4_1_25x, k001softmax,
              "+ float4 loads: 35 to 28 us (1,200 GB/s), 1.25x", {bench("softmax")}, kGain),
      checked(ClaimId::softmax_launch_bounds_1_12x, k001softmax,
              "+ __launch_bounds__: 28 to 25 us (1,340 GB/s), 1.12x", {bench("softmax")}, kGain),
      checked(ClaimId::softmax_ladder_3_6x, k001softmax,
              "naive to __launch_bounds__: 89 to 25 us, 3.6x", {bench("softmax")}, kRatio),
      checked(ClaimId::softmax_66pct_of_peak, k001softmax,
              "the optimized 3-pass softmax reaches 1,340 of 2,039 GB/s: 66% of peak, close to "
              "the limit of 3 passes",
              {bench("softmax")}, kFraction),
      checked(ClaimId::softmax_pytorch_1240, k001softmax, "PyTorch's softmax: 27 us, 1,240 GB/s",
              {bench("softmax")}, kFraction),
      checked(ClaimId::tune_registers_1_0_1_3x, k001priority,
              "tuning register usage (__launch_bounds__): ~1.0-1.3x", {bench("softmax")}, kGain),

      // ---- Registers and spills (probe registers).
      checked(
          ClaimId::spill_few_bytes_halve, "000 §Register Spilling: The Silent Killer",
          "even a few bytes of spill can halve kernel performance", {probe("registers")},
          {Tolerance::at_least(1.8), "\"halve\" read as at least 1.8x the time (10 % for noise)"}),
      checked(ClaimId::spill_3_5x, "001 §Register Spilling: The Silent Catastrophe; " + k001anti,
              "register spilling: 3-5x slowdowns in production kernels (removing it: 1.5-5x)",
              {probe("registers")}, kRatio),
      checked(ClaimId::launch_bounds_occupancy_not_always_faster,
              "001 §Impact of __launch_bounds__ on a Real Kernel (Softmax, A100)",
              "__launch_bounds__(256, 2) at 50% occupancy (1,550 GB/s) beat the unbounded build "
              "(1,200) and (256, 4) at 100% with 128 B of spills (1,100): more occupancy is not "
              "always faster",
              {probe("registers")},
              {Tolerance::per_figure(),
               "two figures: the 100 % occupancy build more than 1.05x the fastest's time, and a "
               "lower occupancy the fastest"}),
      checked(ClaimId::regs_per_thread_occupancy,
              "000 §Register File Size and Occupancy; 001 §Register Pressure and the Occupancy "
              "Tradeoff",
              "65,536 / registers-per-thread threads fit per SM: 32 registers 2,048 threads "
              "(100%), 64 registers 1,024 (50%)",
              {probe("registers")}, kExact),
      checked(ClaimId::launch_bounds_min_blocks,
              "000 §Register File Size and Occupancy; 001 §Controlling Register Allocation with "
              "__launch_bounds__",
              "__launch_bounds__(256, m) keeps registers at or below 65,536 / (256 m), so m "
              "blocks fit per SM (m = 4: 64 registers, m = 2: 128)",
              {probe("registers")}, kExact),
      checked(ClaimId::memhier_occupancy_model,
              "memhier goal: occupancy model = cudaOccupancyMaxActiveBlocksPerMultiprocessor",
              "the CPU occupancy model gives the same blocks per SM as "
              "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
              {probe("registers")},
              {Tolerance::at_most(0),
               "a model of a hardware rule must agree exactly: no build may disagree"}),

      // ---- Constant memory (probe constant).
      checked(ClaimId::constant_divergent_serializes,
              "001 §Constant Memory; 000 §Q5: When would you use constant memory",
              "lanes reading different constant addresses are serialized: up to 32x for 32 "
              "addresses",
              {probe("constant")},
              {Tolerance::inside_range(),
               "\"up to 32x\" taken as 8..48x: the loop around the load hides part of the "
               "serialization"}),
      checked(ClaimId::constant_divergent_slower_than_global,
              "001 §Constant Memory; 000 §Q5: When would you use constant memory",
              "for divergent addresses constant memory is slower than (no faster than) cached "
              "global memory",
              {probe("constant")},
              {Tolerance::above(1.1),
               "\"slower\": more than 1.1x the time of __ldg, 10 % above timing noise"}),
      checked(ClaimId::constant_broadcast_32x_global, "000 §Q5: When would you use constant memory",
              "a constant-memory broadcast is a 32x speedup over global memory",
              {probe("constant")},
              {Tolerance::inside_range(),
               "32x taken as 16..48x: the global load it is compared with may hit in L1"}),

      // ---- Caching and load paths (probe caching).
      checked(ClaimId::caching_loads_win_on_hits, "004 §Caching vs Non-caching Loads",
              "caching loads (.ca) are better when you count on hits", {probe("caching")},
              {Tolerance::at_least(1.2),
               "\"better\" read as at least 1.2x the speed of ld.cg on the reuse window"}),
      checked(ClaimId::noncaching_loads_win_on_scatter,
              "004 §Caching vs Non-caching Loads; 004 §Non-caching Load",
              "non-caching loads are better for scattered warp addresses: 4x the bus "
              "utilization of caching loads",
              {probe("caching")},
              {Tolerance::at_least(1.5),
               "4x the bus utilization read as at least 1.5x the speed: the scatter is "
               "latency-bound too"}),
      checked(ClaimId::readonly_cache_scatter, "004 §Read-Only Cache",
              "the read-only cache (32-byte granularity) is generally better for scattered reads "
              "than L1 (128-byte lines)",
              {probe("caching")},
              {Tolerance::at_least(1.1),
               "\"generally better\": at least 1.1x the speed of ld.ca, 10 % above noise"}),
      checked(ClaimId::ld_cs_streaming,
              "004 §Table 27 Cache Operators for Memory Load Instructions",
              "ld.cs streams once-read data evict-first: it limits cache pollution without "
              "slowing the stream",
              {probe("caching")},
              {Tolerance::at_least(1 / 1.1),
               "\"without slowing the stream\": no more than 10 % slower than ld.ca"}),
      checked(ClaimId::texture_2d_locality, "001 §Texture Memory; 004 §Read-Only Cache",
              "the texture cache is optimized for 2D spatial locality (image processing)",
              {probe("caching")},
              {Tolerance::at_least(0.9),
               "on Hopper texture and global loads share L1: within 10 % of global counts"}),
      unmeasured(ClaimId::readonly_cache_48kb_kepler, "004 §Read-Only Cache",
                 "the read-only cache: 48 KB per SM as four 12 KB caches, one per scheduler",
                 "a Kepler figure: from Maxwell on the read-only path is the unified L1, whose "
                 "size the latency-working-set probe finds (l1-size-128-256kb)"),

      // ---- L2 working sets and persistence (probes l2-working-set, l2-persisting).
      checked(ClaimId::l2_working_set_4mb, k001l2table,
              "4 MB of a 40 MB L2 (~98% hits): ~5,000 GB/s, 2.8x the 200 MB set",
              {probe("l2-working-set")}, kL2Curve),
      checked(ClaimId::l2_working_set_20mb, k001l2table,
              "20 MB of a 40 MB L2 (~90% hits): ~4,000 GB/s, 2.2x the 200 MB set",
              {probe("l2-working-set")}, kL2Curve),
      checked(ClaimId::l2_working_set_40mb, k001l2table,
              "40 MB of a 40 MB L2 (barely fits, ~70% hits): ~2,500 GB/s, 1.4x the 200 MB set",
              {probe("l2-working-set")}, kL2Curve),
      checked(ClaimId::l2_working_set_random_2gb, k001l2table,
              "2 GB read at random (~1% hits): ~300 GB/s, 0.17x the 200 MB set",
              {probe("l2-random")}, kL2Curve),
      checked(ClaimId::l2_fits_working_set, "001 §L2 Cache; 001 §Summary",
              "size the working set to fit the L2 (50 MB on an H100): it stays resident up to "
              "the L2 size",
              {probe("l2-working-set")}, kL2Curve),
      checked(ClaimId::l2_persisting_window, "001 §L2 Residency Control (Ampere and Hopper)",
              "an access-policy window (hitRatio 1.0, persisting) keeps hot data in L2 against "
              "streaming loads",
              {probe("l2-persisting")},
              {Tolerance::per_figure(),
               "two figures: at least 50 % of the hot set still in L2, and at least a 1.1x speedup "
               "over no window"}),

      // ---- Shared-memory capacity and carveout (probes smem-dynamic, smem-carveout).
      checked(ClaimId::smem_optin_above_48kb,
              "002 §Shared Memory Capacity; 003 §Declaration and Allocation: Static vs. Dynamic; "
              "004 §20.8.3. Shared Memory",
              "more than 48 KB of shared memory per block needs the opt-in "
              "(cudaFuncAttributeMaxDynamicSharedMemorySize)",
              {probe("smem-dynamic")},
              {Tolerance::per_figure(),
               "two figures: a launch above 48 KB fails without the opt-in, and succeeds with it"}),
      checked(ClaimId::smem_per_block_by_arch,
              "002 §Shared Memory Capacity by Architecture; 004 §20.8.3. Shared Memory",
              "max shared memory per block: Volta 96 KB, Turing 64, A100 163, Ada 99, Hopper "
              "227 (1 KB of the SM's is reserved)",
              {probe("smem-dynamic")}, kExact),
      checked(ClaimId::smem_more_per_block_fewer_blocks,
              "003 §The Occupancy vs. Performance Trade-off; 000 §Shared Memory per SM",
              "more shared memory per block means fewer blocks per SM", {probe("smem-dynamic")},
              {Tolerance::per_figure(),
               "blocks per SM never rise as shared memory per block grows (a step of at most 0, "
               "with at least one fall)"}),
      checked(ClaimId::smem_blocks_per_sm_formula, "000 §Over-Allocating Shared Memory",
              "blocks per SM = shared memory per SM / shared memory per block: 228 KB / 32 KB = "
              "7, / 8 KB = 28",
              {probe("smem-dynamic")}, kExact),
      checked(
          ClaimId::smem_larger_tiles_lower_occupancy,
          "003 §The Occupancy vs. Performance Trade-off",
          "larger tiles can help a block but hurt the kernel by lowering occupancy",
          {probe("smem-dynamic")},
          {Tolerance::above(1.05),
           "\"hurt\": the larger tile more than 1.05x the smaller tile's time, 5 % above noise"}),
      checked(ClaimId::carveout_trades_l1_for_shared,
              "001 §Shared Memory / L1 Cache Configurations (A100); 000 §Shared Memory per SM",
              "the L1/shared split is set per kernel: Max SMEM (164 KB on an A100) leaves 28 KB "
              "of L1",
              {probe("smem-carveout")},
              {Tolerance::above(1.2),
               "a cache-bound kernel more than 1.2x faster with the large L1, well above noise"}),
      checked(
          ClaimId::carveout_default_large_l1, "001 §Shared Memory / L1 Cache Configurations (A100)",
          "by default a kernel with little shared memory keeps a large L1 (A100: 48 KB "
          "shared, 144 KB L1)",
          {probe("smem-carveout")},
          {Tolerance::at_least(0.9), "the default within 10 % of the large-L1 carveout's speed"}),
      checked(ClaimId::smem_228kb_per_sm,
              "000 §Shared Memory per SM; 001 §Architecture and Sizing; 002 §Shared Memory "
              "Capacity by Architecture",
              "H100: up to 228 KB of shared memory per SM (V100 96 KB, A100 164)",
              {probe("smem-carveout")}, kExact),
      unmeasured(ClaimId::carveout_older_architectures,
                 "003 §Architecture-Specific Capacity and Configuration; 004 §L1 Sizing",
                 "Volta: 128 KB unified, shared 0-96 KB; Turing: 96 KB, 32 or 64 KB shared; "
                 "Fermi and Kepler: 64 KB split 16:48, 48:16 (or 32:32)",
                 "figures for Fermi to Turing; the carveout probe measures this card's split"),
  };
}

// The claims in claim_ids.inc's order, each source spelt out and its subject set; a claim
// listed there without data here (or twice) is a wiring error the first use reports.
std::vector<Claim> in_id_order(std::vector<Claim> claims) {
  for (Claim& c : hopper_claims()) claims.push_back(std::move(c));
  for (Claim& c : outer_claims()) claims.push_back(std::move(c));
  std::vector<Claim> out(results::kClaimCount);
  std::vector<bool> seen(results::kClaimCount, false);
  for (Claim& c : claims) {
    const auto at = static_cast<std::size_t>(c.id);
    if (seen[at])
      throw std::logic_error("claims: '" + std::string(name(c.id)) +
                             "' is in the catalogue twice.");
    seen[at] = true;
    c.source = cite(c.source);
    c.subject = subject_of(c.id);
    out[at] = std::move(c);
  }
  for (std::size_t i = 0; i < seen.size(); ++i)
    if (!seen[i])
      throw std::logic_error("claims: '" + std::string(name(static_cast<ClaimId>(i))) +
                             "' is in claim_ids.inc but not in src/claims/catalogue.cpp.");
  return out;
}

}  // namespace

const std::vector<Claim>& catalogue() {
  static const std::vector<Claim> claims = in_id_order(build());
  return claims;
}

const Claim& claim(ClaimId id) {
  return catalogue()[static_cast<std::size_t>(id)];
}

const Claim* find(std::string_view id) {
  const std::optional<ClaimId> parsed = results::parse_claim_id(id);
  return parsed ? &claim(*parsed) : nullptr;
}

const Tolerance& band(ClaimId id) {
  const Claim& c = claim(id);
  if (c.checked_by.empty() || c.band.rule == Tolerance::Rule::per_figure)
    throw std::logic_error("claims: '" + std::string(name(id)) +
                           "' has no single band in the catalogue, src/claims/catalogue.cpp.");
  return c.band;
}

}  // namespace memhier::claims
