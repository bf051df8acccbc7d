// The fast path for the common kernel call (softmax, transpose, reduce, histogram256, axpy):
// PyTorch tensors, CUDA, C-contiguous, the right dtypes and shapes. It reads each tensor
// through a few C-level attribute calls and launches, with no Python frame in between. Anything else (another framework, a wrong
// dtype, a view, a stream object, ...) answers NotImplemented and memhier/kernels.py takes
// its general path, which owns every check and error message: the fast path never raises
// for a wrong argument, it only declines.
#include <nanobind/stl/string.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bindings.hpp"

namespace nb = nanobind;

namespace memhier::python {
namespace {

using Ptr = std::uintptr_t;

// What Python registered for a tensor type when it first met one (memhier/_arrays.py): its
// dtype objects and its framework's current-stream accessor, kept per type so that two
// registrations (a test's stand-in and PyTorch) never mix.
struct Family {
  nb::object type;
  nb::object float32, uint8, int32, uint32;
  nb::object raw_stream;  // torch._C._cuda_getCurrentRawStream(device) -> cudaStream_t
};

// Interned attribute names, made once.
struct Names {
  nb::object dtype, is_cuda, get_device, is_contiguous, data_ptr, shape, new_empty;
};

std::vector<Family>& families() {
  static auto* f = new std::vector<Family>();  // never destroyed: Python may be finalizing
  return *f;
}

Names& names() {
  static Names* n = new Names();
  return *n;
}

const Family* family_of(PyObject* x) {
  const PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(x));
  for (const Family& f : families())
    if (f.type.ptr() == type) return &f;
  return nullptr;
}

// One tensor as the launch needs it.
struct Tensor {
  const Family* family = nullptr;
  Ptr ptr = 0;
  int device = -1;
  nb::object shape;  // a torch.Size (a tuple)
  std::int64_t size = 1;
  PyObject* dtype = nullptr;  // borrowed: torch's dtype objects live as long as torch
};

// The attribute `name` of x, or a null object (the error cleared) when reading it raised.
nb::object attr(PyObject* x, const nb::object& name) {
  PyObject* r = PyObject_GetAttr(x, name.ptr());
  if (!r) PyErr_Clear();
  return nb::steal(r);
}

nb::object call(PyObject* x, const nb::object& name) {
  PyObject* r = PyObject_CallMethodObjArgs(x, name.ptr(), nullptr);
  if (!r) PyErr_Clear();
  return nb::steal(r);
}

using DType = nb::object Family::*;

// x read as a CUDA, C-contiguous registered tensor of one of `dtypes`; false for anything
// else.
bool read(PyObject* x, std::initializer_list<DType> dtypes, Tensor* t) {
  t->family = family_of(x);
  if (!t->family) return false;
  const Names& n = names();
  nb::object dtype = attr(x, n.dtype);
  bool known = false;
  for (DType d : dtypes) {
    const nb::object& want = t->family->*d;
    known = known || (want.is_valid() && dtype.ptr() == want.ptr());
  }
  if (!known) return false;
  t->dtype = dtype.ptr();
  if (attr(x, n.is_cuda).ptr() != Py_True) return false;
  if (call(x, n.is_contiguous).ptr() != Py_True) return false;
  const nb::object device = call(x, n.get_device), ptr = call(x, n.data_ptr);
  if (!device.is_valid() || !ptr.is_valid() || !PyLong_Check(device.ptr()) ||
      !PyLong_Check(ptr.ptr()))
    return false;
  const long d = PyLong_AsLong(device.ptr());
  const unsigned long long p = PyLong_AsUnsignedLongLong(ptr.ptr());
  if (PyErr_Occurred() || d < 0 || d > std::numeric_limits<int>::max()) {
    PyErr_Clear();
    return false;
  }
  t->device = static_cast<int>(d);
  t->ptr = static_cast<Ptr>(p);
  t->shape = attr(x, n.shape);
  if (!t->shape.is_valid() || !PyTuple_Check(t->shape.ptr())) return false;
  t->size = 1;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(t->shape.ptr()); ++i) {
    const long long e = PyLong_AsLongLong(PyTuple_GET_ITEM(t->shape.ptr(), i));
    if (e == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    t->size *= e;
  }
  return true;
}

Py_ssize_t ndim(const Tensor& t) {
  return PyTuple_GET_SIZE(t.shape.ptr());
}

std::int64_t extent(const Tensor& t, Py_ssize_t i) {
  return PyLong_AsLongLong(PyTuple_GET_ITEM(t.shape.ptr(), i));
}

bool same_shape(const Tensor& a, const nb::handle shape) {
  return PyObject_RichCompareBool(a.shape.ptr(), shape.ptr(), Py_EQ) == 1;
}

// The stream to launch on: the caller's current PyTorch stream (stream=None) or an integer
// handle; false for a stream object, which the general path converts.
bool stream_of(nb::handle stream, const Tensor& x, Ptr* out) {
  nb::object s;
  if (stream.is_none()) {
    const nb::object& current = x.family->raw_stream;
    if (!current.is_valid()) return false;
    nb::object index = nb::steal(PyLong_FromLong(x.device));
    s = nb::steal(PyObject_CallOneArg(current.ptr(), index.ptr()));
  } else if (PyLong_CheckExact(stream.ptr())) {
    s = nb::borrow(stream);
  }
  if (!s.is_valid() || !PyLong_Check(s.ptr())) {
    PyErr_Clear();
    return false;
  }
  *out = static_cast<Ptr>(PyLong_AsUnsignedLongLong(s.ptr()));
  if (PyErr_Occurred()) {  // a negative handle: the general path says what is wrong
    PyErr_Clear();
    return false;
  }
  return true;
}

// `out` read (one of `dtypes`, of `shape`), or, when None, a new tensor from x.new_empty
// (x's dtype, or `dtype` when given). `keep` receives the output object.
bool output(nb::handle x, const Tensor& a, nb::handle out, nb::handle shape, DType new_dtype,
            std::initializer_list<DType> dtypes, Tensor* o, nb::object* keep) {
  if (out.is_none()) {
    const Names& n = names();
    if (new_dtype == nullptr) {
      *keep =
          nb::steal(PyObject_CallMethodObjArgs(x.ptr(), n.new_empty.ptr(), shape.ptr(), nullptr));
    } else {
      const nb::object& dtype = a.family->*new_dtype;
      if (!dtype.is_valid()) return false;
      nb::dict kwargs;
      kwargs["dtype"] = dtype;
      nb::object method = attr(x.ptr(), n.new_empty);
      nb::object args = nb::make_tuple(shape);
      if (method.is_valid())
        *keep = nb::steal(PyObject_Call(method.ptr(), args.ptr(), kwargs.ptr()));
    }
    if (!keep->is_valid()) {  // an allocation that failed fails again, with its message
      PyErr_Clear();
      return false;
    }
  } else {
    *keep = nb::borrow(out);
  }
  return read(keep->ptr(), dtypes, o) && same_shape(*o, shape);
}

// variant= as text; false for a non-string, whose TypeError the general path raises.
bool text_of(nb::handle name, std::string* out) {
  if (!PyUnicode_Check(name.ptr())) return false;
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(name.ptr(), &size);
  if (!data) {
    PyErr_Clear();
    return false;
  }
  out->assign(data, static_cast<std::size_t>(size));
  return true;
}

bool fits_int(std::int64_t v) {
  return v >= 0 && v <= std::numeric_limits<int>::max();
}

nb::object declined() {
  return nb::borrow(Py_NotImplemented);
}

// Each kernel: `launch` false returns the launch's arguments instead of launching, so the
// host cost of everything before the launch can be timed (and tested) without a GPU.

nb::object softmax_fast(nb::handle x, nb::handle out, nb::handle variant_name, nb::handle stream,
                        bool launch) {
  std::string variant;
  if (!text_of(variant_name, &variant)) return declined();
  Tensor a, o;
  nb::object result;
  Ptr s = 0;
  if (!read(x.ptr(), {&Family::float32}, &a) || ndim(a) == 0 || !stream_of(stream, a, &s) ||
      !output(x, a, out, a.shape, nullptr, {&Family::float32}, &o, &result) || o.device != a.device)
    return declined();
  const std::int64_t cols = extent(a, ndim(a) - 1), rows = cols ? a.size / cols : 0;
  if (!fits_int(rows) || !fits_int(cols)) return declined();
  if (!launch) return nb::make_tuple(a.ptr, o.ptr, rows, cols, a.device, s);
  if (rows)
    softmax_call(variant, a.ptr, o.ptr, static_cast<int>(rows), static_cast<int>(cols), a.device,
                 s);
  return result;
}

nb::object transpose_fast(nb::handle x, nb::handle out, nb::handle variant_name, nb::handle stream,
                          bool launch) {
  std::string variant;
  if (!text_of(variant_name, &variant)) return declined();
  Tensor a, o;
  nb::object result;
  Ptr s = 0;
  if (!read(x.ptr(), {&Family::float32}, &a) || ndim(a) != 2 || !stream_of(stream, a, &s))
    return declined();
  const std::int64_t rows = extent(a, 0), cols = extent(a, 1);
  if (!output(x, a, out, nb::make_tuple(cols, rows), nullptr, {&Family::float32}, &o, &result) ||
      o.device != a.device)
    return declined();
  if (!launch) return nb::make_tuple(a.ptr, o.ptr, rows, cols, a.device, s);
  if (a.size) transpose_call(variant, a.ptr, o.ptr, rows, cols, a.device, s);
  return result;
}

nb::object reduce_fast(nb::handle x, nb::handle op_name, nb::handle out, nb::handle variant_name,
                       nb::handle stream, bool launch) {
  std::string variant, op;
  if (!text_of(variant_name, &variant) || !text_of(op_name, &op) || (op != "sum" && op != "max"))
    return declined();
  Tensor a, o;
  nb::object result;
  Ptr s = 0;
  if (!read(x.ptr(), {&Family::float32}, &a) || a.size == 0 || !stream_of(stream, a, &s) ||
      !output(x, a, out, nb::make_tuple(), nullptr, {&Family::float32}, &o, &result) ||
      o.device != a.device)
    return declined();
  if (!launch) return nb::make_tuple(op, a.ptr, a.size, o.ptr, a.device, s);
  reduce_call(variant, op, a.ptr, static_cast<std::size_t>(a.size), o.ptr, a.device, s);
  return result;
}

nb::object histogram_fast(nb::handle x, nb::handle out, nb::handle variant_name, nb::handle stream,
                          bool launch) {
  std::string variant;
  if (!text_of(variant_name, &variant)) return declined();
  Tensor a, o;
  nb::object result;
  Ptr s = 0;
  if (!read(x.ptr(), {&Family::uint8, &Family::int32}, &a) || !stream_of(stream, a, &s) ||
      !output(x, a, out, nb::make_tuple(256), &Family::uint32, {&Family::uint32, &Family::int32},
              &o, &result) ||
      o.device != a.device)
    return declined();
  const int bits = a.dtype == a.family->uint8.ptr() ? 8 : 32;
  if (!launch) return nb::make_tuple(a.ptr, a.size, bits, o.ptr, a.device, s);
  histogram_call(variant, a.ptr, static_cast<std::size_t>(a.size), bits, o.ptr, a.device, s);
  return result;
}

nb::object axpy_fast(nb::handle alpha, nb::handle x, nb::handle y, nb::handle variant_name,
                     nb::handle stream, bool launch) {
  std::string variant;
  if (!text_of(variant_name, &variant)) return declined();
  Tensor a, b;
  Ptr s = 0;
  if (!(PyFloat_CheckExact(alpha.ptr()) || PyLong_CheckExact(alpha.ptr())) ||
      !read(x.ptr(), {&Family::float32}, &a) || !stream_of(stream, a, &s) ||
      !read(y.ptr(), {&Family::float32}, &b) || !same_shape(b, a.shape) || b.device != a.device)
    return declined();
  const double value = PyFloat_AsDouble(alpha.ptr());
  if (PyErr_Occurred()) {  // an int too large for a double
    PyErr_Clear();
    return declined();
  }
  const float f = static_cast<float>(value);
  if (!launch) return nb::make_tuple(f, a.ptr, b.ptr, a.size, a.device, s);
  if (a.size) axpy_call(variant, f, a.ptr, b.ptr, static_cast<std::size_t>(a.size), a.device, s);
  return nb::borrow(y);
}

void register_torch(nb::handle type, nb::handle float32, nb::handle uint8, nb::handle int32,
                    nb::handle uint32, nb::handle raw_stream) {
  if (!PyType_Check(type.ptr())) throw nb::type_error("register_torch takes a type.");
  Names& n = names();
  if (!n.dtype.is_valid()) {
    const char* text[] = {"dtype",    "is_cuda", "get_device", "is_contiguous",
                          "data_ptr", "shape",   "new_empty"};
    nb::object* slots[] = {&n.dtype,    &n.is_cuda, &n.get_device, &n.is_contiguous,
                           &n.data_ptr, &n.shape,   &n.new_empty};
    for (std::size_t i = 0; i < 7; ++i) *slots[i] = nb::steal(PyUnicode_InternFromString(text[i]));
  }
  auto keep = [](nb::handle h) { return h.is_none() ? nb::object() : nb::borrow(h); };
  Family f{nb::borrow(type), keep(float32), keep(uint8),
           keep(int32),      keep(uint32),  keep(raw_stream)};
  for (Family& known : families())
    if (known.type.ptr() == type.ptr()) {
      known = f;
      return;
    }
  families().push_back(f);
}

}  // namespace

void bind_fast(nb::module_& m) {
  using namespace nb::literals;
  m.def("register_torch", &register_torch, "type"_a, "float32"_a.none(), "uint8"_a.none(),
        "int32"_a.none(), "uint32"_a.none(), "raw_stream"_a.none(),
        "Lets the fast path take tensors of `type` (dtypes and the current-stream accessor "
        "from torch; None where torch lacks one).");
  m.def("softmax_fast", &softmax_fast, "x"_a, "out"_a.none(), "variant"_a.none(), "stream"_a.none(),
        "launch"_a,
        "memhier.softmax for a registered tensor, or NotImplemented; launch=False returns "
        "(x, out, rows, cols, device, stream) without launching.");
  m.def("transpose_fast", &transpose_fast, "x"_a, "out"_a.none(), "variant"_a.none(),
        "stream"_a.none(), "launch"_a,
        "memhier.transpose for a registered tensor, or NotImplemented; launch=False returns "
        "(x, out, rows, cols, device, stream).");
  m.def("reduce_fast", &reduce_fast, "x"_a, "op"_a.none(), "out"_a.none(), "variant"_a.none(),
        "stream"_a.none(), "launch"_a,
        "memhier.reduce for a registered tensor, or NotImplemented; launch=False returns "
        "(op, x, n, out, device, stream).");
  m.def("histogram256_fast", &histogram_fast, "x"_a, "out"_a.none(), "variant"_a.none(),
        "stream"_a.none(), "launch"_a,
        "memhier.histogram256 for a registered tensor, or NotImplemented; launch=False returns "
        "(x, n, bits, out, device, stream).");
  m.def("axpy_fast", &axpy_fast, "a"_a, "x"_a, "y"_a, "variant"_a.none(), "stream"_a.none(),
        "launch"_a,
        "memhier.axpy for registered tensors, or NotImplemented; launch=False returns "
        "(a, x, y, n, device, stream).");
}

}  // namespace memhier::python
