// The staged candidates: an operand whose rows double_buffered cannot read with 16-byte loads
// (leading dimension not a multiple of 4 floats, or a base off 16 bytes: four scalar loads
// each, 0.81x cuBLAS at 4099x4097x4093 on the H200) is first copied into staging rows padded
// to 32 floats (128 bytes), then a 16-byte kernel runs on the copies: double_buffered
// (`staged`) or the tail split of the 128x256 tile (`staged_tailsplit`, for shapes whose last
// wave is part full). The copy, about twice the operand's bytes at the copy rate, counts in
// the candidate's time; an operand already readable is read in place, and the candidate
// declines when neither needs the copy.
#include <stdexcept>

#include "repitch.hpp"
#include "variants.hpp"

namespace memhier::gemm::detail {
namespace {

constexpr int kRow = 32;  // floats: 128 bytes

int padded(int x) {
  return (x + kRow - 1) / kRow * kRow;
}

Staging<float>& staging(const Params& p, cudaStream_t s) {
  if (p.vec_a && p.vec_b)
    throw std::invalid_argument(
        "A and B already have 16-byte rows and bases (leading dimensions multiples of 4 "
        "floats): the candidates without a copy read them in place");
  return staging_for<float>(p.vec_a ? 0 : static_cast<std::size_t>(p.m) * padded(p.k),
                            p.vec_b ? 0 : static_cast<std::size_t>(p.k) * padded(p.n), s, "staged");
}

void prepare(const Params& p, cudaStream_t s) {
  staging(p, s);
}

/// The copies, then `inner` on them.
template <Launcher (*Inner)()>
void launch(const Params& p, cudaStream_t s) {
  Staging<float>& st = staging(p, s);
  const bool copy_a = !p.vec_a, copy_b = !p.vec_b;
  const int lda = padded(p.k), ldb = padded(p.n);
  Repitch ra, rb;  // a float is two units of the copy
  if (copy_a) ra = {p.A, st.a.data(), p.m, 2 * p.k, 2 * p.lda, 2 * lda};
  if (copy_b) rb = {p.B, st.b.data(), p.k, 2 * p.n, 2 * p.ldb, 2 * ldb};
  launch_repitch(ra, rb, s);
  Params q = p;
  if (copy_a) {
    q.A = st.a.data();
    q.lda = lda;
    q.vec_a = true;
  }
  if (copy_b) {
    q.B = st.b.data();
    q.ldb = ldb;
    q.vec_b = true;
  }
  Inner().launch(q, s);
}

template <Launcher (*Inner)()>
Launcher staged_over() {
  Launcher l = Inner();
  l.launch = launch<Inner>;
  l.prepare = prepare;
  return l;
}

}  // namespace

Launcher staged_launcher() {
  return staged_over<double_buffered_launcher>();
}

Launcher staged_tailsplit_launcher() {
  return staged_over<cfg_tailsplit_128x256x8_8x16_launcher>();
}

Launcher staged_edges_launcher() {
  Launcher l = staged_over<cfg_edges_128x256x8_8x16_launcher>();
  // Declines before copying anything where the edges' candidate would.
  l.launch = [](const Params& p, cudaStream_t s) {
    edges_check("staged_edges", p, "staged_tailsplit");
    launch<cfg_edges_128x256x8_8x16_launcher>(p, s);
  };
  return l;
}

}  // namespace memhier::gemm::detail
