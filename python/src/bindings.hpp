// The pieces of the extension module memhier._ext, one function per file that adds them.
#pragma once

#include <nanobind/nanobind.h>

namespace memhier::python {

/// DLPack capsule reading and the kernel entry points over raw device pointers.
void bind_kernels(nanobind::module_& m);

/// The CPU models (analyze shared/global, occupancy) and the claims catalogue.
void bind_models(nanobind::module_& m);

}  // namespace memhier::python
