// One function per ladder; register_kernels() adds them in report order.
#pragma once

#include "memhier/bench/kernel_bench.hpp"

namespace memhier::kernels {

bench::Family transpose_family();    // src/kernels/transpose/family.cu
bench::Family reduction_family();    // src/kernels/reduction/family.cu
bench::Family softmax_family();      // src/kernels/softmax/family.cu
bench::Family elementwise_family();  // src/kernels/elementwise/family.cu
bench::Family histogram_family();    // src/kernels/histogram/family.cu
bench::Family stencil_family();      // src/kernels/stencil/family.cu
bench::Family gemm_family();         // src/kernels/gemm/family.cu

}  // namespace memhier::kernels
