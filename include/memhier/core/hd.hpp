// MEMHIER_HD marks the index math shared by the kernels and the CPU models:
// __host__ __device__ under nvcc, nothing in a plain C++ build (the models need no CUDA).
#pragma once

#if defined(__CUDACC__)
#define MEMHIER_HD __host__ __device__
#else
#define MEMHIER_HD
#endif
