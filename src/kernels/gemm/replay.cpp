// The replays of the GEMM kernels (replay.hpp). Each kernel is replayed block by block and
// warp by warp; every global and shared instruction of its SASS (sm_90, nvcc 13.0) is
// recorded with the lanes that are on for it. A lane's bounds check decides whether it
// takes part; an instruction with no lane on counts nothing, whether the SASS predicates it
// or branches around it (kernels/predict.hpp), so each instruction below is recorded with
// the lanes whose checks pass. Loops over K have the same trip count in every thread, so
// unrolling (naive: by 16, 8, 4, 1) changes no warp instruction's lanes.
#include "kernels/gemm/replay.hpp"

namespace memhier::gemm::detail::replay {
namespace {

// naive_kernel and coalesced_kernel (naive.cu, coalesced.cu): 32 x 32 threads, one output
// each; threads outside C return. SASS: 2 LDG.E per k (A row element, B column element),
// then the epilogue (LDG.E of C if beta, STG.E).
void naive_like(Recorder& rec, const Problem& p, bool rows_along_x) {
  constexpr int kBlock = 32;
  const dim3 grid = rows_along_x
                        ? grid_2d(ceil_div(p.m, kBlock), ceil_div(p.n, kBlock), "naive")
                        : grid_2d(ceil_div(p.n, kBlock), ceil_div(p.m, kBlock), "coalesced");
  rec.launch(kBlock * kBlock, 0);
  // Blocks in launch order (blockIdx.x fastest); the counts do not depend on the order.
  for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx)
      for (int ty = 0; ty < kBlock; ++ty) {
        rec.at(std::uint64_t{by} * grid.x + bx, ty);  // thread row ty is warp ty
        const auto coords = [&](int tid, int* row, int* col) {
          const int tx = tid - ty * kBlock;
          const int x = static_cast<int>(bx) * kBlock + tx, y = static_cast<int>(by) * kBlock + ty;
          *row = rows_along_x ? x : y;
          *col = rows_along_x ? y : x;
          return *row < p.m && *col < p.n;
        };
        for (int i = 0; i < p.k; ++i) {
          warp_op(rec, ty, kBlock * kBlock, 4, false, [&](int tid, std::uint64_t* a) {
            int row = 0, col = 0;
            if (!coords(tid, &row, &col)) return false;
            *a = at(p.A, row, i, p.lda);
            return true;
          });
          warp_op(rec, ty, kBlock * kBlock, 4, false, [&](int tid, std::uint64_t* a) {
            int row = 0, col = 0;
            if (!coords(tid, &row, &col)) return false;
            *a = at(p.B, i, col, p.ldb);
            return true;
          });
        }
        store1(rec, p, ty, kBlock * kBlock, coords);
      }
}

// smem_tile_kernel<TILE, PAD, ROWS> (smem_tile.cuh): TILE x TILE/ROWS threads, no early
// exit. SASS per k-tile and warp: ROWS x (predicated LDG.E of A, LDG.E of B, STS, STS);
// then TILE LDS of Bs[kk][tx] and the As reads: LDS.128 of four consecutive kk when the
// shared row is 16-byte aligned (PAD = 0: TILE/4 per row), else TILE LDS (padded);
// epilogue per row: EXIT/branch on the bounds, LDG.E of C if beta, STG.E.
template <int TILE, int PAD, int ROWS>
void smem_tile(Recorder& rec, const Problem& p, Variant v) {
  constexpr int kThreadRows = TILE / ROWS, kThreads = TILE * kThreadRows, kLd = TILE + PAD;
  check_block(v, kThreads);
  const dim3 grid = grid_2d(ceil_div(p.n, TILE), ceil_div(p.m, TILE), to_string(v));
  rec.launch(kThreads, 2 * TILE * kLd * 4);  // As and Bs, [TILE][TILE + PAD] each
  for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx) {
      const int row0 = static_cast<int>(by) * TILE;
      const auto tx = [](int tid) { return tid % TILE; };
      const auto ty = [](int tid) { return tid / TILE; };
      const auto col = [&](int tid) { return static_cast<int>(bx) * TILE + tx(tid); };
      for (int w = 0; w < kThreads / kWarpSize; ++w) {
        rec.at(std::uint64_t{by} * grid.x + bx, w);
        for (int k0 = 0; k0 < p.k; k0 += TILE) {
          for (int r = 0; r < ROWS; ++r) {
            const auto lr = [&](int tid) { return ty(tid) + r * kThreadRows; };
            warp_op(rec, w, kThreads, 4, false, [&](int tid, std::uint64_t* a) {
              const int arow = row0 + lr(tid), acol = k0 + tx(tid);
              *a = at(p.A, arow, acol, p.lda);
              return arow < p.m && acol < p.k;
            });
            warp_op(rec, w, kThreads, 4, false, [&](int tid, std::uint64_t* a) {
              const int brow = k0 + lr(tid);
              *a = at(p.B, brow, col(tid), p.ldb);
              return brow < p.k && col(tid) < p.n;
            });
            for (int array = 0; array < 2; ++array)  // As[lr][tx], Bs[lr][tx]
              warp_shared(rec, w, 4, true, [&](int tid, std::uint64_t* a) {
                *a = 4 * rm_offset(lr(tid), tx(tid), kLd);
                return true;
              });
          }
          for (int kk = 0; kk < TILE; ++kk)  // Bs[kk][tx]
            warp_shared(rec, w, 4, false, [&](int tid, std::uint64_t* a) {
              *a = 4 * rm_offset(kk, tx(tid), kLd);
              return true;
            });
          constexpr bool kVecA = kLd % 4 == 0;
          for (int r = 0; r < ROWS; ++r)  // As[ty + r * kThreadRows][kk]
            for (int kk = 0; kk < TILE; kk += kVecA ? 4 : 1)
              warp_shared(rec, w, kVecA ? 16 : 4, false, [&](int tid, std::uint64_t* a) {
                *a = 4 * rm_offset(ty(tid) + r * kThreadRows, kk, kLd);
                return true;
              });
        }
        for (int r = 0; r < ROWS; ++r)
          store1(rec, p, w, kThreads, [&](int tid, int* row, int* c) {
            *row = row0 + ty(tid) + r * kThreadRows;
            *c = col(tid);
            return *row < p.m && *c < p.n;
          });
      }
    }
}

}  // namespace

void naive(Recorder& rec, const Problem& p, Variant) {
  naive_like(rec, p, true);
}
void coalesced(Recorder& rec, const Problem& p, Variant) {
  naive_like(rec, p, false);
}
void smem_tile16(Recorder& rec, const Problem& p, Variant v) {
  smem_tile<16, 0, 1>(rec, p, v);
}
void smem_tile32(Recorder& rec, const Problem& p, Variant v) {
  smem_tile<32, 0, 1>(rec, p, v);
}
void smem_tile64(Recorder& rec, const Problem& p, Variant v) {
  smem_tile<64, 0, 4>(rec, p, v);
}
void padded(Recorder& rec, const Problem& p, Variant v) {
  smem_tile<32, 1, 1>(rec, p, v);
}

// reg_tile_1d_kernel (reg_tile_1d.cu): 64 x 64 x 8 block tile, 512 threads, 8 outputs per
// thread. SASS per k-tile and warp: predicated LDG.E of A and of B, 2 STS; 8 LDS of
// Bs[dot][t_col] and 16 LDS.128 of As (each of the thread's 8 rows as two float4 of its
// 8 k); epilogue per output row: bounds, LDG.E of C if beta, STG.E.
void reg_tile_1d(Recorder& rec, const Problem& p, Variant) {
  constexpr int BM = 64, BN = 64, BK = 8, TM = 8, kThreads = BM * BN / TM;
  check_block(Variant::reg_tile_1d, kThreads);
  const dim3 grid = grid_2d(ceil_div(p.n, BN), ceil_div(p.m, BM), "reg_tile_1d");
  rec.launch(kThreads, (BM * BK + BK * BN) * 4);  // As and Bs
  for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx) {
      const int m0 = static_cast<int>(by) * BM, n0 = static_cast<int>(bx) * BN;
      for (int w = 0; w < kThreads / kWarpSize; ++w) {
        rec.at(std::uint64_t{by} * grid.x + bx, w);
        for (int k0 = 0; k0 < p.k; k0 += BK) {
          warp_op(rec, w, kThreads, 4, false, [&](int tid, std::uint64_t* a) {
            const int a_r = tid / BK, a_c = tid % BK;
            *a = at(p.A, m0 + a_r, k0 + a_c, p.lda);
            return m0 + a_r < p.m && k0 + a_c < p.k;
          });
          warp_op(rec, w, kThreads, 4, false, [&](int tid, std::uint64_t* a) {
            const int b_r = tid / BN, b_c = tid % BN;
            *a = at(p.B, k0 + b_r, n0 + b_c, p.ldb);
            return n0 + b_c < p.n && k0 + b_r < p.k;
          });
          warp_shared(rec, w, 4, true, [&](int tid, std::uint64_t* a) {
            *a = 4 * rm_offset(tid / BK, tid % BK, BK);  // As[a_r * BK + a_c]
            return true;
          });
          warp_shared(rec, w, 4, true, [&](int tid, std::uint64_t* a) {
            *a = 4 * rm_offset(tid / BN, tid % BN, BN);  // Bs[b_r * BN + b_c]
            return true;
          });
          for (int dot = 0; dot < BK; ++dot)
            warp_shared(rec, w, 4, false, [&](int tid, std::uint64_t* a) {
              *a = 4 * rm_offset(dot, tid % BN, BN);  // Bs[dot * BN + t_col]
              return true;
            });
          for (int i = 0; i < TM; ++i)
            for (int dot = 0; dot < BK; dot += 4)
              warp_shared(rec, w, 16, false, [&](int tid, std::uint64_t* a) {
                *a = 4 * rm_offset((tid / BN) * TM + i, dot, BK);  // As[(t_row*TM+i)*BK+dot]
                return true;
              });
        }
        for (int i = 0; i < TM; ++i)
          store1(rec, p, w, kThreads, [&](int tid, int* row, int* col) {
            *row = m0 + (tid / BN) * TM + i;
            *col = n0 + tid % BN;
            return *row < p.m && *col < p.n;
          });
      }
    }
}

// reg_tile_2d_kernel (reg_tile_2d.cu): 128 x 128 x 8 block tile, 256 threads, 8 x 8
// outputs per thread. SASS per k-tile and warp: 4 predicated LDG.E of A (32 rows apart)
// and 4 of B (2 k-rows apart), 8 STS; then per k 2 LDS.128 of B and, over the k-tile, 2
// LDS.128 of each of the thread's 8 A rows (16 + 16); epilogue per output: bounds, LDG.E
// of C if beta, STG.E.
void reg_tile_2d(Recorder& rec, const Problem& p, Variant) {
  constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  constexpr int kThreads = (BM / TM) * (BN / TN), kARowStep = kThreads / BK;
  constexpr int kBRowStep = kThreads / BN;
  check_block(Variant::reg_tile_2d, kThreads);
  const dim3 grid = grid_2d(ceil_div(p.n, BN), ceil_div(p.m, BM), "reg_tile_2d");
  rec.launch(kThreads, (BM * BK + BK * BN) * 4);  // As and Bs
  for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx) {
      const int m0 = static_cast<int>(by) * BM, n0 = static_cast<int>(bx) * BN;
      for (int w = 0; w < kThreads / kWarpSize; ++w) {
        rec.at(std::uint64_t{by} * grid.x + bx, w);
        for (int k0 = 0; k0 < p.k; k0 += BK) {
          for (int off = 0; off < BM; off += kARowStep) {
            warp_op(rec, w, kThreads, 4, false, [&](int tid, std::uint64_t* a) {
              const int row = m0 + tid / BK + off, kc = k0 + tid % BK;
              *a = at(p.A, row, kc, p.lda);
              return row < p.m && kc < p.k;
            });
            warp_shared(rec, w, 4, true, [&](int tid, std::uint64_t* a) {
              *a = 4 * rm_offset(tid / BK + off, tid % BK, BK);
              return true;
            });
          }
          for (int off = 0; off < BK; off += kBRowStep) {
            warp_op(rec, w, kThreads, 4, false, [&](int tid, std::uint64_t* a) {
              const int kr = k0 + tid / BN + off, col = n0 + tid % BN;
              *a = at(p.B, kr, col, p.ldb);
              return kr < p.k && col < p.n;
            });
            warp_shared(rec, w, 4, true, [&](int tid, std::uint64_t* a) {
              *a = 4 * rm_offset(tid / BN + off, tid % BN, BN);
              return true;
            });
          }
          for (int i = 0; i < TM; ++i)
            for (int dot = 0; dot < BK; dot += 4)
              warp_shared(rec, w, 16, false, [&](int tid, std::uint64_t* a) {
                *a = 4 * rm_offset((tid / (BN / TN)) * TM + i, dot, BK);
                return true;
              });
          for (int dot = 0; dot < BK; ++dot)
            for (int j = 0; j < TN; j += 4)
              warp_shared(rec, w, 16, false, [&](int tid, std::uint64_t* a) {
                *a = 4 * rm_offset(dot, (tid % (BN / TN)) * TN + j, BN);
                return true;
              });
        }
        for (int i = 0; i < TM; ++i)
          for (int j = 0; j < TN; ++j)
            store1(rec, p, w, kThreads, [&](int tid, int* row, int* col) {
              *row = m0 + (tid / (BN / TN)) * TM + i;
              *col = n0 + (tid % (BN / TN)) * TN + j;
              return *row < p.m && *col < p.n;
            });
      }
    }
}

// vectorized_kernel (vectorized.cu): reg_tile_2d's tiles with 16-byte accesses where
// legal. SASS per k-tile and warp: load4 of A (LDG.E.128.CONSTANT, or up to 4 LDG.E), 4 STS
// (A transposed), load4 of B, one STS.128; then 4 LDS.128 per k (two of A, two of B);
// epilogue store4 per row and half: one STG.E.128 (after an LDG.E.128 of C if beta) where
// vec_c and 4 columns remain, else store1 of each remaining column.
void vectorized(Recorder& rec, const Problem& p, Variant) {
  constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  constexpr int kThreads = (BM / TM) * (BN / TN);
  check_block(Variant::vectorized, kThreads);
  const dim3 grid = grid_2d(ceil_div(p.n, BN), ceil_div(p.m, BM), "vectorized");
  rec.launch(kThreads, (BM * BK + BK * BN) * 4);  // As and Bs
  for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx) {
      const int m0 = static_cast<int>(by) * BM, n0 = static_cast<int>(bx) * BN;
      for (int w = 0; w < kThreads / kWarpSize; ++w) {
        rec.at(std::uint64_t{by} * grid.x + bx, w);
        for (int k0 = 0; k0 < p.k; k0 += BK) {
          const auto a_slot = [](int tid) { return tile_slot(tid, 0, kThreads, BK); };
          const auto b_slot = [](int tid) { return tile_slot(tid, 0, kThreads, BN); };
          load_tile4(rec, operand_a(p), w, kThreads, p.vec_a, m0, k0, a_slot);
          for (int j = 0; j < 4; ++j)
            warp_shared(rec, w, 4, true, [&](int tid, std::uint64_t* a) {
              const Slot s = a_slot(tid);
              *a = 4 * rm_offset(s.c + j, s.r, BM);  // As[(c + j) * BM + r]
              return true;
            });
          load_tile4(rec, operand_b(p), w, kThreads, p.vec_b, k0, n0, b_slot);
          warp_shared(rec, w, 16, true, [&](int tid, std::uint64_t* a) {
            const Slot s = b_slot(tid);
            *a = 4 * rm_offset(s.r, s.c, BN);
            return true;
          });
          for (int dot = 0; dot < BK; ++dot)
            for (int h = 0; h < 2; ++h) {
              warp_shared(rec, w, 16, false, [&](int tid, std::uint64_t* a) {
                *a = 4 * rm_offset(dot, (tid / (BN / TN)) * TM + 4 * h, BM);
                return true;
              });
              warp_shared(rec, w, 16, false, [&](int tid, std::uint64_t* a) {
                *a = 4 * rm_offset(dot, (tid % (BN / TN)) * TN + 4 * h, BN);
                return true;
              });
            }
        }
        for (int i = 0; i < TM; ++i)
          for (int j = 0; j < TN; j += 4)
            store4(rec, p, w, kThreads, [&](int tid, int* row, int* col) {
              *row = m0 + (tid / (BN / TN)) * TM + i;
              *col = n0 + (tid % (BN / TN)) * TN + j;
            });
      }
    }
}

// warp_tiled_kernel (warp_tiled.cu): 128 x 128 x 16 block tiles on a 2-D grid, 128
// threads as four 64 x 64 warp tiles, each walked in 4 sub-tiles of 64 x 16 (8 x 4 outputs
// per thread each). Per warp and k-tile: 4 load4 of A, each followed by 4 STS into the
// transposed [BK][BM] tile; 4 load4 of B, each followed by one STS.128; then per k, 2
// LDS.128 of A (8 rows) and 4 LDS.128 of B (one per sub-tile). Epilogue: store4 per
// output row and sub-tile.
void warp_tiled(Recorder& rec, const Problem& p, Variant) {
  constexpr int BM = 128, BN = 128, BK = 16, WM = 64, WN = 64, WNITER = 4, TM = 8, TN = 4;
  constexpr int WSUBN = WN / WNITER, kThreads = 32 * (BM / WM) * (BN / WN);
  constexpr int kAVec = BM * BK / 4 / kThreads, kBVec = BK * BN / 4 / kThreads;
  check_block(Variant::warp_tiled, kThreads);
  const dim3 grid = grid_2d(ceil_div(p.n, BN), ceil_div(p.m, BM), "warp_tiled");
  const auto as = [](int word) { return 4ull * word; };
  const auto bs = [](int word) { return 4ull * (BK * BM + word); };
  rec.launch(kThreads, (BM * BK + BK * BN) * 4);  // As and Bs
  for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx) {
      const int m0 = static_cast<int>(by) * BM, n0 = static_cast<int>(bx) * BN;
      for (int w = 0; w < kThreads / kWarpSize; ++w) {
        rec.at(std::uint64_t{by} * grid.x + bx, w);
        const int w_row = w / (BN / WN), w_col = w % (BN / WN);
        const auto t_row = [](int tid) { return (tid % kWarpSize) / (WSUBN / TN); };
        const auto t_col = [](int tid) { return (tid % kWarpSize) % (WSUBN / TN); };
        for (int k0 = 0; k0 < p.k; k0 += BK) {
          for (int v = 0; v < kAVec; ++v) {
            const auto slot = [&](int tid) { return tile_slot(tid, v, kThreads, BK); };
            load_tile4(rec, operand_a(p), w, kThreads, p.vec_a, m0, k0, slot);
            for (int j = 0; j < 4; ++j)
              warp_shared(rec, w, 4, true, [&](int tid, std::uint64_t* a) {
                const Slot s = slot(tid);
                *a = as((s.c + j) * BM + s.r);
                return true;
              });
          }
          for (int v = 0; v < kBVec; ++v) {
            const auto slot = [&](int tid) { return tile_slot(tid, v, kThreads, BN); };
            load_tile4(rec, operand_b(p), w, kThreads, p.vec_b, k0, n0, slot);
            warp_shared(rec, w, 16, true, [&](int tid, std::uint64_t* a) {
              const Slot s = slot(tid);
              *a = bs(s.r * BN + s.c);
              return true;
            });
          }
          for (int dot = 0; dot < BK; ++dot) {
            for (int i = 0; i < TM; i += 4)
              warp_shared(rec, w, 16, false, [&](int tid, std::uint64_t* a) {
                *a = as(dot * BM + w_row * WM + t_row(tid) * TM + i);
                return true;
              });
            for (int wn = 0; wn < WNITER; ++wn)
              warp_shared(rec, w, 16, false, [&](int tid, std::uint64_t* a) {
                *a = bs(dot * BN + w_col * WN + wn * WSUBN + t_col(tid) * TN);
                return true;
              });
          }
        }
        for (int i = 0; i < TM; ++i)
          for (int wn = 0; wn < WNITER; ++wn)
            store4(rec, p, w, kThreads, [&](int tid, int* row, int* col) {
              *row = m0 + w_row * WM + t_row(tid) * TM + i;
              *col = n0 + w_col * WN + wn * WSUBN + t_col(tid) * TN;
            });
      }
    }
}

// The block-tile kernels (block_tile.cuh), one per BlockTile (the launcher's TileShape):
// rungs double_buffered, cp_async_*stage, swizzled and the candidates of best. A 1-D grid
// of BM x BN tiles in grouped order (each tile once); per warp and k-tile:
//  - double_buffered_kernel: load_tile_regs (A_VEC then B_VEC load4), store_tile_smem into
//    stage kt & 1 (4 STS per float4 of A, transposed into the padded or swizzled tile; one
//    STS.128 per float4 of B);
//  - cp_async_kernel: issue_tile_async, which Nsight Compute counts as global loads only
//    (LDGSTS: no shared-store wavefronts; measured on an H100): A by one 4-byte cp.async
//    per element, B by one 16-byte cp.async where vec_b (n % 4 == 0, so a float4 is all
//    in or all out), else 4-byte ones; a zero-byte copy (past an edge) counts nothing;
// then BK fragment reads of RM + RN LDS.128 each (every k of every tile read once, from
// stage kt % STAGES, each stage a multiple of 128 bytes: the stage changes no bank);
// epilogue write_tile, one store4 per output row and quadrant.
void block_tile(Recorder& rec, const Problem& p, Variant v) {
  const TileShape t = launcher_for(v).block_tile;
  const int TM = 4 * t.rm, TN = 4 * t.rn, TX = t.bn / TN, threads = (t.bm / TM) * TX;
  check_block(v, threads);
  const int a_floats = t.bk * (t.swizzled ? t.bm : t.bm + 4), b_floats = t.bk * t.bn;
  const int a_vec = t.bm * t.bk / 4 / threads, b_vec = t.bk * t.bn / 4 / threads;
  const auto a_index = [&](int kk, int m) {
    return t.swizzled ? a_tile_swizzled(kk, m, t.bm, t.bk) : a_tile_padded(kk, m, t.bm);
  };
  // Shared bytes as double_buffered_kernel lays them out: As[2][a_floats], then
  // Bs[2][b_floats]. Every A and B stage is a whole number of 128-byte rows, so neither
  // the order the compiler places them in nor cp_async_kernel's [stage][A, B] layout
  // changes a bank.
  if (a_floats % 32 != 0 || b_floats % 32 != 0)
    throw std::logic_error("gemm predict: a shared tile of " + std::string(to_string(v)) +
                           " is not a whole number of 128-byte rows.");
  const auto as = [&](int stage, int word) { return 4ull * (stage * a_floats + word); };
  const auto bs = [&](int stage, int word) {
    return 4ull * (2 * a_floats + stage * b_floats + word);
  };
  const int tiles_m = static_cast<int>(ceil_div(p.m, t.bm));
  const int tiles_n = static_cast<int>(ceil_div(p.n, t.bn));
  const unsigned blocks = grid_1d(static_cast<long long>(tiles_m) * tiles_n, "block tile").x;
  const int nk = static_cast<int>(ceil_div(p.k, t.bk));
  constexpr int kGroupM = 8;  // BlockTile::GROUP_M
  // Static As[2] and Bs[2] (double_buffered), or the cp.async kernels' dynamic stages.
  const int dynamic = launcher_for(v).dynamic_smem;
  rec.launch(threads, dynamic > 0 ? dynamic : 2 * (a_floats + b_floats) * 4);
  for (unsigned pid = 0; pid < blocks; ++pid) {
    int tm = 0, tn = 0;
    grouped_tile(static_cast<int>(pid), tiles_m, tiles_n, kGroupM, &tm, &tn);
    const int m0 = tm * t.bm, n0 = tn * t.bn;
    for (int w = 0; w < threads / kWarpSize; ++w) {
      rec.at(pid, w);
      const auto coords = [&](int tid, int* ty, int* tx) { warp_grid_coords(tid, TX, ty, tx); };
      for (int kt = 0; kt < nk; ++kt) {
        const int k0 = kt * t.bk, stage = kt & 1;
        for (int i = 0; i < a_vec; ++i) {
          const auto slot = [&](int tid) { return tile_slot(tid, i, threads, t.bk); };
          load_tile4(rec, operand_a(p), w, threads, p.vec_a && !t.cp_async, m0, k0, slot);
          for (int j = 0; j < 4 && !t.cp_async; ++j)
            warp_shared(rec, w, 4, true, [&](int tid, std::uint64_t* a) {
              const Slot s = slot(tid);
              *a = as(stage, a_index(s.c + j, s.r));
              return true;
            });
        }
        for (int i = 0; i < b_vec; ++i) {
          const auto slot = [&](int tid) { return tile_slot(tid, i, threads, t.bn); };
          load_tile4(rec, operand_b(p), w, threads, p.vec_b, k0, n0, slot);
          if (!t.cp_async)
            warp_shared(rec, w, 16, true, [&](int tid, std::uint64_t* a) {
              const Slot s = slot(tid);
              *a = bs(stage, s.r * t.bn + s.c);
              return true;
            });
        }
        for (int kk = 0; kk < t.bk; ++kk) {
          for (int q = 0; q < t.rm; ++q)
            warp_shared(rec, w, 16, false, [&](int tid, std::uint64_t* a) {
              int ty = 0, tx = 0;
              coords(tid, &ty, &tx);
              *a = as(stage, a_index(kk, q * (t.bm / t.rm) + ty * 4));
              return true;
            });
          for (int q = 0; q < t.rn; ++q)
            warp_shared(rec, w, 16, false, [&](int tid, std::uint64_t* a) {
              int ty = 0, tx = 0;
              coords(tid, &ty, &tx);
              *a = bs(stage, kk * t.bn + q * (t.bn / t.rn) + tx * 4);
              return true;
            });
        }
      }
      for (int qm = 0; qm < t.rm; ++qm)
        for (int i = 0; i < 4; ++i)
          for (int qn = 0; qn < t.rn; ++qn)
            store4(rec, p, w, threads, [&](int tid, int* row, int* col) {
              int ty = 0, tx = 0;
              coords(tid, &ty, &tx);
              *row = m0 + qm * (t.bm / t.rm) + ty * 4 + i;
              *col = n0 + qn * (t.bn / t.rn) + tx * 4;
            });
    }
  }
}

// scale_c_kernel (scale.cu), the alpha == 0 path of every rung: 256 threads, blocks loop
// over rows (gridDim.y at most 65535) and threads over columns (gridDim.x at most 64
// blocks). SASS per row and column: STG.E of zero, or LDG.E then STG.E when beta != 0.
// Modeled when each thread has one column per row (n <= 64 x 256): the column loop is
// unrolled with a remainder, so warps whose lanes loop different times would group lanes
// of different iterations into one instruction.
void scale_c(Recorder& rec, const Problem& p) {
  constexpr int kThreads = 256;
  const long long bx = ceil_div(p.n, kThreads) < 64 ? ceil_div(p.n, kThreads) : 64;
  const long long by = p.m < 65535 ? p.m : 65535;
  const dim3 grid = grid_2d(bx, by, "scale");
  if (static_cast<long long>(grid.x) * kThreads < p.n)
    throw std::invalid_argument("gemm predict: the alpha = 0 path is modeled only for n <= " +
                                std::to_string(64 * kThreads) + ".");
  rec.launch(kThreads, 0);
  for (int row = 0; row < p.m; ++row)  // each row once, by block row % gridDim.y
    for (unsigned b = 0; b < grid.x; ++b)
      for (int w = 0; w < kThreads / kWarpSize; ++w) {
        // Row r is block (b, r % gridDim.y)'s pass r / gridDim.y: numbered as a block of its own.
        rec.at(static_cast<std::uint64_t>(row) * grid.x + b, w);
        store1(rec, p, w, kThreads, [&](int tid, int* r, int* col) {
          *r = row;
          *col = static_cast<int>(b) * kThreads + tid;
          return *col < p.n;
        });
      }
}

}  // namespace memhier::gemm::detail::replay
