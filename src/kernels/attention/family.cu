// The attention ladder's registration: its variants in rung order, its shapes, and the Case
// that owns the bf16 inputs, the float64 reference with each element's bound, and the
// verification at one shape.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudnn_sdpa.hpp"
#include "index.cuh"
#include "kernels/attention/stream.hpp"
#include "kernels/families.hpp"
#include "memhier/claims/ladders.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/hash.cuh"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/attention.hpp"
#include "variants.hpp"

namespace memhier::kernels {
namespace {

using attention::Shape;
namespace ad = attention::detail;

constexpr double kU = core::kFp32Unit;
/// cuDNN's fused attention as a line of its own (`--variant cudnn`), after `best`; the same
/// graph is the vendor baseline every rung is paired with.
constexpr const char* kCudnnName = "cudnn";
constexpr int kCudnnRung = 99;
/// The CPU float64 reference (tests of the device one) up to this many multiply-adds.
constexpr double kCpuReferenceLimit = double(1 << 27);

// Error bounds. Inputs are bf16 (exact in float64); the kernels compute the scores in fp32
// (CUDA-core sums or tensor-core blocks of 16 truncated), exponentiate in fp32, round P to
// bf16 for the tensor-core P V (rungs 3-7), accumulate O in fp32 and round it to bf16. Per
// element, with S_id = sum_j p_ij |v_jd| / l_i (>= |O_id|):
//   - a score error e_ij scales p_ij by exp(e_ij): O moves by at most 2.1 E_i S_id, where
//     E_i = (head_dim + 4) u scale max_j sum_d |q_id k_jd| (any order of the fp32 sum, the
//     scale's rounding) + 4 u (m_i - min_j s_ij) (the exponent's argument rounded);
//   - P rounded to bf16 (unit roundoff 2^-8: 8 significant bits) while l sums the unrounded
//     p: 2^-8 S_id;
//   - O rounded to bf16: 2^-8 |O_id| <= 2^-8 S_id;
//   - O and l accumulated over seq_k terms in fp32 with online rescaling: 2 seq_k u S_id;
//   - exp2 within 2 ulp, the division, the softmax ladder's own bound in rung 1: 2^-18 S_id.
// A row no key is visible to (causal, seq_q > seq_k) must be exactly 0.
constexpr double kPRound = 0x1p-8, kORound = 0x1p-8, kSmall = 0x1p-18;

/// Uniform [-1, 1) values from `seed`, rounded to bf16: the hash of each index, in one pass.
__global__ void fill_bf16_kernel(__nv_bfloat16* out, std::size_t n, std::uint32_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const std::uint32_t h = core::hash32(static_cast<std::uint32_t>(i) ^
                                         core::hash32(seed + static_cast<std::uint32_t>(i >> 32)));
    out[i] = __float2bfloat16_rn(-1.f + 2.f * static_cast<float>(h >> 8) * 0x1p-24f);
  }
}

constexpr int kRefThreads = 128, kRefRows = 8, kRefKeys = 128;

/// The float64 reference, a block per 8 queries of one head, 128 keys at a time: each thread
/// scores one key (and its sum |q k|), a warp per two rows updates the running max, sum and
/// error terms and writes p, then thread d < head_dim accumulates O and S = sum p |v| of
/// column d. Writes ref (O's layout) and each element's bound.
__global__ void __launch_bounds__(kRefThreads)
    reference_kernel(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                     const __nv_bfloat16* __restrict__ v, Shape s, double* __restrict__ ref,
                     float* __restrict__ bound) {
  __shared__ double qs[kRefRows][128];
  __shared__ double ps[kRefRows][kRefKeys];
  __shared__ double as[kRefRows][kRefKeys];
  __shared__ double alpha[kRefRows];
  const int D = s.head_dim, tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int b = blockIdx.z, h = blockIdx.y, i0 = blockIdx.x * kRefRows;
  const int kvh = ad::kv_head_of(h, s.heads, s.kv_heads);
  for (int c = tid; c < kRefRows * D; c += kRefThreads) {
    const int r = c / D, d = c % D;
    qs[r][d] = i0 + r < s.seq_q
                   ? static_cast<double>(__bfloat162float(
                         q[ad::row_offset(b, i0 + r, h, s.seq_q, s.heads, D) + d]))
                   : 0.0;
  }
  // Per row (kept by its warp's lanes, identical in each): running max, sum, max sum|q k|,
  // min score. Per column (thread d): O and S of each row.
  double m[2], l[2], amax[2], smin[2];
  for (int r = 0; r < 2; ++r) m[r] = -INFINITY, l[r] = 0, amax[r] = 0, smin[r] = INFINITY;
  double o[kRefRows] = {}, sa[kRefRows] = {};
  for (int n0 = 0; n0 < s.seq_k; n0 += kRefKeys) {
    __syncthreads();  // Q has landed; the previous chunk's p is consumed
    const int j = n0 + tid;
    if (j < s.seq_k) {
      const __nv_bfloat16* kj = k + ad::row_offset(b, j, kvh, s.seq_k, s.kv_heads, D);
      double dot[kRefRows] = {}, sabs[kRefRows] = {};
      for (int d = 0; d < D; ++d) {
        const double kd = static_cast<double>(__bfloat162float(kj[d]));
        for (int r = 0; r < kRefRows; ++r) dot[r] += qs[r][d] * kd, sabs[r] += fabs(qs[r][d] * kd);
      }
      for (int r = 0; r < kRefRows; ++r) {
        const bool seen = j < ad::visible_keys(i0 + r, s.seq_q, s.seq_k, s.causal);
        ps[r][tid] = seen ? s.scale * dot[r] : -INFINITY;
        as[r][tid] = seen ? s.scale * sabs[r] : 0.0;
      }
    } else {
      for (int r = 0; r < kRefRows; ++r) ps[r][tid] = -INFINITY, as[r][tid] = 0.0;
    }
    __syncthreads();
    for (int rr = 0; rr < 2; ++rr) {
      const int r = warp * 2 + rr;
      double cmax = -INFINITY, cmin = INFINITY, camax = 0;
      for (int c = lane; c < kRefKeys; c += 32) {
        const double x = ps[r][c];
        cmax = fmax(cmax, x);
        if (x != -INFINITY) cmin = fmin(cmin, x);
        camax = fmax(camax, as[r][c]);
      }
      for (int off = 16; off > 0; off /= 2) {
        cmax = fmax(cmax, __shfl_xor_sync(0xffffffffu, cmax, off));
        cmin = fmin(cmin, __shfl_xor_sync(0xffffffffu, cmin, off));
        camax = fmax(camax, __shfl_xor_sync(0xffffffffu, camax, off));
      }
      const double m_new = fmax(m[rr], cmax);
      const double mu = m_new == -INFINITY ? 0.0 : m_new;
      const double a = exp(m[rr] - mu);
      double sum = 0;
      for (int c = lane; c < kRefKeys; c += 32) {
        const double pc = exp(ps[r][c] - mu);
        ps[r][c] = pc;
        sum += pc;
      }
      for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
      l[rr] = l[rr] * a + sum;
      m[rr] = m_new;
      smin[rr] = fmin(smin[rr], cmin);
      amax[rr] = fmax(amax[rr], camax);
      if (lane == 0) alpha[r] = a;
    }
    __syncthreads();
    if (tid < D) {
      const int n = min(kRefKeys, s.seq_k - n0);
      for (int r = 0; r < kRefRows; ++r) o[r] *= alpha[r], sa[r] *= alpha[r];
      for (int c = 0; c < n; ++c) {
        const double vd = static_cast<double>(
            __bfloat162float(v[ad::row_offset(b, n0 + c, kvh, s.seq_k, s.kv_heads, D) + tid]));
        for (int r = 0; r < kRefRows; ++r) o[r] += ps[r][c] * vd, sa[r] += ps[r][c] * fabs(vd);
      }
    }
  }
  // Each row's l and error factor, through shared memory to the column threads.
  __syncthreads();
  if (lane == 0)
    for (int rr = 0; rr < 2; ++rr) {
      const int r = warp * 2 + rr;
      const double e = (D + 4) * kU * amax[rr] + 4 * kU * (m[rr] - smin[rr]);
      ps[r][0] = l[rr];
      ps[r][1] = kPRound + kORound + 2.1 * e + 2.0 * s.seq_k * kU + kSmall;
    }
  __syncthreads();
  if (tid < D)
    for (int r = 0; r < kRefRows; ++r) {
      if (i0 + r >= s.seq_q) break;
      const std::size_t at = ad::row_offset(b, i0 + r, h, s.seq_q, s.heads, D) + tid;
      const double lr = ps[r][0];
      ref[at] = lr > 0 ? o[r] / lr : 0.0;
      bound[at] = lr > 0 ? static_cast<float>(ps[r][1] * sa[r] / lr) : 0.f;
    }
}

/// A problem's text: "batch x heads x kv_heads x seq_q x seq_k x head_dim", then ":causal"
/// and/or ":<scale>" (default 1/sqrt(head_dim)).
struct ParsedShape {
  Shape s;
  std::string text;
};

ParsedShape parse_attention_shape(const std::string& shape) {
  const std::size_t colon = shape.find(':');
  const std::vector<std::int64_t> d =
      registry::parse_shape(shape.substr(0, colon), 6, "attention", INFINITY);
  for (std::int64_t e : d)
    if (e > 2147483647)
      throw std::invalid_argument("attention shape '" + shape +
                                  "' has an extent above 2147483647.");
  ParsedShape p;
  p.s.batch = static_cast<int>(d[0]);
  p.s.heads = static_cast<int>(d[1]);
  p.s.kv_heads = static_cast<int>(d[2]);
  p.s.seq_q = static_cast<int>(d[3]);
  p.s.seq_k = static_cast<int>(d[4]);
  p.s.head_dim = static_cast<int>(d[5]);
  p.s.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(p.s.head_dim)));
  p.text = shape.substr(0, colon);
  bool scaled = false;
  for (std::size_t at = colon; at != std::string::npos;) {
    const std::size_t next = shape.find(':', at + 1);
    const std::string opt = shape.substr(at + 1, next == std::string::npos ? next : next - at - 1);
    at = next;
    if (opt == "causal" && !p.s.causal) {
      p.s.causal = true;
      continue;
    }
    std::size_t used = 0;
    double scale = NAN;
    try {
      scale = std::stod(opt, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (scaled || opt.empty() || used != opt.size() || !(scale > 0) || !std::isfinite(scale))
      throw std::invalid_argument("attention shape '" + shape + "': '" + opt +
                                  "' is neither 'causal' nor a positive scale (once each).");
    p.s.scale = static_cast<float>(scale);
    scaled = true;
  }
  if (p.s.causal) p.text += ":causal";
  if (scaled) {
    char buf[32];
    std::snprintf(buf, sizeof buf, ":%g", static_cast<double>(p.s.scale));
    p.text += buf;
  }
  attention::check_shape(p.s);
  return p;
}

std::size_t q_elems(const Shape& s) {
  return static_cast<std::size_t>(s.batch) * s.seq_q * s.heads * s.head_dim;
}
std::size_t kv_elems(const Shape& s) {
  return static_cast<std::size_t>(s.batch) * s.seq_k * s.kv_heads * s.head_dim;
}

class AttentionCase : public registry::Case {
 public:
  AttentionCase(const ParsedShape& p, std::uint32_t seed)
      : s_(p.s),
        text_(p.text),
        q_(q_elems(s_)),
        k_(kv_elems(s_)),
        v_(kv_elems(s_)),
        o_(q_elems(s_)),
        ref_(q_elems(s_)),
        bound_(q_elems(s_)),
        workspace_(attention::workspace_bytes(attention::Variant::unfused, s_)) {
    fill(q_, seed * 3u + 1u);
    fill(k_, seed * 3u + 2u);
    fill(v_, seed * 3u + 3u);
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }

  std::string shape() const override { return text_; }

  registry::Work work() const override {
    registry::Work w;
    // Q, K, V read once and O written once, in bf16: what the fused rungs move. The
    // unfused rung moves 16 bytes more per score (ad::unfused_hbm_bytes).
    w.bytes = ad::fused_hbm_bytes(s_.batch, s_.heads, s_.kv_heads, s_.seq_q, s_.seq_k,
                                  s_.head_dim);
    // Two matmuls of 2 flops per multiply-add over the pairs the mask leaves.
    w.flops = 4.0 * s_.batch * s_.heads * s_.head_dim *
              ad::visible_pairs(s_.seq_q, s_.seq_k, s_.causal);
    return w;
  }

  void run(const std::string& variant, cudaStream_t stream) override {
    if (variant == kCudnnName) return run_baseline(stream);
    const std::optional<attention::Variant> v = attention::variant_from_string(variant);
    if (!v) throw std::invalid_argument("unknown attention variant '" + variant + "'.");
    attention::forward(*v, q_.data(), k_.data(), v_.data(), o_.data(), s_, workspace_.data(),
                       workspace_.size(), stream);
  }

  void poison(cudaStream_t stream) override { o_.poison(stream); }

  // Only where cuDNN runs this shape: otherwise no vendor row, and the cudnn line's row says
  // why (run throws the sentence).
  std::string baseline_name() const override {
    return cudnn().unavailable().empty() ? ad::CudnnSdpa::kName : "";
  }

  void run_baseline(cudaStream_t stream) override {
    cudnn().run(q_.data(), k_.data(), v_.data(), o_.data(), stream);
  }

  std::vector<core::OutputSpec> outputs() override {
    if (!ref_ready_) {
      const dim3 grid(static_cast<unsigned>((s_.seq_q + kRefRows - 1) / kRefRows),
                      static_cast<unsigned>(s_.heads), static_cast<unsigned>(s_.batch));
      reference_kernel<<<grid, kRefThreads>>>(q_.data(), k_.data(), v_.data(), s_, ref_.data(),
                                              bound_.data());
      MEMHIER_CHECK_LAUNCH();
      MEMHIER_CUDA(cudaDeviceSynchronize());
      ref_ready_ = true;
    }
    return {{"O", o_.data(), o_.size(), static_cast<std::size_t>(s_.heads) * s_.head_dim,
             core::ElemType::bf16, ref_.data(), bound_.data(), 1.0}};
  }

  std::vector<core::HostReference> cpu_reference() override;

  // Relative L2 over O: P and O rounded to bf16 with errors of random sign give about
  // 2^-8 / sqrt(3) each (3.2e-3 together at worst); 2^-8 leaves room, plus twice the score
  // error's bound at the largest sum |q k| (head_dim) the inputs allow. A lost key tile or a
  // wrong mask moves O by tens of percent.
  double tolerance() const override {
    return kPRound + 2.1 * (s_.head_dim + 4) * kU * s_.scale * s_.head_dim;
  }

 private:
  /// cuDNN's graph for this shape, built on first use (its plan search takes a while).
  ad::CudnnSdpa& cudnn() const {
    if (!cudnn_) cudnn_ = std::make_unique<ad::CudnnSdpa>(s_);
    return *cudnn_;
  }

  static void fill(core::DeviceBuffer<__nv_bfloat16>& buf, std::uint32_t seed) {
    fill_bf16_kernel<<<1024, 256>>>(buf.data(), buf.size(), seed);
    MEMHIER_CHECK_LAUNCH();
  }

  Shape s_;
  std::string text_;
  core::DeviceBuffer<__nv_bfloat16> q_, k_, v_, o_;
  core::DeviceBuffer<double> ref_;  // float64 O, computed on the first outputs()
  core::DeviceBuffer<float> bound_;  // each element's bound
  core::DeviceBuffer<unsigned char> workspace_;  // the unfused rung's S and P
  bool ref_ready_ = false;
  // cuDNN's graph and handle, owned here: a device reset drops them with the case.
  mutable std::unique_ptr<ad::CudnnSdpa> cudnn_;
};

/// The same reference on the CPU, two passes a row (max, then the sums).
std::vector<core::HostReference> AttentionCase::cpu_reference() {
  const double macs = static_cast<double>(s_.batch) * s_.heads * s_.seq_q * s_.seq_k * s_.head_dim;
  if (macs > kCpuReferenceLimit)
    throw std::invalid_argument("attention " + shape() + ": too large for the CPU reference.");
  const auto host = [](const core::DeviceBuffer<__nv_bfloat16>& b) {
    std::vector<double> out(b.size());
    const std::vector<__nv_bfloat16> raw = b.download();
    for (std::size_t i = 0; i < raw.size(); ++i)
      out[i] = static_cast<double>(__bfloat162float(raw[i]));
    return out;
  };
  const std::vector<double> q = host(q_), k = host(k_), v = host(v_);
  const int D = s_.head_dim;
  core::HostReference r;
  r.ref.assign(q.size(), 0.0);
  r.scale.assign(q.size(), 0.0);
  std::vector<double> sc(static_cast<std::size_t>(s_.seq_k)), ab(sc.size());
  for (int b = 0; b < s_.batch; ++b)
    for (int h = 0; h < s_.heads; ++h)
      for (int i = 0; i < s_.seq_q; ++i) {
        const int kvh = ad::kv_head_of(h, s_.heads, s_.kv_heads);
        const std::size_t qo = ad::row_offset(b, i, h, s_.seq_q, s_.heads, D);
        const long long n = std::max(0LL, ad::visible_keys(i, s_.seq_q, s_.seq_k, s_.causal));
        if (n == 0) continue;
        double m = -INFINITY, smin = INFINITY, amax = 0;
        for (long long j = 0; j < n; ++j) {
          const std::size_t ko = ad::row_offset(b, static_cast<int>(j), kvh, s_.seq_k,
                                                s_.kv_heads, D);
          double dot = 0, a = 0;
          for (int d = 0; d < D; ++d) dot += q[qo + d] * k[ko + d], a += std::fabs(q[qo + d] * k[ko + d]);
          sc[j] = s_.scale * dot;
          ab[j] = s_.scale * a;
          m = std::max(m, sc[j]);
          smin = std::min(smin, sc[j]);
          amax = std::max(amax, ab[j]);
        }
        double l = 0;
        for (long long j = 0; j < n; ++j) l += (sc[j] = std::exp(sc[j] - m));
        const double e = (D + 4) * kU * amax + 4 * kU * (m - smin);
        const double f = kPRound + kORound + 2.1 * e + 2.0 * s_.seq_k * kU + kSmall;
        for (int d = 0; d < D; ++d) {
          double o = 0, sa = 0;
          for (long long j = 0; j < n; ++j) {
            const double vd = v[ad::row_offset(b, static_cast<int>(j), kvh, s_.seq_k, s_.kv_heads,
                                               D) + d];
            o += sc[j] * vd;
            sa += sc[j] * std::fabs(vd);
          }
          r.ref[qo + d] = o / l;
          r.scale[qo + d] = f * sa / l;
        }
      }
  return {r};
}

std::unique_ptr<registry::Case> make_attention_case(const std::string& shape, std::uint32_t seed) {
  const ParsedShape p = parse_attention_shape(shape);
  // Q, K, V, O in bf16, the float64 reference and float bound, the unfused rung's S and P.
  const double bytes = 2.0 * (2.0 * q_elems(p.s) + 2.0 * kv_elems(p.s)) + 12.0 * q_elems(p.s) +
                       static_cast<double>(attention::workspace_bytes(attention::Variant::unfused, p.s));
  core::require_device_memory(bytes, "attention " + p.text);
  return std::make_unique<AttentionCase>(p, seed);
}

}  // namespace

registry::Family attention_family() {
  using attention::Variant;
  registry::Family f;
  f.name = "attention";
  f.python_name = "attention";
  f.number_type = model::NumberType::bf16;
  f.bound = registry::Bound::compute;
  f.title = "Attention forward, bf16: O = softmax(Q K^T scale) V, fp32 softmax statistics";
  f.story =
      "'GPU Memory Hierarchy' credits cp.async with FlashAttention-2's step from 145 to 156 "
      "TFLOP/s on an A100 (1.07x). Attention is where the hierarchy decides everything: "
      "written plainly it "
      "stores the seq_q x seq_k score matrix to HBM and reads it back twice (16 bytes a score "
      "against 2 a head element for Q, K, V and O), while the fused form keeps the scores in "
      "registers and shared memory with an online softmax (a running max and sum) and moves "
      "only Q, K, V and O. The ladder: three kernels (a scores GEMM, the softmax ladder's "
      "best, P V), then one fused kernel on CUDA cores with plain loads, then mma.sync "
      "m16n8k16 fed by ldmatrix from XOR-swizzled tiles with P kept in registers between the "
      "two matmuls, then a cp.async ring for K and V, then (sm_90a only) wgmma fed by TMA, a "
      "producer warpgroup loading K/V tiles into an mbarrier ring for two consumer warpgroups "
      "whose softmax overlaps the tensor cores, and at head_dim 64, where a tile's exponentials "
      "weigh twice what they do at 128 against its matmuls, the same kernel with 192-key "
      "tiles or with three consumer warpgroups. Every rung is timed against cuDNN's fused "
      "attention in the same process (the cudnn-frontend's SDPA graph, bf16 in and out, fp32 "
      "softmax, the same strides and bottom-right mask; built once per shape), which is also "
      "the cudnn line, verified like a rung; where cuDNN is not in the build or declines a "
      "shape, that line says why and the shape has no vendor ratio. Verification: "
      "each element of O against a float64 reference within (2^-8 + 2^-8 + 2.1 E + 2 seq_k "
      "2^-24 + 2^-18) sum_j p |v| / l, E the row's score error bound ((head_dim + 4) 2^-24 "
      "scale max sum |q k| + 2^-22 (max - min score)): P and O rounded to bf16, the fp32 "
      "scores and sums; relative L2 within 2^-8 plus twice the score error at the largest "
      "sum |q k|. The causal mask is aligned to the bottom-right (query i sees keys j <= i + "
      "seq_k - seq_q), as FlashAttention's is; a query that sees no key gets a row of 0.";
  int rung_no = 0;
  f.variants = {
#define MEMHIER_RUNG(name, launch, symbol, threads, technique, source, claim) \
  registry::make_variant(#name, ++rung_no, technique, {source, claim}, ad::symbol(), threads),
#define MEMHIER_BEST(name, technique, source, claim) \
  registry::make_variant(#name, ++rung_no, technique, {source, claim}, nullptr, 0),
#include "memhier/kernels/attention_rungs.inc"
  };
  // The rungs' global address streams (stream.hpp); best is compared as the rung it runs.
  for (registry::Variant& v : f.variants) {
    const std::optional<Variant> rung = attention::variant_from_string(v.name);
    if (!rung || !ad::has_stream(*rung)) continue;
    v.stream = [r = *rung](const std::string& shape, model::AccessSink& sink) {
      ad::stream(r, parse_attention_shape(shape).s, sink);
    };
  }
  f.variants.back().runs = [](const std::string& shape) {
    return std::string(attention::to_string(ad::best_variant(parse_attention_shape(shape).s)));
  };
  registry::Variant cudnn = registry::make_variant(
      kCudnnName, kCudnnRung,
      "cuDNN's fused attention (cudnn-frontend SDPA graph, bf16, fp32 softmax): the vendor line, "
      "not a rung of the ladder; declines where cuDNN is not in the build or has no engine",
      {"memhier goal: attention at the vendor's speed",
       "best at least 0.90 x cuDNN at head_dim 128 and 0.85 x at 64"},
      nullptr, 0);
  cudnn.role = registry::Role::reference;
  f.variants.push_back(std::move(cudnn));
  // batch x heads filling the card (32 to 64 heads of 2048, 4096 or 1024 queries), head_dim
  // 64 and 128, causal and not, one grouped-query shape.
  f.bench_shapes = {"2x16x16x2048x2048x128", "2x16x16x2048x2048x64:causal",
                    "1x16x4x4096x4096x128:causal", "4x16x16x1024x1024x64"};
  f.quick_shapes = {"1x16x16x1024x1024x128"};
  // seq 1, primes, one past a tile, seq_q != seq_k both ways (causal: fully masked rows when
  // seq_q > seq_k), grouped-query heads, head_dim 64 and 128, and a scale of 16 whose
  // scores (about 100) overflow fp16 and fp32 without the max shift.
  f.test_shapes = {"1x1x1x1x1x64",           "1x1x1x1x1x128:causal",     "1x2x2x1x127x128",
                   "1x2x1x127x127x64",       "2x2x2x509x509x128:causal", "1x2x2x127x509x64:causal",
                   "1x2x2x509x127x128:causal", "1x8x2x65x129x64",        "1x8x2x200x300x128:causal",
                   "1x2x2x129x257x64:16",    "2x4x4x64x64x128"};
  f.profile_shape = "1x4x4x509x509x64";
  // Simulated at the profile shape and at one whose unfused S and P are 32 MiB each while Q,
  // K, V and O are 2 MiB each (seq_k within the softmax's warp_per_row, which the unfused
  // stream replays).
  f.comparison_shapes = {f.profile_shape, "1x8x8x1024x1024x128"};
  f.make_case = make_attention_case;
  f.check_shape = [](const std::string& shape) { parse_attention_shape(shape); };
  f.claims.checks = claims::attention_checks;
  return f;
}

}  // namespace memhier::kernels
