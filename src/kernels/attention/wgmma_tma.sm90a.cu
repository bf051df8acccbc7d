// Rungs 5 to 7 (sm_90a only): wgmma fed by TMA, warp-specialized, one kernel in three
// configurations (Cfg). A block takes 64 C queries of one (batch, head): warpgroup 0 gives its
// registers away (setmaxnreg) and one of its threads issues TMA loads, Q once and the N-key K
// and V tiles into a ring of mbarrier stages; the C consumer warpgroups (64 queries each)
// compute S = Q K^T with wgmma from shared memory, the online softmax in registers, and
// O += P V with P as wgmma's register operand. Each issues the next tile's Q K^T before this
// tile's P V, so its exponentials of one tile run while the tensor cores multiply the other,
// and the consumers take turns to issue in a ring (named barriers), so their softmax runs
// while another's tiles are multiplied. Causal key tiles past a block's diagonal are never
// loaded; only tiles that cross it (or seq_k) are masked.
// Rung 5 is C = 2, N = 128 at both head_dims. At head_dim 64 a tile has half the matmul work
// per exponential, so the softmax weighs twice as much: rung 6 (wide) takes N = 192 keys a
// tile (fewer per-tile rescales, waits and turns a key), rung 7 (3wg) C = 3 (192 queries: a
// third consumer's softmax also hides behind the others' wgmma, and each K/V tile serves
// more queries). At head_dim 128 both run rung 5's configuration.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common.cuh"
#include "kernels/gemm_bf16/hopper.cuh"
#include "memhier/core/check.hpp"
#include "memhier/core/gate.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/core/tma.cuh"
#include "memhier/core/tma.hpp"
#include "mma.cuh"  // pack_bf16

namespace memhier::attention::detail {
namespace {

namespace sm90 = memhier::kernels::gemm_bf16::sm90;

constexpr int kProducerRegs = 24;
constexpr uint32_t kSwizzleRow = 128;  // bytes: 64 bf16 of head_dim, one 128-byte swizzle row

/// One configuration of the kernel: head_dim D, C consumer warpgroups of 64 queries, N keys a
/// K/V tile (128: one m64n128 for S; 192: an m64n128 and an m64n64), Stages K/V tiles in the
/// ring, and FtzExp: exponentials by ex2.approx.ftz alone (exp2_of). Shared memory from a
/// 1024-byte aligned base: Q (D / 64 boxes of 64 C rows x 64 columns), Stages K tiles,
/// Stages V tiles (D / 64 boxes of N keys x 64 columns each), then the barriers: Q's `full`,
/// and per stage K's and V's `full` (the producer's expect_tx) and `empty` (one arrival per
/// consumer warpgroup). K and V are freed apart: K once Q K^T read it, a tile before V, so
/// that with two stages the next K is on its way while this tile's P V runs. Every box starts
/// on a multiple of 1024 bytes, the 128-byte swizzle's period (descriptor base offset 0).
template <int D_, int C_, int N_, int Stages_, bool FtzExp>
struct Cfg {
  static constexpr int D = D_, C = C_, N = N_, kStages = Stages_;
  static constexpr bool kFtzExp = FtzExp;
  static_assert(C >= 2 && C <= 3 && (N == 128 || N == 192) && (D == 64 || D == 128));
  static constexpr int kRows = 64 * C;            // queries a block (one TMA box of rows)
  static constexpr int kThreads = 128 * (1 + C);  // warpgroup 0 produces, 1 .. C consume
  // The register file (65536) less the producer's 24 a thread, shared by the consumers and
  // rounded down to setmaxnreg's multiple of 8: 240 for two, 160 for three.
  static constexpr int kConsumerRegs = (65536 / 128 - kProducerRegs) / C / 8 * 8;
  static constexpr int kBoxes = D / 64;
  static constexpr uint32_t kQBox = kRows * kSwizzleRow;
  static constexpr uint32_t kKvBox = N * kSwizzleRow;
  static constexpr uint32_t kQBytes = kBoxes * kQBox;
  static constexpr uint32_t kTileBytes = kBoxes * kKvBox;  // one K or V tile
  static constexpr uint32_t kBarOffset = kQBytes + 2 * kStages * kTileBytes;
  static constexpr int kSmemBytes = int(kBarOffset) + 8 * (1 + 4 * kStages) + 1024;
  static_assert(kQBox % 1024 == 0 && kKvBox % 1024 == 0);
};

// Rung 5 (112 KiB at head_dim 64, 160 KiB at 128); rung 6 at 64 (160 KiB); rung 7 at 64
// (152 KiB: the fourth stage is free, one block an SM either way). Head_dim 128 keeps exp2f,
// as measured; at 64, where the exponentials weigh twice as much, every rung drops its fix-up.
using Rung5Hd64 = Cfg<64, 2, 128, 3, true>;
using Rung5Hd128 = Cfg<128, 2, 128, 2, false>;
using WideHd64 = Cfg<64, 2, 192, 3, true>;
using ThreeWgHd64 = Cfg<64, 3, 128, 4, true>;

template <class G>
struct Smem {
  static constexpr int S = G::kStages;
  uint32_t base;
  __device__ uint32_t q() const { return base; }
  __device__ uint32_t k(int s) const { return base + G::kQBytes + uint32_t(s) * G::kTileBytes; }
  __device__ uint32_t v(int s) const { return k(S) + uint32_t(s) * G::kTileBytes; }
  __device__ uint32_t q_full() const { return base + G::kBarOffset; }
  __device__ uint32_t k_full(int s) const { return q_full() + 8u + 8u * s; }
  __device__ uint32_t v_full(int s) const { return k_full(S) + 8u * s; }
  __device__ uint32_t k_empty(int s) const { return v_full(S) + 8u * s; }
  __device__ uint32_t v_empty(int s) const { return k_empty(S) + 8u * s; }
};

/// The wgmma reads of P's registers are asynchronous: this keeps them (and so their physical
/// registers) alive until the wait that ends the read.
template <int N>
__device__ __forceinline__ void fence_fragments(uint32_t (&p)[N][4]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    asm volatile("" : "+r"(p[i][0]), "+r"(p[i][1]), "+r"(p[i][2]), "+r"(p[i][3])::"memory");
}

/// The C consumer warpgroups take turns issuing their wgmma in a ring, so that one's softmax
/// runs while the tensor cores multiply another's tiles: warpgroup c waits for its turn on
/// named barrier 1 + c (its 128 threads and its predecessor's 128 arrivals) and, once its
/// wgmma are issued, passes the turn by arriving on its successor's (0 is __syncthreads).
__device__ __forceinline__ void wait_turn(int c) {
  sm90::named_barrier_sync<256>(1 + c);
}
template <int C>
__device__ __forceinline__ void pass_turn(int c) {
  sm90::named_barrier_arrive<256>(c + 1 < C ? c + 2 : 1);
}

/// 2^x by the MUFU alone. exp2f adds a fix-up for results below 2^-126 (three instructions an
/// element beside the MUFU's one); flushed to 0 instead, they move no row sum, which is at
/// least 1 (its max's own term), by more than 2^-126 a key.
template <bool Ftz>
__device__ __forceinline__ float exp2_of(float x) {
  if constexpr (!Ftz) return exp2f(x);
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/// S (N keys) += Q K^T's k16 step: one m64n128, or an m64n128 then an m64n64 on K's rows
/// 128 .. 191 into registers 64 .. 95 (the concatenated columns keep one m64nN's layout).
template <int N>
__device__ __forceinline__ void issue_s_step(float (&acc)[N / 2], uint64_t dq, uint32_t k_rows,
                                             int kk, int accumulate) {
  const uint64_t dk = sm90::desc_a(k_rows, kk);
  sm90::wgmma_m64n128k16<0>(*reinterpret_cast<float(*)[64]>(&acc[0]), dq, dk, accumulate);
  if constexpr (N == 192)
    sm90::wgmma_m64n64k16<0>(*reinterpret_cast<float(*)[32]>(&acc[64]), dq,
                             sm90::desc_a(k_rows + 128u * kSwizzleRow, kk), accumulate);
}

template <class G>
__global__ void __launch_bounds__(G::kThreads, 1)
    wgmma_attention_kernel(const __grid_constant__ CUtensorMap map_q,
                           const __grid_constant__ CUtensorMap map_k,
                           const __grid_constant__ CUtensorMap map_v, __nv_bfloat16* o,
                           const Shape s) {
  constexpr int S = G::kStages, D = G::D, C = G::C, kRows = G::kRows, kKeys = G::N;
  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const Smem<G> sm{(raw + 1023u) & ~1023u};
  const int tid = threadIdx.x, wg = tid / 128, t = tid % 128;
  const int b = blockIdx.z, h = blockIdx.y;
  // The last query tiles first: under a causal mask they see the most keys.
  const int q0 = (int(gridDim.x) - 1 - int(blockIdx.x)) * kRows;
  const int kvh = kv_head_of(h, s.heads, s.kv_heads);
  const int n_tiles = (tile_key_end(q0, kRows, s.seq_q, s.seq_k, s.causal) + kKeys - 1) / kKeys;

  if (tid == 0) {
    tma::mbarrier_init(sm.q_full(), 1);
    for (int st = 0; st < S; ++st) {
      tma::mbarrier_init(sm.k_full(st), 1);
      tma::mbarrier_init(sm.v_full(st), 1);
      tma::mbarrier_init(sm.k_empty(st), C);
      tma::mbarrier_init(sm.v_empty(st), C);
    }
    tma::fence_mbarrier_init();
  }
  __syncthreads();

  if (wg == 0) {
    sm90::setmaxnreg_dec<kProducerRegs>();
    if (t != 0 || n_tiles == 0) return;  // no keys: the consumers write zeros, nothing to load
    tma::prefetch_tensor_map(&map_q);
    tma::prefetch_tensor_map(&map_k);
    tma::prefetch_tensor_map(&map_v);
    // Box c of a tile holds head_dim columns 64 c .. 64 c + 63 of its rows: columns h D + 64 c
    // of the [seq, heads x D] plane of batch b (layer b: rows past seq arrive as zeros).
    tma::mbarrier_arrive_expect_tx(sm.q_full(), G::kQBytes);
#pragma unroll
    for (int c = 0; c < G::kBoxes; ++c)
      tma::tensor_load_3d(sm.q() + c * G::kQBox, &map_q, h * D + 64 * c, q0, b, sm.q_full());
    // One K or V tile (D / 64 boxes) once the stage's readers of tile j - S are done.
    const auto load_tile = [&](const CUtensorMap* map, uint32_t dst, uint32_t empty, uint32_t full,
                               int j) {
      // A fresh barrier's phase before the first counts as complete: parity 1 passes for j < S.
      sm90::mbar_wait(empty, ((j / S) & 1) ^ 1);
      tma::mbarrier_arrive_expect_tx(full, G::kTileBytes);
#pragma unroll
      for (int c = 0; c < G::kBoxes; ++c)
        tma::tensor_load_3d(dst + c * G::kKvBox, map, kvh * D + 64 * c, j * kKeys, b, full);
    };
    for (int j = 0; j < n_tiles; ++j) {
      const int st = j % S;
      load_tile(&map_k, sm.k(st), sm.k_empty(st), sm.k_full(st), j);
      load_tile(&map_v, sm.v(st), sm.v_empty(st), sm.v_full(st), j);
    }
    return;
  }

  sm90::setmaxnreg_inc<G::kConsumerRegs>();
  const int cw = wg - 1, warp = t / 32, lane = t % 32;
  const int r0 = q0 + 64 * cw;  // this warpgroup's first query
  // All consumers walk the block's tiles (warpgroup 0's rows may see none of the last one):
  // loop bounds and branches around the wgmma stay block-uniform, which ptxas needs to keep
  // the wgmma asynchronous instead of serializing it.
  const int n_w = n_tiles;
  const float qmul = s.scale * kLog2e;
  // Accumulator register v of a thread: row 16 warp + lane / 4 + 8 ((v >> 1) & 1) of the
  // warpgroup's 64, column 8 (v >> 2) + 2 (lane % 4) + (v & 1) (hopper.cuh). hh: the row half.
  int vis[2];
#pragma unroll
  for (int hh = 0; hh < 2; ++hh)
    vis[hh] = static_cast<int>(
        visible_keys(r0 + 16 * warp + lane / 4 + 8 * hh, s.seq_q, s.seq_k, s.causal));
  // Keys every row of the block sees (its first row's): tiles below need no mask.
  const long long vis_all = visible_keys(q0, s.seq_q, s.seq_k, s.causal);

  float sacc[kKeys / 2];      // S (and then P, in fp32) of one tile: 64 x N
  float oacc[D / 2];          // O: 64 x D
  uint32_t p[kKeys / 16][4];  // P in bf16: the A fragments of P V's N / 16 k16 steps
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};  // in log2 units; l: this thread's
#pragma unroll
  for (int i = 0; i < D / 2; ++i) oacc[i] = 0.f;
#pragma unroll
  for (int i = 0; i < kKeys / 16; ++i) p[i][0] = p[i][1] = p[i][2] = p[i][3] = 0u;

  // This warpgroup's 64 rows start 64 rows (8 KiB, 8 swizzle groups) into each Q box.
  const uint32_t q_rows = sm.q() + uint32_t(cw) * 64u * kSwizzleRow;
  // S = Q K^T: A = Q and B = K are both K-major (head_dim contiguous; desc_a's layout: 8-row
  // groups 1024 bytes apart, the kk-th 16 columns 32 kk bytes into a box's rows); K's N
  // rows are the n of the wgmma, trans-b 0. Step kk reads box kk / 4.
  const auto issue_s = [&](int st) {
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk)
      issue_s_step<kKeys>(sacc, sm90::desc_a(q_rows + (kk / 4) * G::kQBox, kk % 4),
                          sm.k(st) + (kk / 4) * G::kKvBox, kk % 4, kk > 0);
  };
  // O += P V: V's tile is the GEMM's MN-major B (keys = k rows of 128 bytes, head_dim = n in
  // 64-column boxes kKvBox apart: desc_b's LBO); the kk-th 16 keys start 16 rows in.
  const auto issue_pv = [&](int st) {
#pragma unroll
    for (int kk = 0; kk < kKeys / 16; ++kk) {
      const uint64_t db = sm90::desc_b(sm.v(st), kk, G::kKvBox);
      if constexpr (D == 128)
        sm90::wgmma_m64n128k16_rs(oacc, p[kk], db, 1);
      else
        sm90::wgmma_m64n64k16_rs(oacc, p[kk], db, 1);
    }
  };

  // O / l in bf16: a thread's rows r and r + 8, column pairs 8 c + 2 (lane % 4).
  const auto store = [&] {
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      const float inv = inverse_row_sum(l[hh]);
      const int row = r0 + 16 * warp + lane / 4 + 8 * hh;
      if (row >= s.seq_q) continue;
      __nv_bfloat16* out = o + row_offset(b, row, h, s.seq_q, s.heads, D) + 2 * (lane % 4);
#pragma unroll
      for (int c = 0; c < D / 8; ++c)
        *reinterpret_cast<__nv_bfloat162*>(out + 8 * c) =
            __floats2bfloat162_rn(oacc[4 * c + 2 * hh] * inv, oacc[4 * c + 2 * hh + 1] * inv);
    }
  };
  if (n_w == 0) {  // every row of the block is fully masked: zeros, and nothing was loaded
    store();
    return;
  }
  // No wgmma below sits under a branch: ptxas serializes wgmma whose register hand-offs it
  // must guard on a divergent path.
  if (cw == C - 1) pass_turn<C>(cw);  // warpgroup 0 issues first
  sm90::mbar_wait(sm.q_full(), 0);
  sm90::mbar_wait(sm.k_full(0), 0);
  sm90::wgmma_fence();
  issue_s(0);
  sm90::wgmma_commit();
  sm90::wgmma_wait<0>();
  sm90::fence_accumulators(sacc);
  if (t == 0) sm90::mbar_arrive(sm.k_empty(0));
  // Tile j: S_j is in sacc; P V of tile j - 1 may still run (it reads p, writes oacc). With
  // More, the next tile's S is issued before this one's P V. The last tile is peeled off
  // (More = false) so that no wgmma depends on a run-time branch.
  const auto step = [&](int j, auto more) {
    constexpr bool More = decltype(more)::value;
    const int st = j % S;
    const int n0 = j * kKeys;
    if (n0 + kKeys > vis_all) {  // the tile crosses seq_k or a row's diagonal
      // Keys past vis[hh] are hidden: column 8 (v >> 2) + (v & 1) >= vis - n0 - 2 (lane % 4).
      const int lim[2] = {vis[0] - n0 - 2 * (lane % 4), vis[1] - n0 - 2 * (lane % 4)};
#pragma unroll
      for (int v = 0; v < kKeys / 2; ++v)
        sacc[v] = 8 * (v >> 2) + (v & 1) >= lim[(v >> 1) & 1] ? -INFINITY : sacc[v];
    }
    float alpha[2];
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      float mx = -INFINITY;
#pragma unroll
      for (int c = 0; c < kKeys / 8; ++c)
        mx = fmaxf(mx, fmaxf(sacc[4 * c + 2 * hh], sacc[4 * c + 2 * hh + 1]));
      // The four threads of a quad hold a row's N columns between them.
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float m_new = fmaxf(m[hh], mx * qmul);  // qmul > 0: the max commutes with it
      const float mu = usable_max(m_new);
      alpha[hh] = exp2_of<G::kFtzExp>(m[hh] - mu);
      float sum = 0.f;
#pragma unroll
      for (int c = 0; c < kKeys / 8; ++c)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int v = 4 * c + 2 * hh + e;
          sacc[v] = exp2_of<G::kFtzExp>(fmaf(sacc[v], qmul, -mu));
          sum += sacc[v];
        }
      l[hh] = l[hh] * alpha[hh] + sum;
      m[hh] = m_new;
    }
    if (j > 0) {
      // P V of tile j - 1 done: p and oacc are this thread's again, V_{j-1}'s stage free.
      sm90::wgmma_wait<0>();
      sm90::fence_accumulators(oacc);
      fence_fragments(p);
      if (t == 0) sm90::mbar_arrive(sm.v_empty((j - 1) % S));
    }
    // P's k16 step kk is S's columns 16 kk .. 16 kk + 15: registers 8 kk .. 8 kk + 7, which in
    // the register-A layout are a[r] = (8 kk + 2 r, 8 kk + 2 r + 1) (hopper.cuh).
#pragma unroll
    for (int kk = 0; kk < kKeys / 16; ++kk)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        p[kk][r] = pack_bf16(sacc[8 * kk + 2 * r], sacc[8 * kk + 2 * r + 1]);
#pragma unroll
    for (int v = 0; v < D / 2; ++v) oacc[v] *= alpha[(v >> 1) & 1];
    if constexpr (More) sm90::mbar_wait(sm.k_full((j + 1) % S), ((j + 1) / S) & 1);
    sm90::mbar_wait(sm.v_full(st), (j / S) & 1);
    wait_turn(cw);
    sm90::wgmma_fence();  // p, oacc and sacc written above, before the wgmma reads them
    if constexpr (More) {
      issue_s((j + 1) % S);
      sm90::wgmma_commit();
    }
    issue_pv(st);
    sm90::wgmma_commit();
    // Warpgroup 0 waits n_w turns: the last one's first pass and its passes after every tile
    // but the last. Warpgroup c > 0 waits n_w turns: c - 1's passes after every tile.
    if (More || cw != C - 1) pass_turn<C>(cw);
    if constexpr (More) {
      sm90::wgmma_wait<1>();  // S_{j+1} done (groups complete in order); P V_j may run on
      sm90::fence_accumulators(sacc);
      if (t == 0) sm90::mbar_arrive(sm.k_empty((j + 1) % S));
    }
  };
  for (int j = 0; j + 1 < n_w; ++j) step(j, std::true_type{});
  step(n_w - 1, std::false_type{});
  sm90::wgmma_wait<0>();
  sm90::fence_accumulators(oacc);
  fence_fragments(p);

  store();
}

/// The map over a [batch, seq, heads, D] tensor as batch layers of a seq x (heads x D) plane,
/// read in boxes of `box_rows` rows x 64 columns (128 bytes: one swizzle row), 128-byte
/// swizzled; rows past seq in a layer read as zero.
CUtensorMap head_map(const __nv_bfloat16* base, int batch, int seq, int heads, int d,
                     int box_rows) {
  core::Tensor3d t;
  t.plane.base = base;
  t.plane.cols = static_cast<std::uint64_t>(heads) * d;
  t.plane.rows = static_cast<std::uint64_t>(seq);
  t.plane.pitch_bytes = t.plane.cols * sizeof(__nv_bfloat16);
  t.plane.elem_bytes = 2;
  t.plane.box_cols = 64;
  t.plane.box_rows = static_cast<std::uint32_t>(box_rows);
  t.plane.swizzle = core::TmaSwizzle::b128;
  t.layers = static_cast<std::uint64_t>(batch);
  t.layer_pitch_bytes = t.plane.rows * t.plane.pitch_bytes;
  return core::encode_tensor_map_3d(t);
}

template <class G>
const void* kernel_of() {
  return reinterpret_cast<const void*>(wgmma_attention_kernel<G>);
}

/// The configuration `v` runs at head_dim `d`: rungs 6 and 7 differ from rung 5 at 64 alone.
template <class F>
decltype(auto) with_cfg(Variant v, int d, F&& f) {
  if (d != 64) return f(Rung5Hd128{});
  if (v == Variant::wgmma_tma_wide) return f(WideHd64{});
  if (v == Variant::wgmma_tma_3wg) return f(ThreeWgHd64{});
  return f(Rung5Hd64{});
}

template <class G>
void launch_cfg(Variant v, const Problem& p) {
  const char* what = to_string(v);
  const std::string why = wgmma_tma_unsupported(v, p.s);
  if (!why.empty()) throw std::invalid_argument(std::string(what) + ": " + why);
  const Shape& s = p.s;
  constexpr int D = G::D;
  const CUtensorMap mq = head_map(p.q, s.batch, s.seq_q, s.heads, D, G::kRows);
  const CUtensorMap mk = head_map(p.k, s.batch, s.seq_k, s.kv_heads, D, G::N);
  const CUtensorMap mv = head_map(p.v, s.batch, s.seq_k, s.kv_heads, D, G::N);
  core::prepare_dynamic_smem(kernel_of<G>(), G::kSmemBytes, what);
  const dim3 grid = head_grid((s.seq_q + G::kRows - 1) / G::kRows, s, what);
  wgmma_attention_kernel<G><<<grid, G::kThreads, G::kSmemBytes, p.stream>>>(mq, mk, mv, p.o, s);
  MEMHIER_CHECK_LAUNCH();
}

void launch_variant(Variant v, const Problem& p) {
  with_cfg(v, p.s.head_dim, [&](auto g) { launch_cfg<decltype(g)>(v, p); });
}

}  // namespace

std::string wgmma_tma_unsupported(Variant v, const Shape& s) {
  if (s.head_dim != 64 && s.head_dim != 128) return "it takes head_dim 64 or 128.";
  return with_cfg(v, s.head_dim, [](auto g) {
    using G = decltype(g);
    return core::kernel_unsupported("wgmma_tma (wgmma, TMA and setmaxnreg)", kernel_of<G>(),
                                    {90, true, G::kSmemBytes, 0});
  });
}

void launch_wgmma_tma(const Problem& p) {
  launch_variant(Variant::wgmma_tma, p);
}
void launch_wgmma_tma_wide(const Problem& p) {
  launch_variant(Variant::wgmma_tma_wide, p);
}
void launch_wgmma_tma_3wg(const Problem& p) {
  launch_variant(Variant::wgmma_tma_3wg, p);
}

template <class G>
Geometry geometry_of() {
  return {G::kRows, G::N, G::kThreads, G::kSmemBytes, KvLoad::tma};
}
Geometry wgmma_tma_geometry(int head_dim) {
  return with_cfg(Variant::wgmma_tma, head_dim, [](auto g) { return geometry_of<decltype(g)>(); });
}
Geometry wgmma_tma_wide_geometry(int head_dim) {
  return with_cfg(Variant::wgmma_tma_wide, head_dim,
                  [](auto g) { return geometry_of<decltype(g)>(); });
}
Geometry wgmma_tma_3wg_geometry(int head_dim) {
  return with_cfg(Variant::wgmma_tma_3wg, head_dim,
                  [](auto g) { return geometry_of<decltype(g)>(); });
}

const void* wgmma_tma_symbol() {
  return kernel_of<Rung5Hd128>();
}
const void* wgmma_tma_wide_symbol() {
  return kernel_of<WideHd64>();
}
const void* wgmma_tma_3wg_symbol() {
  return kernel_of<ThreeWgHd64>();
}

}  // namespace memhier::attention::detail
