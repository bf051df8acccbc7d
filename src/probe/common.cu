#include <algorithm>
#include <numeric>
#include <random>

#include "common.cuh"

namespace memhier::probe {
namespace {

__device__ __forceinline__ std::uint32_t hash32(std::uint32_t x) {
  // A well-mixed integer hash (Wellons' lowbias32): cheap and good enough for test data.
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

__global__ void fill_float_kernel(float* d, std::size_t n, std::uint32_t seed, float lo, float span) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const std::uint32_t h = hash32(static_cast<std::uint32_t>(i) ^ hash32(seed + static_cast<std::uint32_t>(i >> 32)));
    d[i] = lo + span * ((h >> 8) * (1.0f / 16777216.0f));
  }
}

__global__ void fill_bits_kernel(std::uint32_t* d, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    d[i] = hash32(static_cast<std::uint32_t>(i) ^ hash32(seed + static_cast<std::uint32_t>(i >> 32)));
}

}  // namespace

void fill_random(float* data, std::size_t n, std::uint32_t seed, float lo, float hi, cudaStream_t s) {
  if (!n) return;
  fill_float_kernel<<<1024, 256, 0, s>>>(data, n, seed, lo, hi - lo);
  MEMHIER_CHECK_LAUNCH();
}

void fill_random_bits(std::uint32_t* data, std::size_t n, std::uint32_t seed, cudaStream_t s) {
  if (!n) return;
  fill_bits_kernel<<<1024, 256, 0, s>>>(data, n, seed);
  MEMHIER_CHECK_LAUNCH();
}

std::vector<std::uint32_t> make_ring(std::size_t slots, std::size_t stride_bytes, std::uint32_t seed) {
  const std::size_t words_per_slot = stride_bytes / 4;
  std::vector<std::uint32_t> order(slots);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937 rng(seed);
  std::shuffle(order.begin() + 1, order.end(), rng);  // slot 0 starts the ring
  std::vector<std::uint32_t> mem(slots * words_per_slot, 0);
  for (std::size_t i = 0; i < slots; ++i) {
    const std::size_t from = order[i], to = order[(i + 1) % slots];
    mem[from * words_per_slot] = static_cast<std::uint32_t>(to * stride_bytes);
  }
  return mem;
}

report::Table claims_table(const std::string& probe_name, const std::vector<ClaimRow>& rows) {
  report::Table t;
  t.id = probe_name + "-claims";
  t.title = "Claims against this card";
  t.columns = {{"source", "", "source"},
               {"claim", "", "claim"},
               {"measured here", "", "measured"},
               {"verdict", "", "verdict"}};
  for (const ClaimRow& r : rows)
    t.rows.push_back({report::Value::str(r.source), report::Value::str(r.claim),
                      report::Value::str(r.measured), report::Value::str(r.verdict)});
  return t;
}

}  // namespace memhier::probe
