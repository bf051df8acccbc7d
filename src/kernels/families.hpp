// One function per ladder; register_families() adds them in report order.
#pragma once

#include "memhier/registry/family.hpp"

namespace memhier::kernels {

registry::Family transpose_family();    // src/kernels/transpose/family.cu
registry::Family reduction_family();    // src/kernels/reduction/family.cu
registry::Family softmax_family();      // src/kernels/softmax/family.cu
registry::Family elementwise_family();  // src/kernels/elementwise/family.cu
registry::Family histogram_family();    // src/kernels/histogram/family.cu
registry::Family stencil_family();      // src/kernels/stencil/family.cu
registry::Family gemm_family();         // src/kernels/gemm/family.cu

}  // namespace memhier::kernels
