// The bf16 GEMM ladder's registered predictions: which rungs have one, and the counts of
// single-tile shapes worked out by hand from the kernels (every figure below is derived in
// the comment above it). Host code only: nothing here touches CUDA.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "memhier/kernels/register.hpp"
#include "memhier/registry/family.hpp"
#include "memhier/registry/registry.hpp"

namespace {

using memhier::model::AccessCounts;
using memhier::registry::Family;
using memhier::registry::Variant;

const Family& bf16_family() {
  memhier::kernels::register_families();
  const Family* f = memhier::registry::find_family("gemm_bf16");
  if (f == nullptr) throw std::runtime_error("no family gemm_bf16");
  return *f;
}

AccessCounts predict(const std::string& variant, const std::string& shape) {
  for (const Variant& v : bf16_family().variants)
    if (v.name == variant) {
      if (!v.predict) throw std::runtime_error("gemm_bf16 " + variant + " has no prediction");
      return v.predict(shape);
    }
  throw std::runtime_error("no variant gemm_bf16 " + variant);
}

/// The six compared counters, in profile order.
struct Six {
  long long ld_wf, st_wf, ld_req, ld_sec, st_req, st_sec;
};
void expect_counts(const std::string& variant, const std::string& shape, const Six& want) {
  const AccessCounts c = predict(variant, shape);
  EXPECT_EQ(c.shared_ld_wavefronts, want.ld_wf) << variant << " " << shape;
  EXPECT_EQ(c.shared_st_wavefronts, want.st_wf) << variant << " " << shape;
  EXPECT_EQ(c.global_ld_requests, want.ld_req) << variant << " " << shape;
  EXPECT_EQ(c.global_ld_sectors, want.ld_sec) << variant << " " << shape;
  EXPECT_EQ(c.global_st_requests, want.st_req) << variant << " " << shape;
  EXPECT_EQ(c.global_st_sectors, want.st_sec) << variant << " " << shape;
}

// Rungs 1-5 are replayed; the TMA/wgmma rungs are not (see the table's header), and best
// predicts as the rung it ran.
TEST(PredictBf16, RungsOneToFiveHavePredictions) {
  const std::set<std::string> modeled = {"wmma_global", "wmma_smem", "mma_padded", "mma_swizzled",
                                         "mma_pipelined"};
  int with = 0;
  for (const Variant& v : bf16_family().variants) {
    EXPECT_EQ(static_cast<bool>(v.predict), modeled.count(v.name) == 1) << v.name;
    EXPECT_EQ(static_cast<bool>(v.stream), modeled.count(v.name) == 1) << v.name;
    with += v.predict ? 1 : 0;
  }
  EXPECT_EQ(with, 5);
}

// 128x128x32: one block tile, one k-tile, 8 warps, lda = 32 and ldb = 128 (16-byte paths).
// Staging: 2 chunks of A and 2 of B per thread; a warp's 32 chunks of A are 8 rows of 64
// bytes and of B 2 rows of 256 bytes, 512 contiguous bytes each: 16 sectors a request, 32
// requests and 512 sectors (the 16 KiB of A and B once). STS.128: 16 of A and 16 of B; a
// quarter-warp stores 128 bytes, one wavefront a phase (4 an instruction), except the padded
// A tile, whose 80-byte rows put the 4th chunk of the second row on the banks of the first
// row's 1st (2-way: 8): padded 16 x 8 + 16 x 4 = 192, swizzled 128, cp.async none.
// ldmatrix: 8 warps x 2 k16 steps x (4 + 2) .x4, 4 matrices of 1 wavefront each: 384.
// Epilogue: 8 warps x 16 fragments x 4 STG (2 rows, 2 columns), each 8 rows of 4 lanes 8
// bytes apart in one sector: 512 requests of 8 sectors (each sector of C written twice).
TEST(PredictBf16, MmaRungsOnOneTile) {
  expect_counts("mma_padded", "128x128x32", {384, 192, 32, 512, 512, 4096});
  expect_counts("mma_swizzled", "128x128x32", {384, 128, 32, 512, 512, 4096});
  expect_counts("mma_pipelined", "128x128x32", {384, 0, 32, 512, 512, 4096});
}

// 1x1x1: k = 1 and n = 1 allow no 16-byte access, so thread 0 reads A(0,0) and B(0,0) by
// one LDG.E.U16 each (every other chunk is past an edge); every thread still stores its 4
// chunks (192 wavefronts, as above) and every warp runs its ldmatrix (384); one output.
TEST(PredictBf16, MmaPaddedOneElement) {
  expect_counts("mma_padded", "1x1x1", {384, 192, 2, 2, 1, 1});
}

// With K not a multiple of 8 (lda = 36), A loses the 16-byte path: the pipelined rung stages
// A through registers (STS.128: 16 a k-tile, 4 wavefronts each: the swizzle keeps them
// conflict-free) while B still goes by cp.async (no shared-store wavefronts).
TEST(PredictBf16, PipelinedStagesUnalignedAThroughRegisters) {
  EXPECT_EQ(predict("mma_pipelined", "128x128x40").shared_st_wavefronts, 0);
  EXPECT_EQ(predict("mma_pipelined", "128x128x36").shared_st_wavefronts, 2 * 16 * 4);
  EXPECT_EQ(predict("mma_swizzled", "128x128x36").shared_st_wavefronts, 2 * 32 * 4);
}

// 64x64x32: one block of 4 warps, one k-tile. Staging: per warp 2 LDG.E.128 of A (8 rows of
// 64 bytes) and 2 of B (4 rows of 128 bytes), 512 contiguous bytes each: 16 requests, 256
// sectors. STS.128: A's 80-byte rows 2-way (8), B's 144-byte rows conflict-free (4): 4 warps
// x 2 x (8 + 4) = 96. WMMA fragments: 4 LD.E of 32 bits each, 8 rows of 4 lanes; rows 20
// words apart (A) or 36 (B) land on 8 different 4-bank groups: 1 wavefront; 4 warps x 2
// k16 x 4 fragments x 4 = 128. Epilogue per warp and fragment: 4 STS.64 (rows 64 bytes
// apart, rows g and g + 2 on the same banks: 2 wavefronts a half-warp phase, 4 each) and,
// all 8 columns inside, two LDS.128 (row r at 64 r bytes: rows r and r + 2 share banks, 2 a
// quarter-warp phase, the phases of a half-warp on the same banks: 8 each); then 8 STG, 16
// rows of 2 lanes 32 bytes apart: 32 sectors each. Stores: 96 + 4 x 4 x 4 x 4 = 352; loads:
// 128 + 4 x 4 x 2 x 8 = 384; 4 x 4 x 8 = 128 STG of 32 sectors.
TEST(PredictBf16, WmmaSmemOnOneTile) {
  expect_counts("wmma_smem", "64x64x32", {384, 352, 16, 256, 128, 4096});
}

// 16x13x32: only warp 0's first fragment has outputs; its even lanes (columns 0-7) have all
// 8 inside, its odd lanes (columns 8-12) 5. The SASS's loop unrolled by 4 stores them as
// 4 + 4 STG (even lanes), 4 (odd lanes) and 1 (odd lanes, column 12): 13 requests, where a
// loop over the 8 columns would make 8. Rows are 52 bytes apart: one sector per lane, 208
// in all (each output once). Its 4 LDS.128 (16 lanes, rows 64 bytes apart: 2 a phase, 8
// each) come on top of the 128 fragment loads.
TEST(PredictBf16, WmmaSmemEpilogueFollowsTheUnrolledLoop) {
  const AccessCounts c = predict("wmma_smem", "16x13x32");
  EXPECT_EQ(c.global_st_requests, 13);
  EXPECT_EQ(c.global_st_sectors, 208);
  EXPECT_EQ(c.shared_ld_wavefronts, 128 + 4 * 8);
}

// 32x32x16: one block, each warp one 16x16 fragment of A and of B read straight from global
// memory (lda = 16, ldb = 32: multiples of 8, inside): 4 LD.E each, 8 rows of 16 bytes, 8
// sectors: 4 x 8 = 32 requests, 256 sectors. Epilogue: 4 STS.64 (4 wavefronts each, as in
// wmma_smem) and 8 iterations of one LDS (16 rows of 64 bytes, 2 lanes each: 8 rows on each
// bank: 8 wavefronts) and one STG of 32 sectors.
TEST(PredictBf16, WmmaGlobalOnOneTile) {
  expect_counts("wmma_global", "32x32x16", {4 * 8 * 8, 4 * 4 * 4, 32, 256, 32, 1024});
}

// K = 8 at rung 1 (k0 + 16 > K): both fragments go through the warp's staging tile. A: lanes
// of rows 0-15, columns 0 and 8; only column 0 has data (8 elements, 8 LDG.E.U16 of 16
// lanes: 16 rows of 16 bytes, lda = 8: one sector holds two rows, 8 sectors); B (K = 8 rows):
// lanes of rows 0-7 at both column halves (16 lanes, 8 rows of 32 bytes, ldb = 32 elements:
// 8 sectors). Shared: per warp one STS.128 per operand (all 32 lanes, zeros past the edge:
// 512 contiguous bytes, 4 wavefronts) and 4 LD.E per fragment (rows 32 bytes apart: rows g
// and g + 4 share banks, 2 wavefronts), then the epilogue as above (16 + 8 x 8).
TEST(PredictBf16, WmmaGlobalStagesShortK) {
  const AccessCounts c = predict("wmma_global", "32x32x8");
  EXPECT_EQ(c.global_ld_requests, 4 * 2 * 8);
  EXPECT_EQ(c.global_ld_sectors, 4 * 2 * 8 * 8);
  EXPECT_EQ(c.shared_st_wavefronts, 4 * (2 * 4 + 4 * 4));
  EXPECT_EQ(c.shared_ld_wavefronts, 4 * (2 * 4 * 2 + 8 * 8));
}

// alpha = 0: the scale kernel, one output per thread: 64 x 64 outputs are 128 warp
// instructions of 128 contiguous bytes (4 sectors); C is read first when beta != 0.
TEST(PredictBf16, AlphaZeroIsTheScaleKernel) {
  expect_counts("mma_padded", "64x64x64:0:0", {0, 0, 0, 0, 128, 512});
  expect_counts("wmma_smem", "64x64x64:0:1.5", {0, 0, 128, 512, 128, 512});
}

// Every replay at the family's profile shape (every extent odd, K not a multiple of 8) runs
// and stays well under a second of CPU.
TEST(PredictBf16, ProfileShapePredicts) {
  const Family& f = bf16_family();
  for (const Variant& v : f.variants) {
    if (!v.predict) continue;
    const AccessCounts c = v.predict(f.profile_shape);
    EXPECT_GT(c.global_st_requests, 0) << v.name;
    EXPECT_GE(c.global_ld_sectors, c.global_ld_requests) << v.name;
    EXPECT_GE(c.shared_ld_wavefronts, c.shared_ld_ideal) << v.name;
  }
  EXPECT_THROW(predict("mma_padded", "4x4"), std::invalid_argument);
}

}  // namespace
