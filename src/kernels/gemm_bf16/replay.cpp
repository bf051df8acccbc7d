// The replays of the bf16 GEMM kernels (replay.hpp), block by block and warp by warp. Each
// instruction is recorded with the lanes whose checks pass; an instruction with no lane on
// counts nothing, whether the SASS predicates it or branches around it (kernels/predict.hpp).
// What the SASS (cuobjdump -sass, sm_90, nvcc 13.0) executes, per kernel:
//  - load8 (common.cuh): LDG.E.128.CONSTANT for the lanes with vec and 8 elements inside,
//    else 8 predicated LDG.E.U16.CONSTANT, element i for the lanes with i < avail.
//  - store1: LDG.E of C when beta != 0 (a branch on beta), then STG.E.
//  - ldmatrix_x4 / ldmatrix_x4_trans: LDSM.16.M88.4 / LDSM.16.MT88.4, 4 matrices each.
//  - cp_async_cg_16_zfill: LDGSTS.E.BYPASS.128.ZFILL, which Nsight Compute counts as a global
//    load only (no shared-store wavefronts; measured for the SGEMM ladder's cp.async rungs);
//    a zero-byte copy (past an edge) counts nothing.
//  - wmma::load_matrix_sync does NOT compile to LDSM here: its PTX (wmma.load.{a,b}) names
//    no state space, so ptxas reads each 16x16 fragment by 4 generic LD.E of 32 bits, from
//    shared memory too (wmma.store.d names .shared: STS); lane l reads rows l / 4 and
//    l / 4 + 8, columns 2 (l % 4) and 2 (l % 4) + 8, and B's row-major fragments are then
//    transposed in registers by MOVM.16.MT88. They are recorded as 4-byte loads of the
//    memory they reach: shared loads from the tiles of rung 2 and rung 1's staging, global
//    loads where rung 1 reads A or B directly.
//  - wmma::store_matrix_sync of the fp32 accumulator to shared memory: 4 STS.64 (lane l: row
//    l / 4 and l / 4 + 8, columns 2 (l % 4) and 2 (l % 4) + 8).
#include "kernels/gemm_bf16/replay.hpp"

#include <stdexcept>
#include <string>

#include "kernels/gemm/index.cuh"
#include "kernels/gemm_bf16/layout.cuh"

namespace memhier::gemm_bf16::detail::replay {
namespace {

using kernels::predict::block_warp_access;
using kernels::predict::kAllLanes;
using kernels::predict::warp_access;
using model::kWarpSize;

/// Byte address of element (row, col) of the bf16 matrix at `base` (leading dimension ld).
std::uint64_t at_bf16(std::uint64_t base, int row, int col, int ld) {
  return base + 2 * static_cast<std::uint64_t>(row) * static_cast<std::uint64_t>(ld) +
         2 * static_cast<std::uint64_t>(col);
}
/// Byte address of C(row, col) (fp32).
std::uint64_t at_c(const Problem& p, int row, int col) {
  return p.C + 4 * static_cast<std::uint64_t>(row) * static_cast<std::uint64_t>(p.ldc) +
         4 * static_cast<std::uint64_t>(col);
}

/// The block size the rung's launcher reports, checked against the one replayed here.
void check_block(Variant v, int threads) {
  if (launcher_for(v).block_threads != threads)
    throw std::logic_error(std::string("gemm_bf16 predict: ") + to_string(v) +
                           " no longer runs the block size its prediction replays.");
}

/// One global instruction of warp `w` of a block of `threads`: rule(tid, &address).
template <class Rule>
void global_op(Recorder& rec, int w, int threads, int width, bool store, Rule rule) {
  rec.global(block_warp_access(w, threads, width, store, rule));
}
/// One shared-memory instruction of warp `w`, likewise.
template <class Rule>
void shared_op(Recorder& rec, int w, int threads, int width, bool store, Rule rule) {
  rec.shared(block_warp_access(w, threads, width, store, rule));
}
/// One ldmatrix.x4 of warp `w` (every lane gives a row): row(lane) is its byte address.
template <class Row>
void ldmatrix4(Recorder& rec, Row row) {
  rec.ldmatrix(warp_access(kAllLanes, 16, false,
                           [&](int lane, std::uint64_t* a) {
                             *a = row(lane);
                             return true;
                           }),
               4);
}

/// load8 (common.cuh) for the lanes of warp `w`: rule(tid, &avail) gives the address of the
/// thread's 8 elements and how many are inside (<= 0: none).
template <class Rule>
void load8(Recorder& rec, int w, int threads, bool vec, Rule rule) {
  global_op(rec, w, threads, 16, false, [&](int tid, std::uint64_t* a) {
    int avail = 0;
    *a = rule(tid, &avail);
    return vec && avail >= 8;
  });
  for (int i = 0; i < 8; ++i)
    global_op(rec, w, threads, 2, false, [&](int tid, std::uint64_t* a) {
      int avail = 0;
      *a = rule(tid, &avail) + 2u * static_cast<unsigned>(i);
      return !(vec && avail >= 8) && i < avail;
    });
}

/// store1 (common.cuh) at C(row, col) for the lanes `on(tid, &row, &col)`.
template <class On>
void store1(Recorder& rec, const Problem& p, int w, int threads, On on) {
  for (int pass = p.beta ? 0 : 1; pass < 2; ++pass)
    global_op(rec, w, threads, 4, pass == 1, [&](int tid, std::uint64_t* a) {
      int row = 0, col = 0;
      if (!on(tid, &row, &col)) return false;
      *a = at_c(p, row, col);
      return true;
    });
}

/// The 32-bit word lane `lane` reads (or writes, for the accumulator) of register q of a
/// 16x16 WMMA fragment (see the file comment): its row and column in the fragment.
void wmma_word(int lane, int q, int* row, int* col) {
  *row = (lane >> 2) + 8 * (q & 1);
  *col = 2 * (lane & 3) + 8 * (q >> 1);
}

/// The 4 LD.E of a 16x16 bf16 fragment whose element (r, c) is at addr(r, c), recorded as
/// shared or global loads.
template <class Addr>
void wmma_load(Recorder& rec, int w, int threads, bool shared, Addr addr) {
  for (int q = 0; q < 4; ++q) {
    const auto rule = [&](int tid, std::uint64_t* a) {
      int r = 0, c = 0;
      wmma_word(tid % kWarpSize, q, &r, &c);
      *a = addr(r, c);
      return true;
    };
    if (shared)
      shared_op(rec, w, threads, 4, false, rule);
    else
      global_op(rec, w, threads, 4, false, rule);
  }
}

/// The 4 STS.64 of a 16x16 fp32 accumulator stored row-major (ld 16) at byte `base`.
void wmma_store_acc(Recorder& rec, int w, int threads, std::uint64_t base) {
  for (int q = 0; q < 4; ++q)
    shared_op(rec, w, threads, 8, true, [&](int tid, std::uint64_t* a) {
      int r = 0, c = 0;
      wmma_word(tid % kWarpSize, q, &r, &c);
      *a = base + 4u * static_cast<unsigned>(r * 16 + c);
      return true;
    });
}

}  // namespace

// wmma_global_kernel (wmma_global.cu): 2 x 2 warps of 16x16 outputs; a warp wholly outside
// C exits. Per k16 step, A then B: 4 LD.E straight from global memory when the fragment is
// inside and the layout allows, else stage16 (8 LDG.E.U16, one STS.128) and 4 LD.E of the
// warp's staging tile. Epilogue: 4 STS.64, then for the lanes inside C a loop over the
// lane's (up to 8) columns: LDS, LDG.E of C if beta, STG.E.
void wmma_global(Recorder& rec, const Problem& p, Variant v) {
  constexpr int kThreads = kWmmaGlobalWarps * kWarpSize;
  check_block(v, kThreads);
  const dim3 grid =
      grid_2d(gemm::detail::ceil_div(p.n, 32), gemm::detail::ceil_div(p.m, 32), "wmma_global");
  // Static shared memory: sa[4][256] and sb[4][256] bf16, sc[4][256] float (each a whole
  // number of 128-byte rows: where the compiler puts them changes no bank).
  constexpr std::uint64_t kSa = 0, kSb = kSa + 4 * 256 * 2, kSc = kSb + 4 * 256 * 2;
  rec.launch(kThreads, static_cast<int>(kSc + 4 * 256 * 4));
  for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx)
      for (int w = 0; w < kWmmaGlobalWarps; ++w) {
        rec.at(std::uint64_t{by} * grid.x + bx, w);
        const int row0 = (static_cast<int>(by) * 2 + w / 2) * 16;
        const int col0 = (static_cast<int>(bx) * 2 + w % 2) * 16;
        if (row0 >= p.m || col0 >= p.n) continue;
        const bool rows_in = row0 + 16 <= p.m, cols_in = col0 + 16 <= p.n;
        const auto lane_of = [](int tid, int* r, int* c) { half_row_lane(tid % kWarpSize, r, c); };
        for (int k0 = 0; k0 < p.k; k0 += 16) {
          const bool k_in = k0 + 16 <= p.k;
          for (int op = 0; op < 2; ++op) {  // A, then B
            const bool a = op == 0;
            const std::uint64_t base = a ? p.A : p.B;
            const int ld = a ? p.lda : p.ldb, r0 = a ? row0 : k0, c0 = a ? k0 : col0;
            if ((a ? p.wmma_a : p.wmma_b) && (a ? rows_in : cols_in) && k_in) {
              wmma_load(rec, w, kThreads, false,
                        [&](int r, int c) { return at_bf16(base, r0 + r, c0 + c, ld); });
              continue;
            }
            const int rows = a ? p.m : p.k, cols = a ? p.k : p.n;
            load8(rec, w, kThreads, false, [&](int tid, int* avail) {
              int r = 0, c = 0;
              lane_of(tid, &r, &c);
              *avail = r0 + r < rows ? cols - (c0 + c) : 0;
              return at_bf16(base, r0 + r, c0 + c, ld);
            });
            const std::uint64_t tile = (a ? kSa : kSb) + 512u * static_cast<unsigned>(w);
            shared_op(rec, w, kThreads, 16, true, [&](int tid, std::uint64_t* addr) {
              int r = 0, c = 0;
              lane_of(tid, &r, &c);
              *addr = tile + 2u * static_cast<unsigned>(r * 16 + c);
              return true;
            });
            wmma_load(rec, w, kThreads, true,
                      [&](int r, int c) { return tile + 2u * static_cast<unsigned>(r * 16 + c); });
          }
        }
        const std::uint64_t cs = kSc + 1024u * static_cast<unsigned>(w);
        wmma_store_acc(rec, w, kThreads, cs);
        for (int i = 0; i < 8; ++i) {
          const auto on = [&](int tid, int* row, int* col) {
            int r = 0, c = 0;
            lane_of(tid, &r, &c);
            *row = row0 + r;
            *col = col0 + c + i;
            return *row < p.m && *col < p.n;
          };
          shared_op(rec, w, kThreads, 4, false, [&](int tid, std::uint64_t* a) {
            int r = 0, c = 0, row = 0, col = 0;
            lane_of(tid, &r, &c);
            *a = cs + 4u * static_cast<unsigned>(r * 16 + c + i);
            return on(tid, &row, &col);
          });
          store1(rec, p, w, kThreads, on);
        }
      }
}

// wmma_smem_kernel (wmma_smem.cu): 64x64x32 block tiles, 4 warps of 2 x 2 fragments. Per
// k-tile and warp: 2 x (load8 of A, load8 of B, STS.128 of each); per k16 step 4 LD.E of
// each of the warp's 2 A and 2 B fragments. Epilogue per fragment: 4 STS.64 into the warp's
// buffer, then each lane's up to 8 columns (cnt = min(8, n - col)) as the SASS's loop
// unrolled by 4: lanes with cnt == 8 read two LDS.128 and store 8 outputs; lanes with
// 4 <= cnt < 8 one LDS.128 and 4 outputs; then lanes with cnt % 4 != 0 one LDS.128 at
// column cnt - cnt % 4 and cnt % 4 outputs (store1 each).
void wmma_smem(Recorder& rec, const Problem& p, Variant v) {
  using T = WmmaSmemTile;
  check_block(v, T::THREADS);
  const dim3 grid =
      grid_2d(gemm::detail::ceil_div(p.n, T::BN), gemm::detail::ceil_div(p.m, T::BM), "wmma_smem");
  // As, Bs, then Cs[4][256] floats, as the compiler lays them out (each a whole number of
  // 128-byte rows).
  constexpr std::uint64_t kAs = 0, kBs = kAs + 2 * T::BM * T::LDA;
  constexpr std::uint64_t kCs = kBs + 2 * T::BK * T::LDB;
  rec.launch(T::THREADS, static_cast<int>(kCs + 4 * 256 * 4));
  for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx)
      for (int w = 0; w < T::THREADS / kWarpSize; ++w) {
        rec.at(std::uint64_t{by} * grid.x + bx, w);
        const int m0 = static_cast<int>(by) * T::BM, n0 = static_cast<int>(bx) * T::BN;
        const int wm = (w / 2) * 32, wn = (w % 2) * 32;
        for (int k0 = 0; k0 < p.k; k0 += T::BK) {
          for (int i = 0; i < 2; ++i) {
            const auto a_chunk = [&](int tid, int* r, int* c) {
              staging_chunk(tid + i * T::THREADS, T::BK, r, c);
            };
            const auto b_chunk = [&](int tid, int* r, int* c) {
              staging_chunk(tid + i * T::THREADS, T::BN, r, c);
            };
            load8(rec, w, T::THREADS, p.vec_a, [&](int tid, int* avail) {
              int r = 0, c = 0;
              a_chunk(tid, &r, &c);
              *avail = m0 + r < p.m ? p.k - (k0 + c) : 0;
              return at_bf16(p.A, m0 + r, k0 + c, p.lda);
            });
            load8(rec, w, T::THREADS, p.vec_b, [&](int tid, int* avail) {
              int r = 0, c = 0;
              b_chunk(tid, &r, &c);
              *avail = k0 + r < p.k ? p.n - (n0 + c) : 0;
              return at_bf16(p.B, k0 + r, n0 + c, p.ldb);
            });
            shared_op(rec, w, T::THREADS, 16, true, [&](int tid, std::uint64_t* a) {
              int r = 0, c = 0;
              a_chunk(tid, &r, &c);
              *a = kAs + 2u * static_cast<unsigned>(r * T::LDA + c);
              return true;
            });
            shared_op(rec, w, T::THREADS, 16, true, [&](int tid, std::uint64_t* a) {
              int r = 0, c = 0;
              b_chunk(tid, &r, &c);
              *a = kBs + 2u * static_cast<unsigned>(r * T::LDB + c);
              return true;
            });
          }
          for (int kk = 0; kk < T::BK; kk += 16)
            for (int f = 0; f < 2; ++f) {
              wmma_load(rec, w, T::THREADS, true, [&](int r, int c) {
                return kAs + 2u * static_cast<unsigned>((wm + 16 * f + r) * T::LDA + kk + c);
              });
              wmma_load(rec, w, T::THREADS, true, [&](int r, int c) {
                return kBs + 2u * static_cast<unsigned>((kk + r) * T::LDB + wn + 16 * f + c);
              });
            }
        }
        const std::uint64_t cs = kCs + 1024u * static_cast<unsigned>(w);
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j) {
            wmma_store_acc(rec, w, T::THREADS, cs);
            // Thread tid's first output and how many of its 8 columns are inside C (0: none).
            const auto first = [&](int tid, int* r, int* c, int* row, int* col) {
              half_row_lane(tid % kWarpSize, r, c);
              *row = m0 + wm + 16 * i + *r;
              *col = n0 + wn + 16 * j + *c;
              if (*row >= p.m || *col >= p.n) return 0;
              return p.n - *col < 8 ? p.n - *col : 8;
            };
            // One LDS.128 at column `from` and the stores of columns from .. from + count - 1
            // for the lanes whose cnt passes `take`.
            const auto piece = [&](auto take, auto from_of, auto count_of) {
              shared_op(rec, w, T::THREADS, 16, false, [&](int tid, std::uint64_t* a) {
                int r = 0, c = 0, row = 0, col = 0;
                const int cnt = first(tid, &r, &c, &row, &col);
                *a = cs + 4u * static_cast<unsigned>(r * 16 + c + from_of(cnt));
                return take(cnt);
              });
              for (int e = 0; e < 4; ++e)
                store1(rec, p, w, T::THREADS, [&](int tid, int* row, int* col) {
                  int r = 0, c = 0;
                  const int cnt = first(tid, &r, &c, row, col);
                  *col += from_of(cnt) + e;
                  return take(cnt) && e < count_of(cnt);
                });
            };
            const auto four = [](int) { return 4; };
            piece([](int cnt) { return cnt == 8; }, [](int) { return 0; }, four);
            piece([](int cnt) { return cnt == 8; }, [](int) { return 4; }, four);
            piece([](int cnt) { return cnt >= 4 && cnt < 8; }, [](int) { return 0; }, four);
            piece([](int cnt) { return cnt % 4 != 0; }, [](int cnt) { return cnt - cnt % 4; },
                  [](int cnt) { return cnt % 4; });
          }
      }
}

namespace {

// mma_kernel<L, STAGES> (mma_tile.cuh): 128x128x32 block tiles on a 2-D grid walked in
// grouped order, 8 warps of 64x32. stage_tile per k-tile and warp: 2 x (A then B), each by
// one LDGSTS when STAGES > 1 and the operand allows 16-byte accesses, else load8 and one
// STS.128; multiply_tile: per k16 step 4 LDSM.x4 of A and 2 LDSM.x4.trans of B. STAGES > 1
// stages tiles 0 .. STAGES-2 first, then tile kt + STAGES - 1 before multiplying tile kt.
// Epilogue: per m16n8 fragment two store2 (rows g and g + 8), each a store1 per column
// inside C.
template <Layout L, int STAGES>
void mma(Recorder& rec, const Problem& p, Variant v) {
  using T = MmaTile;
  check_block(v, T::THREADS);
  constexpr int kA = tile_elems(L, T::BM, T::BK);
  constexpr int kStage = kA + tile_elems(L, T::BK, T::BN);
  const int tiles_n = static_cast<int>(gemm::detail::ceil_div(p.n, T::BN));
  const int tiles_m = static_cast<int>(gemm::detail::ceil_div(p.m, T::BM));
  const dim3 grid = grid_2d(tiles_n, tiles_m, to_string(v));
  const int nk = static_cast<int>(gemm::detail::ceil_div(p.k, T::BK));
  rec.launch(T::THREADS, STAGES * kStage * 2);
  const bool async = STAGES > 1;
  for (unsigned pid = 0; pid < grid.x * grid.y; ++pid) {
    int tm = 0, tn = 0;
    gemm::detail::grouped_tile(static_cast<int>(pid), tiles_m, tiles_n, 8, &tm, &tn);
    const int m0 = tm * T::BM, n0 = tn * T::BN;
    for (int w = 0; w < T::THREADS / kWarpSize; ++w) {
      rec.at(pid, w);
      const int wm = (w / T::WARPS_N) * T::WM, wn = (w % T::WARPS_N) * T::WN;
      const auto stage_tile = [&](int kt, int stage) {
        const int k0 = kt * T::BK;
        const std::uint64_t as = 2ull * stage * kStage, bs = as + 2ull * kA;
        for (int i = 0; i < 2; ++i)
          for (int op = 0; op < 2; ++op) {  // A, then B
            const bool a = op == 0;
            const int cols = a ? T::BK : T::BN;
            // Thread tid's chunk: tile (r, c), its source and the elements inside.
            const auto chunk = [&](int tid, int* r, int* c, int* avail) {
              staging_chunk(tid + i * T::THREADS, cols, r, c);
              if (a) {
                *avail = m0 + *r < p.m ? p.k - (k0 + *c) : 0;
                return at_bf16(p.A, m0 + *r, k0 + *c, p.lda);
              }
              *avail = k0 + *r < p.k ? p.n - (n0 + *c) : 0;
              return at_bf16(p.B, k0 + *r, n0 + *c, p.ldb);
            };
            const bool vec = a ? p.vec_a : p.vec_b;
            if (async && vec) {  // cp.async: a global load of the lanes with data to copy
              global_op(rec, w, T::THREADS, 16, false, [&](int tid, std::uint64_t* addr) {
                int r = 0, c = 0, avail = 0;
                *addr = chunk(tid, &r, &c, &avail);
                return avail > 0;
              });
              continue;
            }
            load8(rec, w, T::THREADS, vec, [&](int tid, int* avail) {
              int r = 0, c = 0;
              return chunk(tid, &r, &c, avail);
            });
            shared_op(rec, w, T::THREADS, 16, true, [&](int tid, std::uint64_t* addr) {
              int r = 0, c = 0, avail = 0;
              chunk(tid, &r, &c, &avail);
              *addr = (a ? as : bs) + 2u * static_cast<unsigned>(tile_offset(L, r, c, cols));
              return true;
            });
          }
      };
      const auto multiply_tile = [&](int stage) {
        const std::uint64_t as = 2ull * stage * kStage, bs = as + 2ull * kA;
        for (int kk = 0; kk < T::BK; kk += 16) {
          for (int i = 0; i < T::FM; ++i)
            ldmatrix4(rec, [&](int lane) {
              int r = 0, c = 0;
              a_ldmatrix_lane(lane, &r, &c);
              return as +
                     2u * static_cast<unsigned>(tile_offset(L, wm + 16 * i + r, kk + c, T::BK));
            });
          for (int j = 0; j < T::FN / 2; ++j)
            ldmatrix4(rec, [&](int lane) {
              int r = 0, c = 0;
              b_ldmatrix_lane(lane, &r, &c);
              return bs +
                     2u * static_cast<unsigned>(tile_offset(L, kk + r, wn + 16 * j + c, T::BN));
            });
        }
      };
      if (STAGES == 1) {
        for (int kt = 0; kt < nk; ++kt) {
          stage_tile(kt, 0);
          multiply_tile(0);
        }
      } else {
        for (int s = 0; s < STAGES - 1 && s < nk; ++s) stage_tile(s, s);
        for (int kt = 0; kt < nk; ++kt) {
          const int next = kt + STAGES - 1;
          if (next < nk) stage_tile(next, next % STAGES);
          multiply_tile(kt % STAGES);
        }
      }
      for (int i = 0; i < T::FM; ++i)
        for (int j = 0; j < T::FN; ++j)
          for (int half = 0; half < 2; ++half)
            for (int e = 0; e < 2; ++e)
              store1(rec, p, w, T::THREADS, [&](int tid, int* row, int* col) {
                const int lane = tid % kWarpSize;
                *row = m0 + wm + 16 * i + (lane >> 2) + 8 * half;
                *col = n0 + wn + 8 * j + 2 * (lane & 3) + e;
                return *row < p.m && *col < p.n;
              });
    }
  }
}

}  // namespace

void mma_padded(Recorder& rec, const Problem& p, Variant v) {
  mma<Layout::padded, 1>(rec, p, v);
}
void mma_swizzled(Recorder& rec, const Problem& p, Variant v) {
  mma<Layout::swizzled, 1>(rec, p, v);
}
void mma_pipelined(Recorder& rec, const Problem& p, Variant v) {
  mma<Layout::swizzled, 4>(rec, p, v);
}

// scale_c_kernel (scale.cu): a grid-stride loop over the m x n outputs, 256 threads a block,
// at most 65,536 blocks. SASS per iteration: STG.E of zero, or LDG.E then STG.E when
// beta != 0; the loop is not unrolled, so iteration j of a warp is one instruction for the
// lanes that still have an output.
void scale_c(Recorder& rec, const Problem& p) {
  constexpr int kThreads = 256;
  const long long total = static_cast<long long>(p.m) * p.n;
  const long long blocks =
      (total + kThreads - 1) / kThreads < 65536 ? (total + kThreads - 1) / kThreads : 65536;
  const long long stride = blocks * kThreads;
  rec.launch(kThreads, 0);
  for (long long b = 0; b < blocks; ++b)
    for (int w = 0; w < kThreads / kWarpSize; ++w) {
      rec.at(static_cast<std::uint64_t>(b), w);
      const long long first = b * kThreads + w * kWarpSize;
      for (long long base = first; base < total; base += stride)
        for (int pass = p.beta ? 0 : 1; pass < 2; ++pass)
          global_op(rec, w, kThreads, 4, pass == 1, [&](int tid, std::uint64_t* a) {
            const long long i = base + tid % kWarpSize;
            *a = at_c(p, static_cast<int>(i / p.n), static_cast<int>(i % p.n));
            return i < total;
          });
    }
}

}  // namespace memhier::gemm_bf16::detail::replay
