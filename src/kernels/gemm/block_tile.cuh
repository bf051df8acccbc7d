// The block tile shared by the fast rungs (double_buffered, cp_async, swizzled and the
// candidates of `best`): a BM x BN tile of C per block, BK-deep k-tiles, each thread an
// (4*RM) x (4*RN) tile of C made of RM x RN quadrants of 4 x 4 placed BM/RM rows and BN/RN
// columns apart. With warps of 4 x 8 threads (index.cuh) every fragment read is one
// LDS.128 that a quarter-warp either broadcasts (A) or reads as 128 contiguous bytes (B):
// no bank conflicts. A is stored transposed ([BK][BM]), padded by 4 floats per k-row or
// XOR-swizzled (SWZ), so its transposing stores are conflict-free too.
#pragma once

#include "common.cuh"
#include "memhier/core/ptx.cuh"

namespace memhier::gemm::detail {

template <int BM_, int BN_, int BK_, int RM_, int RN_, bool SWZ_>
struct BlockTile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, RM = RM_, RN = RN_;
  static constexpr bool SWZ = SWZ_;
  static constexpr int TM = 4 * RM, TN = 4 * RN;    // outputs per thread
  static constexpr int TY = BM / TM, TX = BN / TN;  // the block's thread grid
  static constexpr int THREADS = TY * TX;
  static constexpr int A_LD = SWZ ? BM : BM + 4;  // floats per k-row of the A tile
  static constexpr int A_FLOATS = BK * A_LD, B_FLOATS = BK * BN;
  static constexpr int A_VEC = BM * BK / 4 / THREADS;  // float4 of A per thread per k-tile
  static constexpr int B_VEC = BK * BN / 4 / THREADS;
  static constexpr int GROUP_M = 8;  // grouped rasterization (index.cuh)

  static_assert((RM == 1 || RM == 2 || RM == 4) && (RN == 1 || RN == 2 || RN == 4), "quadrants");
  static_assert(TX % 8 == 0 && TY % 4 == 0, "whole warps of 4 x 8 threads");
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "block size");
  static_assert(BK % 4 == 0 && BK <= 32, "k-tile in float4s; swizzle unit 128/BK >= 4");
  static_assert(!SWZ || BM % 32 == 0, "swizzle stays inside 32-row groups");
  static_assert(A_VEC >= 1 && A_VEC * THREADS * 4 == BM * BK, "A tile in whole float4s");
  static_assert(B_VEC >= 1 && B_VEC * THREADS * 4 == BK * BN, "B tile in whole float4s");
  static_assert(THREADS % (BK / 4) == 0, "a warp's A rows start on a swizzle boundary");

  /// Word offset of A(m, kk) inside the transposed A tile.
  __device__ static __forceinline__ int a_index(int kk, int m) {
    return SWZ ? a_tile_swizzled(kk, m, BM, BK) : a_tile_padded(kk, m, BM);
  }
};

/// Tile `tile`'s origin in C (grouped rasterization).
template <class T>
__device__ __forceinline__ void tile_origin(const Params& p, int tile, int* m0, int* n0) {
  const int tiles_m = (p.m + T::BM - 1) / T::BM, tiles_n = (p.n + T::BN - 1) / T::BN;
  int tm = 0, tn = 0;
  grouped_tile(tile, tiles_m, tiles_n, T::GROUP_M, &tm, &tn);
  *m0 = tm * T::BM;
  *n0 = tn * T::BN;
}

/// The block's origin in C from its 1-D block id.
template <class T>
__device__ __forceinline__ void block_origin(const Params& p, int* m0, int* n0) {
  tile_origin<T>(p, static_cast<int>(blockIdx.x), m0, n0);
}

/// What a block-tile kernel knows before its k loop: the thread's id, the block's origin
/// in C, the thread's place in the warp grid and the number of k-tiles.
struct TileStart {
  int tid, m0, n0, ty, tx, nk;
};

/// The TileStart of the calling thread, for tile T.
template <class T>
__device__ __forceinline__ TileStart tile_start(const Params& p) {
  TileStart s;
  s.tid = static_cast<int>(threadIdx.x);
  block_origin<T>(p, &s.m0, &s.n0);
  warp_grid_coords(s.tid, T::TX, &s.ty, &s.tx);
  s.nk = (p.k + T::BK - 1) / T::BK;
  return s;
}

/// Where the i-th float4 of A this thread stages sits in the tile: row r, first k c.
template <class T>
__device__ __forceinline__ void a_slot(int tid, int i, int* r, int* c) {
  const int idx = tid + i * T::THREADS;
  *r = idx / (T::BK / 4);
  *c = (idx % (T::BK / 4)) * 4;
}

/// Where the i-th float4 of B this thread stages sits: k-row r, first column c.
template <class T>
__device__ __forceinline__ void b_slot(int tid, int i, int* r, int* c) {
  const int idx = tid + i * T::THREADS;
  *r = idx / (T::BN / 4);
  *c = (idx % (T::BN / 4)) * 4;
}

/// Global -> registers: this thread's float4s of the k-tile starting at k0 (zero-filled
/// past the edges of A and B).
template <class T>
__device__ __forceinline__ void load_tile_regs(const Params& p, int m0, int n0, int k0, int tid,
                                               float4 (&ra)[T::A_VEC], float4 (&rb)[T::B_VEC]) {
#pragma unroll
  for (int i = 0; i < T::A_VEC; ++i) {
    int r, c;
    a_slot<T>(tid, i, &r, &c);
    const int row = m0 + r, kc = k0 + c;
    const bool ok = row < p.m;
    const float* src = p.A + static_cast<std::size_t>(ok ? row : 0) * p.lda + kc;
    ra[i] = load4(src, ok ? p.k - kc : 0, p.vec_a);
  }
#pragma unroll
  for (int i = 0; i < T::B_VEC; ++i) {
    int r, c;
    b_slot<T>(tid, i, &r, &c);
    const int kr = k0 + r, col = n0 + c;
    const bool ok = kr < p.k;
    const float* src = p.B + static_cast<std::size_t>(ok ? kr : 0) * p.ldb + col;
    rb[i] = load4(src, ok ? p.n - col : 0, p.vec_b);
  }
}

/// Where an interior block's thread reads its first float4 of A and of B in a k-tile, and the
/// floats between its slots. A block whose tile lies inside M and N, with 16-byte loads legal,
/// steps these by a k-tile instead of recomputing and bounds-checking every address.
struct TileSources {
  const float* a;
  const float* b;
  std::size_t a_step, b_step;
};

/// The TileSources of the k-tile starting at k0.
template <class T>
__device__ __forceinline__ TileSources tile_sources(const Params& p, int m0, int n0, int k0,
                                                    int tid) {
  static_assert(T::THREADS % (T::BN / 4) == 0, "a thread's B slots share one column");
  int ra, ca, rb, cb;
  a_slot<T>(tid, 0, &ra, &ca);
  b_slot<T>(tid, 0, &rb, &cb);
  return {p.A + static_cast<std::size_t>(m0 + ra) * p.lda + k0 + ca,
          p.B + static_cast<std::size_t>(k0 + rb) * p.ldb + n0 + cb,
          static_cast<std::size_t>(T::THREADS / (T::BK / 4)) * p.lda,
          static_cast<std::size_t>(T::THREADS / (T::BN / 4)) * p.ldb};
}

/// load_tile_regs for a k-tile wholly inside an interior block: no edge to check.
template <class T>
__device__ __forceinline__ void load_tile_regs_interior(const TileSources& s,
                                                        float4 (&ra)[T::A_VEC],
                                                        float4 (&rb)[T::B_VEC]) {
#pragma unroll
  for (int i = 0; i < T::A_VEC; ++i)
    ra[i] = __ldg(reinterpret_cast<const float4*>(s.a + i * s.a_step));
#pragma unroll
  for (int i = 0; i < T::B_VEC; ++i)
    rb[i] = __ldg(reinterpret_cast<const float4*>(s.b + i * s.b_step));
}

/// Registers -> shared: A transposed (4 scalar stores), B as one 16-byte store.
template <class T>
__device__ __forceinline__ void store_tile_smem(float* As, float* Bs, int tid,
                                                const float4 (&ra)[T::A_VEC],
                                                const float4 (&rb)[T::B_VEC]) {
#pragma unroll
  for (int i = 0; i < T::A_VEC; ++i) {
    int r, c;
    a_slot<T>(tid, i, &r, &c);
    As[T::a_index(c + 0, r)] = ra[i].x;
    As[T::a_index(c + 1, r)] = ra[i].y;
    As[T::a_index(c + 2, r)] = ra[i].z;
    As[T::a_index(c + 3, r)] = ra[i].w;
  }
#pragma unroll
  for (int i = 0; i < T::B_VEC; ++i) {
    int r, c;
    b_slot<T>(tid, i, &r, &c);
    *reinterpret_cast<float4*>(&Bs[r * T::BN + c]) = rb[i];
  }
}

/// Global -> shared with cp.async (no registers): A element by element into its
/// transposed slots, B 16 bytes at a time where legal; zero-fill past the edges.
template <class T>
__device__ __forceinline__ void issue_tile_async(const Params& p, int m0, int n0, int k0, int tid,
                                                 float* As, float* Bs) {
#pragma unroll
  for (int i = 0; i < T::A_VEC; ++i) {
    int r, c;
    a_slot<T>(tid, i, &r, &c);
    const int row = m0 + r, kc = k0 + c;
    const bool row_ok = row < p.m;
    const float* src = p.A + static_cast<std::size_t>(row_ok ? row : 0) * p.lda + kc;
    const int avail = row_ok ? p.k - kc : 0;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const bool ok = j < avail;
      ptx::cp_async_ca_4_zfill(&As[T::a_index(c + j, r)], ok ? src + j : p.A, ok ? 4 : 0);
    }
  }
#pragma unroll
  for (int i = 0; i < T::B_VEC; ++i) {
    int r, c;
    b_slot<T>(tid, i, &r, &c);
    const int kr = k0 + r, col = n0 + c;
    const bool k_ok = kr < p.k;
    const float* src = p.B + static_cast<std::size_t>(k_ok ? kr : 0) * p.ldb + col;
    const int avail = k_ok ? p.n - col : 0;
    float* dst = &Bs[r * T::BN + c];
    if (p.vec_b) {
      const int bytes = avail >= 4 ? 16 : (avail > 0 ? avail * 4 : 0);
      ptx::cp_async_cg_16_zfill(dst, bytes > 0 ? src : p.B, bytes);
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const bool ok = j < avail;
        ptx::cp_async_ca_4_zfill(dst + j, ok ? src + j : p.B, ok ? 4 : 0);
      }
    }
  }
}

/// Shared -> registers: this thread's A and B fragments for one k (one LDS.128 each).
template <class T>
__device__ __forceinline__ void load_fragments(const float* As, const float* Bs, int kk, int ty,
                                               int tx, float4 (&fa)[T::RM], float4 (&fb)[T::RN]) {
#pragma unroll
  for (int q = 0; q < T::RM; ++q)
    fa[q] = *reinterpret_cast<const float4*>(&As[T::a_index(kk, q * (T::BM / T::RM) + ty * 4)]);
#pragma unroll
  for (int q = 0; q < T::RN; ++q)
    fb[q] = *reinterpret_cast<const float4*>(&Bs[kk * T::BN + q * (T::BN / T::RN) + tx * 4]);
}

/// The outer product of one k: TM x TN FMAs into the accumulators.
template <class T>
__device__ __forceinline__ void outer_product(float (&acc)[T::TM][T::TN], const float4 (&fa)[T::RM],
                                              const float4 (&fb)[T::RN]) {
#pragma unroll
  for (int qm = 0; qm < T::RM; ++qm)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float a = f4(fa[qm], i);
#pragma unroll
      for (int qn = 0; qn < T::RN; ++qn)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          // Serpentine: odd rows walk the columns backwards, so each row starts with the
          // b operand the previous row ended with (the operand-reuse cache keeps it).
          const int c = (i & 1) ? T::TN - 1 - (qn * 4 + j) : qn * 4 + j;
          acc[qm * 4 + i][c] = fmaf(a, f4(fb[c / 4], c % 4), acc[qm * 4 + i][c]);
        }
    }
}

/// f(row, col, r, c) for each float4 of C the thread owns: its first element's row and column
/// in C, and where its four accumulators start (acc[r][c..c+3]); the epilogues' one walk.
template <class T, class F>
__device__ __forceinline__ void for_each_output4(int m0, int n0, int ty, int tx, F f) {
#pragma unroll
  for (int qm = 0; qm < T::RM; ++qm)
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int qn = 0; qn < T::RN; ++qn)
        f(m0 + qm * (T::BM / T::RM) + ty * 4 + i, n0 + qn * (T::BN / T::RN) + tx * 4, qm * 4 + i,
          qn * 4);
}

/// Accumulators -> C (alpha, beta, guarded edges, float4 where legal).
template <class T>
__device__ __forceinline__ void write_tile(const Params& p, int m0, int n0, int ty, int tx,
                                           const float (&acc)[T::TM][T::TN]) {
  for_each_output4<T>(m0, n0, ty, tx, [&](int row, int col, int r, int c) {
    store4(p.C, p.ldc, p.m, p.n, row, col,
           make_float4(acc[r][c], acc[r][c + 1], acc[r][c + 2], acc[r][c + 3]), p.alpha, p.beta,
           p.vec_c);
  });
}

template <class T>
__device__ __forceinline__ void zero(float (&acc)[T::TM][T::TN]) {
#pragma unroll
  for (int i = 0; i < T::TM; ++i)
#pragma unroll
    for (int j = 0; j < T::TN; ++j) acc[i][j] = 0.f;
}

/// The Launcher of a kernel on tile T: its launch, its main kernel, T's threads and shape, the
/// dynamic shared memory, how it stages k-tiles and whether it splits K.
template <class T>
Launcher block_tile_launcher(void (*launch)(const Params&, cudaStream_t), const void* (*symbol)(),
                             int dynamic_smem = 0, bool cp_async = false,
                             gemm::tuning::SplitK split_k = gemm::tuning::SplitK::never) {
  return {launch,
          symbol,
          T::THREADS,
          dynamic_smem,
          {T::BM, T::BN, T::BK, T::RM, T::RN, T::SWZ, cp_async},
          split_k};
}

/// Blocks of the 1-D grid for tile T.
template <class T>
dim3 block_tile_grid(const Params& p, const char* what) {
  return grid_1d(ceil_div<long long>(p.m, T::BM) * ceil_div<long long>(p.n, T::BN), what);
}

}  // namespace memhier::gemm::detail
