// Rung 6 of the bf16 GEMM ladder: wgmma m64n256k16 fed by TMA tensor loads into 128-byte
// swizzled shared memory through a four-stage mbarrier pipeline, one wgmma group in flight.
// Every warpgroup computes; one thread also issues the loads. Also the Hopper rungs' support check.
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/gemm_bf16/hopper.cuh"
#include "kernels/gemm_bf16/hopper_launch.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/gate.hpp"

namespace memhier::kernels::gemm_bf16 {
namespace {

using namespace sm90;

constexpr int kThreads = 256;  // two consumer warpgroups, 64 rows of the tile each

/// One 128 x 256 tile of C a block. Thread 0 fills the stages: a stage's `full` barrier
/// completes when its 48 KiB arrived; each warpgroup arrives on its `empty` barrier once the
/// wgmma group that read the stage completed, and thread 0 waits for both before refilling it.
__global__ void __launch_bounds__(kThreads, 1)
    wgmma_tma_kernel(const __grid_constant__ CUtensorMap map_a,
                     const __grid_constant__ CUtensorMap map_b, Epilogue ep, int tiles_m,
                     int tiles_n, int k_blocks) {
  extern __shared__ unsigned char smem_raw[];
  const SmemLayout sm = smem_layout(smem_raw);
  const int tid = threadIdx.x, wg = tid / 128;
  int tm = 0, tn = 0;
  tile_coords(blockIdx.x, tiles_m, tiles_n, &tm, &tn);
  const int m0 = tm * kBlockM, n0 = tn * kBlockN;

  if (tid == 0) {
    tma::prefetch_tensor_map(&map_a);
    tma::prefetch_tensor_map(&map_b);
    for (int s = 0; s < kStages; ++s) {
      tma::mbarrier_init(sm.full(s), 1);   // the issuing thread's arrive.expect_tx
      tma::mbarrier_init(sm.empty(s), 2);  // one arrival a warpgroup
    }
    tma::fence_mbarrier_init();
    tma::fence_proxy_async_shared();
  }
  __syncthreads();

  // k-block kb into stage kb % kStages: A's 128 x 64 box at (k, m0), B's four 64 x 64 boxes
  // at (n0 + 64 j, k), box j at j * 8 KiB (desc_b's LBO).
  auto issue = [&](int kb) {
    const int s = kb % kStages;
    tma::mbarrier_arrive_expect_tx(sm.full(s), kStageBytes);
    tma::tensor_load_2d(sm.a(s), &map_a, kb * kBlockK, m0, sm.full(s));
#pragma unroll
    for (int j = 0; j < kBlockN / kBoxN; ++j)
      tma::tensor_load_2d(sm.b(s) + j * kBytesBox, &map_b, n0 + j * kBoxN, kb * kBlockK,
                          sm.full(s));
  };
  if (tid == 0)
    for (int kb = 0; kb < kStages && kb < k_blocks; ++kb) issue(kb);

  float acc[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) acc[i] = 0.f;

  // One wgmma group stays in flight: k-block kb is issued before kb - 1 is waited for, so the
  // tensor cores never drain between k-blocks; stage kb - 1 is freed (and refilled) then.
  for (int kb = 0; kb < k_blocks; ++kb) {
    const int s = kb % kStages;
    mbar_wait(sm.full(s), (kb / kStages) & 1);
    // This warpgroup's 64 rows of A start 64 rows (8 KiB, 8 swizzle groups) into the stage.
    mma_k_block_issue<kBlockN>(acc, sm.a(s) + uint32_t(wg) * 64 * 128, sm.b(s), kb == 0);
    wgmma_wait<1>();
    const int done = kb - 1;
    if (done >= 0) {
      const int sd = done % kStages;
      if (tid % 128 == 0) mbar_arrive(sm.empty(sd));
      if (tid == 0 && done + kStages < k_blocks) {
        mbar_wait(sm.empty(sd), (done / kStages) & 1);  // both warpgroups read stage sd
        issue(done + kStages);
      }
      __syncwarp();
    }
  }
  wgmma_wait<0>();
  fence_accumulators(acc);
  store_tile(ep, acc, m0 + wg * 64, n0);
}

/// Opts the kernel into its dynamic shared memory, once per device.
void prepare_device(int dev) {
  static std::mutex mu;
  static std::set<int> done;
  std::lock_guard<std::mutex> lock(mu);
  if (done.count(dev) != 0) return;
  MEMHIER_CUDA(cudaFuncSetAttribute(wgmma_tma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    kSmemBytes));
  done.insert(dev);
}

}  // namespace

std::string hopper_gemm_unsupported(int m, int n, int k, int lda, int ldb, int ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return "m, n and k must be positive.";
  if (lda < k || ldb < n || ldc < n) return "a leading dimension is shorter than its row.";
  if (lda % 8 != 0 || ldb % 8 != 0)
    return "lda and ldb must be multiples of 8 elements: TMA needs row pitches that are "
           "multiples of 16 bytes.";
  // The 128 x 128 candidates have the most tiles; their tile indices are ints.
  const long long tiles = static_cast<long long>((m + kBlockM - 1) / kBlockM) * ((n + 127) / 128);
  if (tiles > INT_MAX) return "the problem has more 128 x 128 tiles than a grid holds.";
  return core::kernel_unsupported("wgmma and TMA multicast",
                                  reinterpret_cast<const void*>(&wgmma_tma_kernel),
                                  {90, true, kSmemBytes, 0});
}

std::string hopper_gemm_unsupported(int m, int n, int k, int lda, int ldb, int ldc, const void* a,
                                    const void* b, const COut& c) {
  if (a == nullptr || b == nullptr || c.data() == nullptr) return "A, B and C must not be null.";
  if (reinterpret_cast<std::uintptr_t>(a) % 16 != 0 ||
      reinterpret_cast<std::uintptr_t>(b) % 16 != 0)
    return "A and B must be 16-byte aligned: TMA reads from 16-byte aligned bases.";
  if (reinterpret_cast<std::uintptr_t>(c.data()) % c.elem_bytes() != 0)
    return c.bf16 ? "a bf16 C must be 2-byte aligned." : "an fp32 C must be 4-byte aligned.";
  if (reinterpret_cast<std::uintptr_t>(c.bias) % 4 != 0) return "the bias must be 4-byte aligned.";
  return hopper_gemm_unsupported(m, n, k, lda, ldb, ldc);
}

void wgmma_tma(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,
               const __nv_bfloat16* b, int ldb, float beta, const COut& c, int ldc,
               cudaStream_t stream) {
  const std::string why = hopper_gemm_unsupported(m, n, k, lda, ldb, ldc, a, b, c);
  if (!why.empty()) throw std::invalid_argument("wgmma_tma: " + why);
  const CUtensorMap map_a = make_tensor_map(a, m, k, lda, kBlockM, kBlockK);
  const CUtensorMap map_b = make_tensor_map(b, k, n, ldb, kBlockK, kBoxN);
  const Epilogue ep{c, ldc, m, n, alpha, beta, pairs_fit(c, ldc)};
  const int tiles_m = (m + kBlockM - 1) / kBlockM, tiles_n = (n + kBlockN - 1) / kBlockN;
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  prepare_device(dev);
  wgmma_tma_kernel<<<tiles_m * tiles_n, kThreads, kSmemBytes, stream>>>(
      map_a, map_b, ep, tiles_m, tiles_n, (k + kBlockK - 1) / kBlockK);
  MEMHIER_CHECK_LAUNCH();
}

HopperKernelInfo wgmma_tma_info() {
  HopperKernelInfo info;
  info.symbol = reinterpret_cast<const void*>(&wgmma_tma_kernel);
  info.block_threads = kThreads;
  info.dynamic_smem = kSmemBytes;
  info.cluster_size = 1;
  return info;
}

}  // namespace memhier::kernels::gemm_bf16
