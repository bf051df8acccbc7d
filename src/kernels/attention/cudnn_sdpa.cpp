// cuDNN's fused attention through the cudnn-frontend graph API: one SDPA node on the ladder's
// tensors, built once per shape. The frontend loads libcudnn at run time (dynamic loading), so
// the library links nothing of cuDNN and a machine without it gets a sentence, not a loader
// error. Without the frontend's headers at configure time the line says how to get them.
#include "cudnn_sdpa.hpp"

#include <stdexcept>
#include <string>

// Set by src/CMakeLists.txt for this file alone; absent, cuDNN is not in the build.
#ifndef MEMHIER_HAVE_CUDNN_FRONTEND
#define MEMHIER_HAVE_CUDNN_FRONTEND 0
#endif
#ifndef MEMHIER_HAVE_CUDNN_H
#define MEMHIER_HAVE_CUDNN_H 0
#endif
#ifndef MEMHIER_HAVE_CUDNN_FRONTEND_H
#define MEMHIER_HAVE_CUDNN_FRONTEND_H 0
#endif
#ifndef MEMHIER_CUDNN_OFF
#define MEMHIER_CUDNN_OFF 0
#endif
#ifndef MEMHIER_CUDNN_LIBRARY
#define MEMHIER_CUDNN_LIBRARY ""
#endif

#if MEMHIER_HAVE_CUDNN_FRONTEND
#include <dlfcn.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>

// Resolve cuDNN, the CUDA runtime and driver at run time, through the handle below.
#define NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING
#include <cudnn_frontend.h>

#include "memhier/core/buffer.hpp"

// The frontend's dynamic loading looks its cuDNN symbols up in this handle, which the
// program opens (load_cudnn below).
namespace cudnn_frontend {
void* cudnn_dlhandle = nullptr;
}  // namespace cudnn_frontend
#endif

namespace memhier::attention::detail {

#if MEMHIER_HAVE_CUDNN_FRONTEND
namespace {

namespace fe = cudnn_frontend;
using TensorPtr = std::shared_ptr<fe::graph::Tensor_attributes>;

/// Opens libcudnn once per process: "" when it is open, else the sentence why not.
const std::string& load_cudnn() {
  static std::string why;
  static std::once_flag once;
  std::call_once(once, [] {
    // The soname first (the loader's path, as every CUDA library), then the library CMake
    // found beside the headers it built against.
    const char* names[] = {"libcudnn.so.9", MEMHIER_CUDNN_LIBRARY};
    std::string tried;
    for (const char* name : names) {
      if (!name[0]) continue;
      dlerror();
      if (void* h = dlopen(name, RTLD_NOW | RTLD_GLOBAL)) {
        fe::cudnn_dlhandle = h;
        return;
      }
      const char* e = dlerror();
      tried += std::string(tried.empty() ? "" : "; ") + (e ? e : name);
    }
    why = "libcudnn.so.9 could not be loaded (" + tried +
          "): install cuDNN 9 or put its lib folder on LD_LIBRARY_PATH";
  });
  return why;
}

/// Thrown inside the build: one step of the graph's construction said no.
struct BuildFailed {
  std::string why;
};

void check(fe::error_t e, const char* step) {
  if (e.is_bad()) throw BuildFailed{std::string(step) + ": " + e.get_message()};
}

}  // namespace

struct CudnnSdpa::Impl {
  cudnnHandle_t handle = nullptr;
  fe::graph::Graph graph;
  TensorPtr q, k, v, o;
  core::DeviceBuffer<unsigned char> workspace;

  ~Impl() {
    if (handle) fe::detail::destroy_handle(handle);  // nothing to do about a failure here
  }

  /// The ladder's [batch, seq, heads, head_dim] row-major tensor as cuDNN's (b, h, s, d).
  TensorPtr tensor(const char* name, const Shape& s, int heads, int seq) {
    const std::int64_t h = heads, n = seq, d = s.head_dim;
    return graph.tensor(fe::graph::Tensor_attributes()
                            .set_name(name)
                            .set_dim({s.batch, h, n, d})
                            .set_stride({n * h * d, d, h * d, 1}));
  }

  void build(const Shape& s) {
    const cudnnStatus_t st = fe::detail::create_handle(&handle);
    if (st != CUDNN_STATUS_SUCCESS) {
      handle = nullptr;
      throw std::runtime_error(std::string("cudnnCreate: ") + fe::detail::get_error_string(st));
    }
    graph.set_io_data_type(fe::DataType_t::BFLOAT16)
        .set_intermediate_data_type(fe::DataType_t::FLOAT)
        .set_compute_data_type(fe::DataType_t::FLOAT);
    q = tensor("Q", s, s.heads, s.seq_q);
    k = tensor("K", s, s.kv_heads, s.seq_k);
    v = tensor("V", s, s.kv_heads, s.seq_k);
    fe::graph::SDPA_attributes a;
    a.set_name("memhier_attention").set_generate_stats(false).set_attn_scale(s.scale);
    // The ladder's mask keeps key j for query i when j <= i + seq_k - seq_q: cuDNN's
    // bottom-right diagonal, which is its top-left one when the lengths agree.
    if (s.causal) {
      if (s.seq_q == s.seq_k)
        a.set_causal_mask(true);
      else
        a.set_causal_mask_bottom_right(true);
    }
    o = graph.sdpa(q, k, v, a)[0];
    const std::int64_t h = s.heads, n = s.seq_q, d = s.head_dim;
    o->set_output(true).set_dim({s.batch, h, n, d}).set_stride({n * h * d, d, h * d, 1});
    check(graph.validate(), "the graph is not valid");
    check(graph.build_operation_graph(handle), "building the operation graph");
    check(graph.create_execution_plans({fe::HeurMode_t::A}), "no execution plan");
    check(graph.check_support(), "no engine supports the graph");
    check(graph.build_plans(fe::BuildPlanPolicy_t::HEURISTICS_CHOICE), "building the plan");
    std::int64_t bytes = 0;
    check(graph.get_workspace_size(bytes), "the workspace size");
    if (bytes > 0) workspace = core::DeviceBuffer<unsigned char>(static_cast<std::size_t>(bytes));
  }
};

CudnnSdpa::CudnnSdpa(const Shape& s) {
  why_ = load_cudnn();
  if (!why_.empty()) return;
  auto impl = std::make_unique<Impl>();
  try {
    impl->build(s);
    impl_ = std::move(impl);
  } catch (const BuildFailed& e) {
    why_ = "cuDNN " + std::string(fe::detail::get_backend_version_string()) +
           " declines this shape: " + e.why;
  } catch (const std::exception& e) {  // no handle, the frontend's own throws, an allocation
    why_ = std::string("cuDNN did not start: ") + e.what();
  }
}

void CudnnSdpa::run(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                    __nv_bfloat16* o, cudaStream_t stream) {
  if (!impl_) throw std::invalid_argument(why_);
  const cudnnStatus_t st = fe::detail::set_stream(impl_->handle, stream);
  if (st != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cudnnSetStream: ") + fe::detail::get_error_string(st));
  std::unordered_map<TensorPtr, void*> pack{{impl_->q, const_cast<__nv_bfloat16*>(q)},
                                            {impl_->k, const_cast<__nv_bfloat16*>(k)},
                                            {impl_->v, const_cast<__nv_bfloat16*>(v)},
                                            {impl_->o, o}};
  fe::error_t e = impl_->graph.execute(impl_->handle, pack, impl_->workspace.data());
  if (e.is_bad()) throw std::runtime_error("cuDNN SDPA execute: " + e.get_message());
}

#else  // built without the frontend's headers or cuDNN's

struct CudnnSdpa::Impl {};

CudnnSdpa::CudnnSdpa(const Shape&) {
  std::string missing;
  if (!MEMHIER_HAVE_CUDNN_H) missing = "cudnn.h (cuDNN 9, in the CUDA toolkit or CUDNN_HOME)";
  if (!MEMHIER_HAVE_CUDNN_FRONTEND_H)
    missing += std::string(missing.empty() ? "" : " or ") +
               "the cudnn-frontend headers (scripts/bootstrap.sh fetches them into "
               ".deps/cudnn-frontend/include, or set MEMHIER_CUDNN_FRONTEND_INCLUDE_DIR to a "
               "folder holding cudnn_frontend.h)";
  why_ = MEMHIER_CUDNN_OFF ? "cuDNN's fused attention is not in this build: it was configured "
                             "with MEMHIER_WITH_CUDNN=OFF"
                           : "cuDNN's fused attention is not in this build: CMake did not find " +
                                 missing + "; reconfigure once they are there";
}

void CudnnSdpa::run(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*,
                    __nv_bfloat16*, cudaStream_t) {
  throw std::invalid_argument(why_);
}

#endif

CudnnSdpa::~CudnnSdpa() = default;

}  // namespace memhier::attention::detail
