// memhier's softmax API (cluster_per_row) against the harness kernel of
// softmax_cluster_exchange.cu (st.async, ex2.approx, clusters of 8 x 512 threads) and
// cudaMemcpy at 8 x 65536, in one process, timed by the harness's loop and by memhier's
// core::time_it on the default and on a created stream. Built on the GPU host against a
// release build of the repository (from this folder):
//   nvcc -O3 -std=c++17 -arch=sm_90a -I../../../include -I../../../build/release/src/generated \
//     -o pvh softmax_product_vs_harness.cu ../../../build/release/src/libmemhier_kernels.a \
//     ../../../build/release/src/libmemhier_core.a -lcuda && ./pvh
#define main harness_main
#include "softmax_cluster_exchange.cu"
#undef main
#include "memhier/core/timing.hpp"
#include "memhier/kernels/softmax.hpp"

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  g_flush_bytes = size_t(l2) * 2;
  CK(cudaMalloc(&g_flush, g_flush_bytes));
  const size_t n = size_t(ROWS) * COLS, bytes = n * 4;
  std::vector<float> h(n);
  for (auto& x : h) x = (rand() / (float)RAND_MAX) * 8.f - 4.f;
  float *in, *out;
  unsigned long long* ts;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, bytes));
  CK(cudaMalloc(&ts, 4096 * 64));
  CK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  auto harness = [&](cudaStream_t s) {
    auto kern = sm_cluster<4, 1, 1, false, false>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(ROWS * 8);
    cfg.blockDim = dim3(512);
    cfg.stream = s;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = 8;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, kern, (const float*)in, out, ts));
  };
  auto product = [&](cudaStream_t s) {
    memhier::softmax::softmax(memhier::softmax::Variant::cluster_per_row, in, out, ROWS, COLS, s);
  };
  auto memcpy_ = [&](cudaStream_t s) { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, s)); };
  memhier::core::TimingOptions o;
  o.warmup = 2;
  o.min_reps = 7;
  o.max_reps = 200;
  o.min_total_ms = 25.0;
  o.flush_l2 = true;
  for (int rep = 0; rep < 3; ++rep) {
    for (auto [name, f] : {std::pair<const char*, std::function<void(cudaStream_t)>>{"memcpy", memcpy_},
                           {"harness kernel", harness},
                           {"product API", product}}) {
      const double a = time_med([&] { f(nullptr); });
      o.stream = nullptr;
      const auto t0 = memhier::core::time_it(f, o);
      o.stream = st;
      const auto t1 = memhier::core::time_it(f, o);
      std::printf("%-15s time_med %.2f us | time_it default stream %.2f us (p10 %.2f p90 %.2f, %d reps) | own stream %.2f us\n",
                  name, a, t0.median_ms * 1e3, t0.p10_ms * 1e3, t0.p90_ms * 1e3, t0.reps, t1.median_ms * 1e3);
    }
  }
  return 0;
}
