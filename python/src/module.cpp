// memhier._ext: the compiled half of the Python package (python/memhier wraps it).
#include "bindings.hpp"

NB_MODULE(_ext, m) {
  m.doc() =
      "memhier's C++ libraries: kernels over device pointers, the CPU models, claims, and the "
      "probe, bench and report runs.";
  memhier::python::bind_kernels(m);
  memhier::python::bind_models(m);
  memhier::python::bind_fast(m);
  memhier::python::bind_records(m);
}
