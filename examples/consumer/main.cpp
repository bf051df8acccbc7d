// Row softmax of a small matrix through memhier's public API: what a project that found
// memhier with find_package(memhier) writes. Prints the first row and its sum (1).
#include <cuda_runtime_api.h>

#include <cstdio>
#include <stdexcept>
#include <vector>

#include "memhier/kernels/softmax.hpp"

int main() {
  constexpr int rows = 3, cols = 5;
  std::vector<float> host(rows * cols);
  for (int i = 0; i < rows * cols; ++i) host[i] = static_cast<float>(i % cols);
  void *in = nullptr, *out = nullptr;
  const std::size_t bytes = host.size() * sizeof(float);
  if (cudaMalloc(&in, bytes) != cudaSuccess || cudaMalloc(&out, bytes) != cudaSuccess) {
    std::fprintf(stderr, "no usable GPU\n");
    return 3;
  }
  cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice);
  try {
    memhier::softmax::softmax(memhier::softmax::Variant::best, static_cast<const float*>(in),
                              static_cast<float*>(out), rows, cols);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  cudaMemcpy(host.data(), out, bytes, cudaMemcpyDeviceToHost);
  float sum = 0;
  for (int c = 0; c < cols; ++c) {
    std::printf("%.4f ", host[c]);
    sum += host[c];
  }
  std::printf("(sum %.4f)\n", sum);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
