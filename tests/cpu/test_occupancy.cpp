// The architecture table and the occupancy model, checked against the CUDA toolkit's
// own host-only calculator (cuda_occupancy.h) over a sweep of every table entry.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "memhier/model/arch.hpp"
#include "memhier/model/occupancy.hpp"

// NVIDIA's header is not written for -Wconversion -Wshadow; its warnings are not ours.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <cuda_occupancy.h>
#pragma GCC diagnostic pop

namespace memhier::model {
namespace {

constexpr int kKiB = 1024;

// ---------------------------------------------------------------------------------------
// (a) The table

TEST(ArchTable, AscendingUniqueAndSelfConsistent) {
  const auto& archs = all_archs();
  ASSERT_EQ(archs.size(), 8u);
  for (std::size_t i = 1; i < archs.size(); ++i) {
    const auto& p = archs[i - 1];
    const auto& a = archs[i];
    EXPECT_TRUE(p.cc_major < a.cc_major || (p.cc_major == a.cc_major && p.cc_minor < a.cc_minor))
        << p.cc() << " before " << a.cc();
  }
  for (const ArchSpec& a : archs) {
    SCOPED_TRACE(a.cc());
    EXPECT_FALSE(a.name.empty());
    EXPECT_EQ(a.warp_size, 32);
    EXPECT_EQ(a.max_threads_per_block, 1024);
    EXPECT_GT(a.max_warps_per_sm, 0);
    EXPECT_GT(a.max_blocks_per_sm, 0);
    EXPECT_EQ(a.regs_per_sm, 65536);
    EXPECT_EQ(a.max_regs_per_thread, 255);
    ASSERT_FALSE(a.carveout_kb.empty());
    EXPECT_TRUE(std::is_sorted(a.carveout_kb.begin(), a.carveout_kb.end()));
    EXPECT_EQ(a.carveout_kb.back() * kKiB, a.smem_per_sm);
    // One block of the opt-in maximum, plus what the system reserves, fits on the SM.
    EXPECT_LE(a.smem_per_block_optin + a.smem_reserved_per_block, a.smem_per_sm);
    EXPECT_GE(a.smem_per_block_optin, a.smem_per_block_default);
    EXPECT_GE(a.l1_plus_smem_kb * kKiB, a.smem_per_sm);
    EXPECT_EQ(a.smem_reserved_per_block, a.cc_major >= 8 ? kKiB : 0);
    EXPECT_GT(a.cuda_cores_per_sm, 0);
    EXPECT_EQ(a.shared_banks * a.bank_width_bytes, 128);
    EXPECT_EQ(a.cache_line_bytes, 4 * a.sector_bytes);
  }
  EXPECT_EQ(all_archs()[5].cc(), "9.0");
  EXPECT_EQ(find_arch(9, 0)->name, "Hopper");
  EXPECT_EQ(find_arch(10, 0)->cc(), "10.0");
}

TEST(ArchTable, FindArchParsesEveryForm) {
  for (const char* text : {"9.0", "90", "sm_90", "sm_90a", "compute_90", "compute_90a", "SM_90"}) {
    const ArchSpec* a = find_arch(std::string(text));
    ASSERT_NE(a, nullptr) << text;
    EXPECT_EQ(a->cc(), "9.0") << text;
  }
  for (const char* text : {"10.0", "100", "sm_100", "sm_100a", "sm_100f"}) {
    ASSERT_NE(find_arch(std::string(text)), nullptr) << text;
    EXPECT_EQ(find_arch(std::string(text))->cc(), "10.0") << text;
  }
  EXPECT_EQ(find_arch(std::string("12.0"))->cc(), "12.0");
  EXPECT_EQ(find_arch(std::string("sm_120a"))->cc(), "12.0");
  EXPECT_EQ(find_arch(std::string("75"))->cc(), "7.5");
  EXPECT_EQ(find_arch(std::string("8.6"))->cc(), "8.6");
  for (const ArchSpec& a : all_archs()) {
    EXPECT_EQ(find_arch(a.cc()), &a);
    EXPECT_EQ(find_arch(a.cc_major, a.cc_minor), &a);
    EXPECT_EQ(find_arch("sm_" + std::to_string(a.cc_major * 10 + a.cc_minor)), &a);
  }
  for (const char* text :
       {"6.1",         "61",       "sm_61",   "banana", "",       "9",   "9.",   ".0",
        "9.0.0",       "9.00",     "sm_",     "sm_9.0", "sm_90b", "090", " 9.0", "9.0 ",
        "99999999999", "compute_", "sm_90aa", "-9.0",   "11.0",   "13.0"}) {
    EXPECT_EQ(find_arch(std::string(text)), nullptr) << '"' << text << '"';
  }
  EXPECT_EQ(find_arch(6, 1), nullptr);
  EXPECT_EQ(find_arch(9, 1), nullptr);
}

// ---------------------------------------------------------------------------------------
// (b) Agreement with cuda_occupancy.h

cudaOccDeviceProp occ_props(const ArchSpec& a) {
  cudaOccDeviceProp p;
  p.computeMajor = a.cc_major;
  p.computeMinor = a.cc_minor;
  p.maxThreadsPerBlock = a.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = a.max_warps_per_sm * a.warp_size;
  p.regsPerBlock = a.max_regs_per_block;
  p.regsPerMultiprocessor = a.regs_per_sm;
  p.warpSize = a.warp_size;
  p.sharedMemPerBlock = static_cast<size_t>(a.smem_per_block_default);
  p.sharedMemPerMultiprocessor = static_cast<size_t>(a.smem_per_sm);
  p.numSms = 1;
  p.sharedMemPerBlockOptin = static_cast<size_t>(a.smem_per_block_optin);
  p.reservedSharedMemPerBlock = static_cast<size_t>(a.smem_reserved_per_block);
  return p;
}

// As cudaFuncGetAttributes reports a kernel whose dynamic limit was raised to the opt-in
// maximum (cudaFuncAttributeMaxDynamicSharedMemorySize), which our model assumes.
cudaOccFuncAttributes occ_attributes(const ArchSpec& a, const LaunchResources& r) {
  cudaOccFuncAttributes f;
  f.maxThreadsPerBlock = INT_MAX;
  f.numRegs = r.regs_per_thread;
  f.sharedSizeBytes = static_cast<size_t>(r.static_smem_bytes);
  f.partitionedGCConfig = PARTITIONED_GC_OFF;
  f.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  f.maxDynamicSharedSizeBytes = static_cast<size_t>(a.smem_per_block_optin - r.static_smem_bytes);
  f.numBlockBarriers = r.uses_barriers ? 1 : 0;
  f.virtualResourceCount = 0;
  return f;
}

unsigned limiter_bit(Limiter l) {
  switch (l) {
    case Limiter::none:
      return 0;
    case Limiter::warps:
      return OCC_LIMIT_WARPS;
    case Limiter::blocks:
      return OCC_LIMIT_BLOCKS;
    case Limiter::registers:
      return OCC_LIMIT_REGISTERS;
    case Limiter::shared_memory:
      return OCC_LIMIT_SHARED_MEMORY;
    case Limiter::barriers:
      return OCC_LIMIT_BARRIERS;
  }
  return 0;
}

std::string describe(const ArchSpec& a, const LaunchResources& r) {
  return "cc " + a.cc() + ", block " + std::to_string(r.block_threads) + ", regs " +
         std::to_string(r.regs_per_thread) + ", static smem " +
         std::to_string(r.static_smem_bytes) + ", dynamic smem " +
         std::to_string(r.dynamic_smem_bytes) + ", carveout " + std::to_string(r.carveout_percent) +
         ", barriers " + (r.uses_barriers ? "1" : "0");
}

// Compares one configuration; returns "" on agreement, else what differs.
std::string compare_one(const ArchSpec& a, const cudaOccDeviceProp& props, const LaunchResources& r,
                        Limiter* limiter_out) {
  cudaOccFuncAttributes attrs = occ_attributes(a, r);
  cudaOccDeviceState state;
  state.carveoutConfig = r.carveout_percent;
  cudaOccResult want{};
  cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(
      &want, &props, &attrs, &state, r.block_threads, static_cast<size_t>(r.dynamic_smem_bytes));
  if (status != CUDA_OCC_SUCCESS) return "cuda_occupancy.h error " + std::to_string(status);

  OccupancyResult got;
  try {
    got = occupancy(a, r);
  } catch (const OccupancyError& e) {
    if (want.activeBlocksPerMultiprocessor == 0) return {};  // both refuse the launch
    return "model threw \"" + e.message + "\" but cuda_occupancy.h gives " +
           std::to_string(want.activeBlocksPerMultiprocessor) + " blocks";
  }
  *limiter_out = got.limiter;
  std::string diff;
  auto check = [&diff](const char* what, long long mine, long long theirs) {
    if (mine != theirs) {
      diff +=
          std::string(what) + " " + std::to_string(mine) + " vs " + std::to_string(theirs) + "; ";
    }
  };
  check("blocks_per_sm", got.blocks_per_sm, want.activeBlocksPerMultiprocessor);
  check("blocks_by_registers", got.blocks_by_registers, want.blockLimitRegs);
  check("blocks_by_smem", got.blocks_by_smem, want.blockLimitSharedMem);
  check("blocks_by_warps", got.blocks_by_warps, want.blockLimitWarps);
  check("blocks_by_blocks", got.blocks_by_blocks, want.blockLimitBlocks);
  check("regs_per_block", got.regs_per_block, want.allocatedRegistersPerBlock);
  check("smem_per_block", got.smem_per_block,
        static_cast<long long>(want.allocatedSharedMemPerBlock));
  // A full SM names no limiter (cuda_occupancy.h still sets the bits of the tied bounds).
  const bool full = got.active_warps == got.max_warps;
  if (full != (got.limiter == Limiter::none))
    diff += std::string("limiter ") + to_string(got.limiter) + " at " +
            std::to_string(got.active_warps) + " of " + std::to_string(got.max_warps) + " warps; ";
  if (!full && (want.limitingFactors & limiter_bit(got.limiter)) == 0) {
    diff += std::string("limiter ") + to_string(got.limiter) + " not in factors " +
            std::to_string(want.limitingFactors) + "; ";
  }
  if (want.limitingFactors & OCC_LIMIT_BARRIERS) {
    // Barriers may tie but never bind alone on any architecture in the table.
    if (want.blockLimitBarriers < got.blocks_by_blocks) diff += "barriers bind alone; ";
  }
  return diff;
}

std::vector<int> block_sizes() {
  std::vector<int> v;
  for (int b = 32; b <= 1024; b += 32) v.push_back(b);
  for (int b : {1, 33, 100, 257, 500, 1000}) v.push_back(b);
  return v;
}

std::vector<int> register_counts() {
  std::vector<int> v{0, 1, 33, 63, 65, 127, 129, 168, 255};
  for (int r = 16; r <= 248; r += 8) v.push_back(r);
  return v;
}

std::vector<int> smem_totals(const ArchSpec& a) {
  std::vector<int> v;
  for (int s = 0; s <= a.smem_per_block_optin; s += 4 * kKiB) v.push_back(s);
  for (int s : {1, 1023, 3 * kKiB, 7 * kKiB + 100, 33 * kKiB + 1, 48 * kKiB, 48 * kKiB + 1,
                a.smem_per_block_optin - 1, a.smem_per_block_optin}) {
    v.push_back(s);
  }
  return v;
}

TEST(Occupancy, AgreesWithCudaOccupancyHeader) {
  // Every percentage is covered by the next test; here the named preferences.
  const std::array<int, 5> carveouts{-1, 0, 25, 50, 100};
  long long cases = 0, refused = 0, mismatches = 0;
  for (const ArchSpec& a : all_archs()) {
    const cudaOccDeviceProp props = occ_props(a);
    std::map<Limiter, long long> limiters;
    for (int block : block_sizes()) {
      for (int regs : register_counts()) {
        for (int smem : smem_totals(a)) {
          for (int carveout : carveouts) {
            LaunchResources r;
            r.block_threads = block;
            r.regs_per_thread = regs;
            // Split some sizes between static and dynamic: only the sum should matter.
            r.static_smem_bytes = (block / 32) % 3 == 0 ? std::min(smem, 4 * kKiB + 8) : 0;
            r.dynamic_smem_bytes = smem - r.static_smem_bytes;
            r.carveout_percent = carveout;
            r.uses_barriers = (regs + carveout) % 2 == 0;
            Limiter limiter = Limiter::barriers;
            std::string diff = compare_one(a, props, r, &limiter);
            ++cases;
            if (limiter == Limiter::barriers)
              ++refused;
            else
              ++limiters[limiter];
            if (!diff.empty() && ++mismatches <= 20) {
              ADD_FAILURE() << describe(a, r) << ": " << diff;
            }
          }
        }
      }
    }
    // Every limiter shows up on every architecture, and some launches are refused.
    for (Limiter l :
         {Limiter::registers, Limiter::shared_memory, Limiter::warps, Limiter::blocks}) {
      EXPECT_GT(limiters[l], 0) << a.cc() << " never limited by " << to_string(l);
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << cases << " cases";
  EXPECT_GT(refused, 0);
  RecordProperty("cases", std::to_string(cases));
  std::printf("[          ] %lld configurations agree (%lld refused by both)\n", cases, refused);
}

// Every carveout percentage against every 1 KiB shared-memory size: the carveout rule
// (round the preference up to a step; fall back to the smallest step holding one block).
TEST(Occupancy, EveryCarveoutAgreesWithCudaOccupancyHeader) {
  long long cases = 0, mismatches = 0;
  for (const ArchSpec& a : all_archs()) {
    const cudaOccDeviceProp props = occ_props(a);
    for (int carveout = -1; carveout <= 100; ++carveout) {
      for (int smem = 0; smem <= a.smem_per_block_optin; smem += kKiB) {
        for (int block : {128, 1000}) {
          LaunchResources r = LaunchResources{block, 32, 0, smem, carveout, true};
          Limiter limiter = Limiter::barriers;
          std::string diff = compare_one(a, props, r, &limiter);
          ++cases;
          if (!diff.empty() && ++mismatches <= 20) ADD_FAILURE() << describe(a, r) << ": " << diff;
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << cases << " cases";
}

// Requests beyond the opt-in maximum or 1024 threads: cuda_occupancy.h gives 0, we throw.
TEST(Occupancy, RefusesWhatCudaOccupancyHeaderRefuses) {
  for (const ArchSpec& a : all_archs()) {
    const cudaOccDeviceProp props = occ_props(a);
    for (LaunchResources r :
         {LaunchResources{1025, 32, 0, 0, -1, true},
          LaunchResources{128, 32, 0, a.smem_per_block_optin + 1, -1, true},
          LaunchResources{128, 32, 1024, a.smem_per_block_optin, 50, true},
          LaunchResources{1024, 255, 0, 0, -1, true}, LaunchResources{1000, 65, 0, 0, 0, true}}) {
      Limiter limiter = Limiter::barriers;
      EXPECT_EQ(compare_one(a, props, r, &limiter), "") << describe(a, r);
      EXPECT_THROW(occupancy(a, r), OccupancyError) << describe(a, r);
    }
  }
}

// The per-architecture constants the table shares with cuda_occupancy.h.
TEST(Occupancy, TableMatchesCudaOccupancyConstants) {
  for (const ArchSpec& a : all_archs()) {
    SCOPED_TRACE(a.cc());
    const cudaOccDeviceProp props = occ_props(a);
    int value = 0;
    ASSERT_EQ(cudaOccMaxBlocksPerMultiprocessor(&value, &props), CUDA_OCC_SUCCESS);
    EXPECT_EQ(value, a.max_blocks_per_sm);
    ASSERT_EQ(cudaOccSMemAllocationGranularity(&value, &props), CUDA_OCC_SUCCESS);
    EXPECT_EQ(value, a.smem_alloc_unit);
    ASSERT_EQ(cudaOccRegAllocationGranularity(&value, &props), CUDA_OCC_SUCCESS);
    EXPECT_EQ(value, a.reg_alloc_unit);
    ASSERT_EQ(cudaOccSubPartitionsPerMultiprocessor(&value, &props), CUDA_OCC_SUCCESS);
    EXPECT_EQ(value, a.sm_sub_partitions);
    // The carveout steps: every size rounds up to the first step that holds it.
    for (int bytes = 0; bytes <= a.smem_per_sm; bytes += 512) {
      size_t rounded = static_cast<size_t>(bytes);
      ASSERT_EQ(cudaOccAlignUpShmemSizeVoltaPlus(&rounded, &props), CUDA_OCC_SUCCESS);
      auto step = std::find_if(a.carveout_kb.begin(), a.carveout_kb.end(),
                               [bytes](int kb) { return kb * kKiB >= bytes; });
      ASSERT_NE(step, a.carveout_kb.end());
      EXPECT_EQ(rounded, static_cast<size_t>(*step * kKiB)) << bytes << " bytes";
    }
    size_t too_big = static_cast<size_t>(a.smem_per_sm) + 1;
    EXPECT_NE(cudaOccAlignUpShmemSizeVoltaPlus(&too_big, &props), CUDA_OCC_SUCCESS);
  }
}

// ---------------------------------------------------------------------------------------
// (c) Hand-checked cases

const ArchSpec& hopper() {
  return *find_arch(9, 0);
}

LaunchResources launch(int block, int regs, int dynamic_smem, int carveout = -1) {
  LaunchResources r;
  r.block_threads = block;
  r.regs_per_thread = regs;
  r.dynamic_smem_bytes = dynamic_smem;
  r.carveout_percent = carveout;
  return r;
}

TEST(Occupancy, HopperBlock256Regs64Smem48KByHand) {
  // 8 warps per block: 64 / 8 = 8 blocks by warps; 32 by the block limit.
  // Registers: 64 x 32 = 2048 per warp; 16384 per sub-partition holds 8 warps, so 32 warps
  // per SM, 4 blocks. Shared: 48 KiB + 1 KiB reserved = 50176 B (a multiple of 128);
  // 228 KiB = 233472 B holds 4. Registers and shared memory tie at 4; registers named.
  OccupancyResult o = occupancy(hopper(), launch(256, 64, 48 * kKiB));
  EXPECT_EQ(o.blocks_by_warps, 8);
  EXPECT_EQ(o.blocks_by_blocks, 32);
  EXPECT_EQ(o.blocks_by_registers, 4);
  EXPECT_EQ(o.blocks_by_smem, 4);
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_EQ(o.limiter, Limiter::registers);
  EXPECT_EQ(o.active_warps, 32);
  EXPECT_EQ(o.max_warps, 64);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
  EXPECT_EQ(o.regs_per_block, 16384);
  EXPECT_EQ(o.smem_per_block, 50176);
  EXPECT_EQ(o.smem_carveout_bytes, 228 * kKiB);

  // Carveout 50%: 116736 B rounds up to the 132 KiB step, which holds 2 blocks.
  o = occupancy(hopper(), launch(256, 64, 48 * kKiB, 50));
  EXPECT_EQ(o.smem_carveout_bytes, 132 * kKiB);
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limiter, Limiter::shared_memory);

  // Carveout 0%: too small for one block, so the smallest step holding one, 64 KiB.
  o = occupancy(hopper(), launch(256, 64, 48 * kKiB, 0));
  EXPECT_EQ(o.smem_carveout_bytes, 64 * kKiB);
  EXPECT_EQ(o.blocks_per_sm, 1);
  EXPECT_EQ(o.limiter, Limiter::shared_memory);
}

TEST(Occupancy, TuringCarveoutNeverBelow32K) {
  // 7.5 offers only 32 or 64 KiB: a 0% preference still gives 32 KiB, 3 blocks of 10 KiB.
  OccupancyResult o = occupancy(*find_arch(7, 5), launch(128, 32, 10 * kKiB, 0));
  EXPECT_EQ(o.smem_carveout_bytes, 32 * kKiB);
  EXPECT_EQ(o.smem_per_block, 10 * kKiB);
  EXPECT_EQ(o.blocks_per_sm, 3);
  EXPECT_EQ(o.limiter, Limiter::shared_memory);
}

TEST(Occupancy, WarpsBlocksAndUnusedResources) {
  // 1024 threads on 8.6 (48 warps): one 32-warp block fits.
  OccupancyResult o = occupancy(*find_arch(8, 6), launch(1024, 16, 0));
  EXPECT_EQ(o.blocks_per_sm, 1);
  EXPECT_EQ(o.limiter, Limiter::warps);
  EXPECT_NEAR(o.occupancy, 2.0 / 3.0, 1e-12);
  // 32-thread blocks on 9.0 stop at the 32-block limit, half the warps.
  o = occupancy(hopper(), launch(32, 16, 0));
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.limiter, Limiter::blocks);
  // No registers and (on 7.0, with nothing reserved) no shared memory: unbounded.
  o = occupancy(*find_arch(7, 0), launch(64, 0, 0));
  EXPECT_EQ(o.blocks_by_registers, INT_MAX);
  EXPECT_EQ(o.blocks_by_smem, INT_MAX);
  EXPECT_EQ(o.blocks_per_sm, 32);
  // From 8.0 on the reserved 1 KiB always counts: 228 blocks' worth on 9.0.
  EXPECT_EQ(occupancy(hopper(), launch(64, 0, 0)).blocks_by_smem, 228);
}

TEST(Occupancy, LimiterNames) {
  EXPECT_STREQ(to_string(Limiter::warps), "warps");
  EXPECT_STREQ(to_string(Limiter::blocks), "blocks");
  EXPECT_STREQ(to_string(Limiter::registers), "registers");
  EXPECT_STREQ(to_string(Limiter::shared_memory), "shared_memory");
  EXPECT_STREQ(to_string(Limiter::barriers), "barriers");
}

std::string error_of(const ArchSpec& a, const LaunchResources& r) {
  try {
    occupancy(a, r);
  } catch (const OccupancyError& e) {
    return e.message;
  }
  return "(no error)";
}

TEST(Occupancy, BadInputThrowsOneSentence) {
  const ArchSpec& h = hopper();
  EXPECT_EQ(error_of(h, launch(2048, 32, 0)),
            "block size 2048 exceeds the 1024-thread limit of compute capability 9.0.");
  EXPECT_EQ(error_of(h, launch(0, 32, 0)),
            "block size 0 is not positive; a block needs at least one thread.");
  EXPECT_EQ(error_of(h, launch(256, 256, 0)),
            "256 registers per thread exceed the 255-register limit of compute capability 9.0.");
  EXPECT_EQ(error_of(h, launch(256, 32, 228 * kKiB)),
            "shared memory of 228.0 KiB per block exceeds the 227.0 KiB opt-in limit of "
            "compute capability 9.0.");
  EXPECT_EQ(error_of(h, launch(1024, 128, 0)),
            "a block of 1024 threads at 128 registers per thread needs 131072 registers, over "
            "the 65536-register per-block limit of compute capability 9.0 (at most 64 per "
            "thread fit).");
  EXPECT_EQ(error_of(h, launch(256, 32, 0, 101)),
            "carveout preference 101% is outside -1 (driver default) to 100.");
  LaunchResources negative_static = launch(256, 32, 0);
  negative_static.static_smem_bytes = -4;
  for (const LaunchResources& r : {launch(-32, 32, 0), launch(256, -1, 0), launch(256, 32, -1),
                                   launch(256, 32, 0, -2), negative_static}) {
    std::string message = error_of(h, r);
    EXPECT_NE(message, "(no error)") << describe(h, r);
    EXPECT_EQ(message.back(), '.') << message;
    EXPECT_EQ(std::count(message.begin(), message.end(), '.'),
              std::count(message.end() - 1, message.end(), '.'))
        << "one sentence: " << message;
  }
  EXPECT_THROW(occupancy(ArchSpec{}, launch(256, 32, 0)), OccupancyError);
}

// ---------------------------------------------------------------------------------------
// Advice

std::string advice_for(const ArchSpec& a, const LaunchResources& r) {
  return occupancy_advice(a, r, occupancy(a, r));
}

TEST(OccupancyAdvice, EmptyAtFullOccupancy) {
  EXPECT_EQ(advice_for(hopper(), launch(256, 32, 0)), "");
  EXPECT_EQ(advice_for(hopper(), launch(1024, 32, 0)), "");
}

TEST(OccupancyAdvice, NamesTheLimitersLever) {
  // Registers: 5 blocks of 8 warps need 10 warps per sub-partition, 1638 registers per
  // warp, so 1536 after granularity: 48 per thread.
  EXPECT_EQ(advice_for(hopper(), launch(256, 64, 0)),
            "Use at most 48 registers per thread (now 64) to fit 5 blocks per SM "
            "(62.5% occupancy instead of 50%).");
  // Shared memory: 3 blocks in 228 KiB need at most 76 KiB each, 1 KiB of it reserved.
  EXPECT_EQ(advice_for(hopper(), launch(128, 32, 100 * kKiB)),
            "Use at most 75.0 KiB of shared memory per block (now 100.0 KiB) to fit 3 blocks "
            "per SM (18.8% occupancy instead of 12.5%).");
  // Carveout 25% gives 64 KiB (3 blocks of 21 KiB); 29% is the first that rounds to 100 KiB.
  EXPECT_EQ(advice_for(hopper(), launch(128, 32, 20 * kKiB, 25)),
            "Raise the shared-memory carveout preference to 29% (now 25%) to fit 4 blocks per SM "
            "(25% occupancy instead of 18.8%).");
  // Warps: 1024 threads leave 16 of 8.6's 48 warps idle; 768 fits two blocks.
  EXPECT_EQ(advice_for(*find_arch(8, 6), launch(1024, 16, 0)),
            "Blocks of 768 threads (now 1024) would give 2 blocks per SM "
            "(100% occupancy instead of 66.7%).");
  // Blocks: 32-thread blocks hit the block limit; 64 threads fill the SM.
  EXPECT_EQ(advice_for(hopper(), launch(32, 16, 0)),
            "Blocks of 64 threads (now 32) would give 32 blocks per SM "
            "(100% occupancy instead of 50%).");
}

TEST(OccupancyAdvice, TiedLimitersGetAJointChange) {
  // The hand-checked case: registers and shared memory both stop at 4 blocks. Five blocks
  // need 48 registers (as above) and 233472 / 5 = 46694 B, 46592 after granularity, less
  // the reserved 1 KiB: 45568 B = 44.5 KiB.
  std::string advice = advice_for(hopper(), launch(256, 64, 48 * kKiB));
  EXPECT_EQ(advice,
            "Registers and shared memory both hold this kernel to 4 blocks per SM: use at most "
            "48 registers per thread (now 64) and at most 44.5 KiB of shared memory per block "
            "(now 48.0 KiB) to fit 5 blocks per SM (62.5% occupancy instead of 50%).");
}

TEST(OccupancyAdvice, QuotesExactBytesWhenNotAWholeTenthOfAKiB) {
  // Nine blocks: 233472 / 9 = 25941 B, 25856 after granularity, 24832 B without the
  // reserved 1 KiB, which is 24.25 KiB: quoted in bytes, never rounded past the limit.
  EXPECT_EQ(advice_for(hopper(), launch(64, 32, 26 * kKiB)),
            "Use at most 24832 bytes of shared memory per block (now 26.0 KiB) to fit 9 blocks "
            "per SM (28.1% occupancy instead of 25%).");
}

TEST(OccupancyAdvice, NamesTiedLimitsWhenNoChangeHelps) {
  // 7.0, one warp of 64 registers: registers (8 warps per sub-partition) and the 32-block
  // limit both stop at 32 single-warp blocks; neither fewer registers nor bigger blocks help.
  EXPECT_EQ(advice_for(*find_arch(7, 0), launch(32, 64, 0)),
            "Registers and the block limit both hold this kernel to 32 blocks per SM, so no "
            "single change of registers, shared memory, carveout or block size raises "
            "occupancy above 50% on compute capability 7.0.");
  // 8.6 with a 0% carveout: 9 KiB per block takes the 16 KiB step, and 32 of 48 warps are
  // used; a larger carveout meets the warp limit, a smaller block the 16 KiB step.
  EXPECT_EQ(advice_for(*find_arch(8, 6), launch(1024, 0, 8 * kKiB, 0)),
            "Shared memory and the warp limit both hold this kernel to 1 block per SM, so no "
            "single change of registers, shared memory, carveout or block size raises "
            "occupancy above 66.7% on compute capability 8.6.");
}

// Below 100% the advice always says something, and the change it names really helps.
TEST(OccupancyAdvice, NonEmptyBelowFullOccupancyOnASample) {
  int checked = 0;
  for (const ArchSpec& a : all_archs()) {
    for (int block : {32, 96, 256, 640, 1024}) {
      for (int regs : {24, 40, 72, 128}) {
        for (int smem : {0, 20 * kKiB, 60 * kKiB}) {
          LaunchResources r = launch(block, regs, smem, 25);
          OccupancyResult o;
          try {
            o = occupancy(a, r);
          } catch (const OccupancyError&) {
            continue;
          }
          std::string advice = occupancy_advice(a, r, o);
          if (o.active_warps == o.max_warps) {
            EXPECT_EQ(advice, "") << describe(a, r);
          } else {
            EXPECT_FALSE(advice.empty()) << describe(a, r);
            EXPECT_EQ(advice.back(), '.') << advice;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace memhier::model
