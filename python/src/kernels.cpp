// The kernels over raw device pointers, and the reading of DLPack capsules. Shapes, dtypes
// and the choice of stream are settled in Python (memhier/_arrays.py), or for the common
// PyTorch call in fast.cpp; the library's own checks (std::invalid_argument, a ValueError
// in Python) guard everything below.
#include <cuda_runtime_api.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/device.hpp"
#include "memhier/kernels/attention.hpp"
#include "memhier/kernels/elementwise.hpp"
#include "memhier/kernels/gemm.hpp"
#include "memhier/kernels/gemm_bf16.hpp"
#include "memhier/kernels/histogram.hpp"
#include "memhier/kernels/reduction.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/kernels/softmax.hpp"
#include "memhier/kernels/stencil.hpp"
#include "memhier/kernels/transpose.hpp"
#include "memhier/model/arch.hpp"
#include "memhier/model/input.hpp"
#include "memhier/registry/registry.hpp"
#include "memhier/run/pipeline.hpp"

namespace nb = nanobind;

namespace memhier::python {
namespace {

using Ptr = std::uintptr_t;

// The DLPack ABI around a DLTensor: the legacy capsule ("dltensor") and the 1.x one
// ("dltensor_versioned"), which puts a version and flags before the tensor.
struct ManagedTensor {
  nb::dlpack::dltensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor*);
};
struct ManagedTensorVersioned {
  std::uint32_t major, minor;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned*);
  std::uint64_t flags;
  nb::dlpack::dltensor dl_tensor;
};
constexpr std::uint64_t kDLPackReadOnly = 1;

// The capsule's tensor as (address, shape, strides or None, dtype code, bits, lanes,
// device type, device id, read-only). The capsule keeps its owner: the caller holds it
// for as long as the kernel may use the memory.
nb::tuple dlpack_info(nb::handle capsule) {
  const nb::dlpack::dltensor* t = nullptr;
  bool readonly = false;
  if (PyCapsule_IsValid(capsule.ptr(), "dltensor")) {
    t = &static_cast<ManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"))->dl_tensor;
  } else if (PyCapsule_IsValid(capsule.ptr(), "dltensor_versioned")) {
    auto* v = static_cast<ManagedTensorVersioned*>(
        PyCapsule_GetPointer(capsule.ptr(), "dltensor_versioned"));
    if (v->major != 1)
      throw nb::type_error("the array's DLPack capsule has a major version other than 1.");
    t = &v->dl_tensor;
    readonly = (v->flags & kDLPackReadOnly) != 0;
  } else {
    throw nb::type_error("__dlpack__ did not return an unused DLPack capsule.");
  }
  nb::list shape, strides;
  for (int i = 0; i < t->ndim; ++i) {
    shape.append(t->shape[i]);
    if (t->strides) strides.append(t->strides[i]);
  }
  const Ptr address = reinterpret_cast<Ptr>(t->data) + static_cast<Ptr>(t->byte_offset);
  return nb::make_tuple(address, nb::tuple(shape),
                        t->strides ? nb::object(nb::tuple(strides)) : nb::none(), t->dtype.code,
                        t->dtype.bits, t->dtype.lanes, t->device.device_type, t->device.device_id,
                        readonly);
}

// Without a usable GPU a kernel call raises NoDeviceError with the sentence probe and bench
// give, not the CUDA error of whichever call met the missing device first.
void require_gpu() {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) return;
  cudaGetLastError();  // the sticky "no device" error, for later calls
  std::string why;
  core::query_device(0, &why);
  throw run::DeviceUnavailable("this call needs a GPU: " + why);
}

// The runtime's current device set to `device` for the call and put back afterwards, so a
// framework that tracks its own current device sees no change.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    require_gpu();
    MEMHIER_CUDA(cudaGetDevice(&previous_));
    if (previous_ != device) MEMHIER_CUDA(cudaSetDevice(device));
  }
  ~DeviceScope() {
    int now = previous_;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous_) cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

// Streams arrive as integers, with DLPack's meaning: 1 the legacy default stream, 2 the
// per-thread one, which are also the runtime's values of cudaStreamLegacy/PerThread.
cudaStream_t as_stream(Ptr s) {
  return reinterpret_cast<cudaStream_t>(s);
}

template <class T>
const T* in_ptr(Ptr p) {
  return reinterpret_cast<const T*>(p);
}
template <class T>
T* out_ptr(Ptr p) {
  return reinterpret_cast<T*>(p);
}

// The variant of `family` named `name`, found among all its variants by its readable name.
// The element type of a range of variants (an array or a vector): it names the overload of
// to_string meant, which a deduced parameter could not.
template <class Range>
using VariantOf = std::decay_t<decltype(*std::begin(std::declval<const Range&>()))>;

template <class Range>
VariantOf<Range> variant_named(const Range& all, const char* (*name_of)(VariantOf<Range>),
                               const std::string& family, const std::string& name) {
  std::vector<std::string> known;
  std::vector<VariantOf<Range>> variants;
  for (const auto v : all) {
    known.push_back(name_of(v));
    variants.push_back(v);
  }
  return variants[model::parse_choice(name, family + " variant", known)];
}

// The ladder whose Python function (or variants() name) is `name`: Family::python_name.
const registry::Family& python_family(const std::string& name) {
  kernels::register_families();
  std::vector<const registry::Family*> bound;
  std::vector<std::string> known;
  for (const registry::Family& f : registry::families()) {
    if (f.python_name.empty()) continue;
    bound.push_back(&f);
    known.push_back(f.python_name);
  }
  return *bound[model::parse_choice(name, "kernel family", known)];
}

// The variants the family's function takes, in rung order: not the reference lines or the
// lessons the bench times beside them (cuBLAS in TF32, a misaligned base).
std::vector<std::string> python_variants(const registry::Family& f) {
  std::vector<std::string> out;
  for (const registry::Variant& v : f.variants)
    if (v.role == registry::Role::api) out.push_back(v.name);
  return out;
}

// Every ladder the package binds, with the facts its Family holds.
nb::list families() {
  kernels::register_families();
  nb::list out;
  for (const registry::Family& f : registry::families()) {
    if (f.python_name.empty()) continue;
    nb::dict d;
    d["name"] = f.python_name;
    d["family"] = f.name;
    d["title"] = f.title;
    d["number_type"] = std::string(model::to_string(f.number_type));
    d["bound"] = std::string(f.bound == registry::Bound::compute ? "compute" : "memory");
    d["comparison_shapes"] = f.comparison_shapes;
    d["variants"] = python_variants(f);
    out.append(d);
  }
  return out;
}

// One zeroed reduction workspace per (device, stream): the contract forbids sharing one
// between calls in flight on two streams. It grows (doubling) when a larger n arrives.
reduction::Workspace& workspace_for(int device, Ptr stream, std::size_t n) {
  static std::mutex lock;
  static std::map<std::pair<int, Ptr>, std::unique_ptr<reduction::Workspace>> cache;
  const std::lock_guard<std::mutex> hold(lock);
  auto& ws = cache[{device, stream}];
  if (!ws || ws->max_n() < n) {
    const std::size_t want = ws ? std::max(n, 2 * ws->max_n()) : std::max<std::size_t>(n, 1 << 20);
    ws.reset();  // frees the old one (cudaFree waits for work that uses it)
    ws = std::make_unique<reduction::Workspace>(want);
    // Its zeroing ran on the legacy stream; a non-blocking caller stream is not ordered
    // after it, so wait for it here (once per growth).
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }
  return *ws;
}

}  // namespace

// The launches fast.cpp shares (bindings.hpp documents them).

void softmax_call(const std::string& variant, Ptr in, Ptr out, int rows, int cols, int device,
                  Ptr stream) {
  const auto v = variant_named(softmax::kAllVariants, softmax::to_string, "softmax", variant);
  nb::gil_scoped_release unlocked;
  DeviceScope scope(device);
  softmax::softmax(v, in_ptr<float>(in), out_ptr<float>(out), rows, cols, as_stream(stream));
}

void transpose_call(const std::string& variant, Ptr in, Ptr out, std::int64_t rows,
                    std::int64_t cols, int device, Ptr stream) {
  const auto v = variant_named(transpose::kAllVariants, transpose::to_string, "transpose", variant);
  nb::gil_scoped_release unlocked;
  DeviceScope scope(device);
  transpose::transpose(v, in_ptr<float>(in), out_ptr<float>(out), rows, cols, as_stream(stream));
}

void histogram_call(const std::string& variant, Ptr in, std::size_t n, int bits, Ptr bins,
                    int device, Ptr stream) {
  const auto v =
      variant_named(histogram::kAllVariants, histogram::to_string, "histogram256", variant);
  nb::gil_scoped_release unlocked;
  DeviceScope scope(device);
  if (bits == 8)
    histogram::histogram256(v, in_ptr<std::uint8_t>(in), n, out_ptr<std::uint32_t>(bins),
                            as_stream(stream));
  else
    histogram::histogram256(v, in_ptr<std::int32_t>(in), n, out_ptr<std::uint32_t>(bins),
                            as_stream(stream));
}

void axpy_call(const std::string& variant, float a, Ptr x, Ptr y, std::size_t n, int device,
               Ptr stream) {
  const auto v = variant_named(elementwise::kAllVariants, elementwise::to_string, "axpy", variant);
  nb::gil_scoped_release unlocked;
  DeviceScope scope(device);
  elementwise::axpy(v, a, in_ptr<float>(x), out_ptr<float>(y), n, as_stream(stream));
}

void reduce_call(const std::string& variant, const std::string& op, Ptr in, std::size_t n, Ptr out,
                 int device, Ptr stream) {
  const auto v = variant_named(reduction::kAllVariants, reduction::to_string, "reduce", variant);
  reduction::Op o;
  if (op == "sum")
    o = reduction::Op::sum;
  else if (op == "max")
    o = reduction::Op::max;
  else
    throw std::invalid_argument("unknown reduce op '" + op + "'; known: sum, max.");
  nb::gil_scoped_release unlocked;
  DeviceScope scope(device);
  reduction::Workspace& ws = workspace_for(device, stream, n);
  reduction::reduce(v, o, in_ptr<float>(in), n, out_ptr<float>(out), ws, as_stream(stream));
}

namespace {

// Host seconds that `calls` back-to-back C++ softmax calls take (the launches only): the
// baseline of the Python per-call overhead benchmark.
double softmax_host_seconds(const std::string& variant, Ptr in, Ptr out, int rows, int cols,
                            int device, Ptr stream, int calls) {
  const auto v = variant_named(softmax::kAllVariants, softmax::to_string, "softmax", variant);
  nb::gil_scoped_release unlocked;
  DeviceScope scope(device);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i)
    softmax::softmax(v, in_ptr<float>(in), out_ptr<float>(out), rows, cols, as_stream(stream));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void gemm_call(const std::string& variant, int m, int n, int k, float alpha, Ptr a, int lda, Ptr b,
               int ldb, float beta, Ptr c, int ldc, int device, Ptr stream) {
  const auto v = variant_named(gemm::kAllVariants, gemm::to_string, "gemm", variant);
  nb::gil_scoped_release unlocked;
  DeviceScope scope(device);
  gemm::sgemm(v, m, n, k, alpha, in_ptr<float>(a), lda, in_ptr<float>(b), ldb, beta,
              out_ptr<float>(c), ldc, as_stream(stream));
}

// C fp32 or bf16 (c_bf16), with the epilogue's bias (0: none).
void gemm_bf16_call(const std::string& variant, int m, int n, int k, float alpha, Ptr a, int lda,
                    Ptr b, int ldb, float beta, Ptr c, int ldc, bool c_bf16, Ptr bias, int device,
                    Ptr stream) {
  const auto v =
      variant_named(gemm_bf16::all_variants(), gemm_bf16::to_string, "gemm_bf16", variant);
  nb::gil_scoped_release unlocked;
  DeviceScope scope(device);
  const gemm_bf16::Epilogue epilogue{in_ptr<float>(bias)};
  if (c_bf16)
    gemm_bf16::gemm_bf16(v, m, n, k, alpha, in_ptr<__nv_bfloat16>(a), lda, in_ptr<__nv_bfloat16>(b),
                         ldb, beta, out_ptr<__nv_bfloat16>(c), ldc, epilogue, as_stream(stream));
  else
    gemm_bf16::gemm_bf16(v, m, n, k, alpha, in_ptr<__nv_bfloat16>(a), lda, in_ptr<__nv_bfloat16>(b),
                         ldb, beta, out_ptr<float>(c), ldc, epilogue, as_stream(stream));
}

void attention_call(const std::string& variant, Ptr q, Ptr k, Ptr v, Ptr o, int batch, int heads,
                    int kv_heads, int seq_q, int seq_k, int head_dim, bool causal, float scale,
                    int device, Ptr stream) {
  const auto var =
      variant_named(attention::kAllVariants, attention::to_string, "attention", variant);
  nb::gil_scoped_release unlocked;
  DeviceScope scope(device);
  attention::forward(var, in_ptr<__nv_bfloat16>(q), in_ptr<__nv_bfloat16>(k),
                     in_ptr<__nv_bfloat16>(v), out_ptr<__nv_bfloat16>(o), batch, heads, kv_heads,
                     seq_q, seq_k, head_dim, causal, scale, as_stream(stream));
}

void stencil_call(const std::string& variant, Ptr in, Ptr out, int rows, int cols,
                  const std::vector<float>& filter, int k, int device, Ptr stream) {
  const auto v = variant_named(stencil::kAllVariants, stencil::to_string, "stencil2d", variant);
  if (k < 0 || filter.size() != static_cast<std::size_t>(k) * static_cast<std::size_t>(k))
    throw std::invalid_argument("the filter must hold k*k values.");
  nb::gil_scoped_release unlocked;
  DeviceScope scope(device);
  stencil::stencil2d(v, in_ptr<float>(in), out_ptr<float>(out), rows, cols, filter.data(), k,
                     as_stream(stream));
}

// How many CUDA devices this process sees (0 without a driver or a GPU).
int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error for later calls
    return 0;
  }
  return n;
}

// The device that holds `address` (a __cuda_array_interface__ names none).
int pointer_device(Ptr address) {
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(&attr, reinterpret_cast<const void*>(address));
  if (err != cudaSuccess) {
    cudaGetLastError();
    require_gpu();
    throw nb::value_error("the array's address is not one the CUDA runtime knows.");
  }
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
    throw nb::value_error("the array is not in CUDA device memory.");
  return attr.device;
}

}  // namespace

void bind_kernels(nb::module_& m) {
  m.def("dlpack_info", &dlpack_info, nb::arg("capsule"),
        "(address, shape, strides, dtype code, bits, lanes, device type, device id, "
        "read-only) of a DLPack capsule.");
  m.def("pointer_device", &pointer_device, nb::arg("address"),
        "The CUDA device of a device or managed pointer; ValueError for any other.");
  m.def("device_count", &device_count, "Number of CUDA devices visible (0 without a GPU).");
  m.def(
      "variants", [](const std::string& family) { return python_variants(python_family(family)); },
      nb::arg("family"), "The variant names a kernel function accepts, in rung order.");
  m.def(
      "check_variant",
      [](const std::string& family, const std::string& variant) {
        model::parse_choice(variant, family + " variant", python_variants(python_family(family)));
      },
      nb::arg("family"), nb::arg("variant"),
      "memhier.InputError when `variant` is not one of variants(family), before any GPU work.");
  m.def("families", &families,
        "The kernel families bound here, from memhier's registry: each a dict of name (what "
        "variants() takes), family, title, number_type, bound, comparison_shapes and variants.");
  using namespace nb::literals;
  m.def("softmax", &softmax_call, "variant"_a, "x"_a, "out"_a, "rows"_a, "cols"_a, "device"_a,
        "stream"_a, "Row softmax of rows x cols float32 at address x into out.");
  m.def("transpose", &transpose_call, "variant"_a, "x"_a, "out"_a, "rows"_a, "cols"_a, "device"_a,
        "stream"_a, "Transpose of rows x cols float32 at x into out (cols x rows).");
  m.def("gemm", &gemm_call, "variant"_a, "m"_a, "n"_a, "k"_a, "alpha"_a, "a"_a, "lda"_a, "b"_a,
        "ldb"_a, "beta"_a, "c"_a, "ldc"_a, "device"_a, "stream"_a,
        "C = alpha A B + beta C, float32 row-major with leading dimensions in elements.");
  m.def("gemm_bf16", &gemm_bf16_call, "variant"_a, "m"_a, "n"_a, "k"_a, "alpha"_a, "a"_a, "lda"_a,
        "b"_a, "ldb"_a, "beta"_a, "c"_a, "ldc"_a, "c_bf16"_a, "bias"_a, "device"_a, "stream"_a,
        "C = alpha A B + beta C + bias on tensor cores: bf16 A and B, float32 or bf16 C, "
        "row-major; bias (n float32, or 0) added to each column.");
  m.def("softmax_host_seconds", &softmax_host_seconds, "variant"_a, "x"_a, "out"_a, "rows"_a,
        "cols"_a, "device"_a, "stream"_a, "calls"_a,
        "Host seconds of `calls` C++ softmax calls in a row (benchmark baseline).");
  m.def("reduce", &reduce_call, "variant"_a, "op"_a, "x"_a, "n"_a, "out"_a, "device"_a, "stream"_a,
        "Sum or max of n float32 at x into the float32 at out.");
  m.def("histogram256", &histogram_call, "variant"_a, "x"_a, "n"_a, "bits"_a, "bins"_a, "device"_a,
        "stream"_a, "256 uint32 bins of n uint8 (bits 8) or int32 (bits 32) values.");
  m.def("attention", &attention_call, "variant"_a, "q"_a, "k"_a, "v"_a, "o"_a, "batch"_a, "heads"_a,
        "kv_heads"_a, "seq_q"_a, "seq_k"_a, "head_dim"_a, "causal"_a, "scale"_a, "device"_a,
        "stream"_a,
        "Attention forward of bf16 q, k, v into o, [batch, seq, heads, head_dim] contiguous.");
  m.def("stencil2d", &stencil_call, "variant"_a, "x"_a, "out"_a, "rows"_a, "cols"_a, "filter"_a,
        "k"_a, "device"_a, "stream"_a, "k x k clamped stencil of a rows x cols float32 image.");
  m.def("axpy", &axpy_call, "variant"_a, "a"_a, "x"_a, "y"_a, "n"_a, "device"_a, "stream"_a,
        "y = a x + y over n float32.");
}

}  // namespace memhier::python
