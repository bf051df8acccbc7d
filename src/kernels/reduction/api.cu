// The public reduction API: names, validation, the plan (grid and workspace split,
// from the device's SM count and each kernel's occupancy, cached per device), dispatch
// to the variant's launch function, and the RAII workspace.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include "memhier/core/check.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/kernels/reduction.hpp"
#include "memhier/registry/names.hpp"
#include "variants.hpp"

namespace memhier::reduction {
namespace detail {

namespace {

/// Elements a block of a classic rung reduces per pass; 0 for the grid-stride rungs.
std::size_t classic_elems_per_block(Variant v) {
  switch (v) {
#define MEMHIER_CLASSIC_RUNG(name, launch, symbol, elems_per_thread, ...) \
  case Variant::name:                                                     \
    return static_cast<std::size_t>(elems_per_thread) * kClassicBlock;
#define MEMHIER_GRID_RUNG(...)
#define MEMHIER_BEST(...)
#include "memhier/kernels/reduction_rungs.inc"
    default:
      return 0;
  }
}

GridConfig grid_config(Variant v) {
  switch (v) {
#define MEMHIER_CLASSIC_RUNG(...)
#define MEMHIER_GRID_RUNG(name, launch, config, ...) \
  case Variant::name:                                \
    return config();
#define MEMHIER_BEST(...)
#include "memhier/kernels/reduction_rungs.inc"
    default:
      throw std::invalid_argument("reduction: internal error, no grid configuration for variant " +
                                  std::string(to_string(v)) + ".");
  }
}

bool known(Variant v) {
  const auto& all = all_variants();
  return std::find(all.begin(), all.end(), v) != all.end();
}

/// What one call launches: the concrete variant, its grid, its workspace split.
struct Plan {
  Variant v = Variant::best;
  std::size_t slots_a = 0, slots_b = 0;  ///< floats of block partials (two buffers for classic)
  unsigned grid = 0;                     ///< grid-stride variants
  std::size_t bytes() const { return kHeaderBytes + sizeof(float) * (slots_a + slots_b); }
};

/// The plan of a variant other than best (best is resolved to its configuration first).
Plan plan(Variant v, std::size_t n) {
  if (!known(v) || v == Variant::best)
    throw std::invalid_argument("reduction: unknown variant value.");
  if (n == 0) throw std::invalid_argument("reduction: n must be at least 1.");
  Plan p;
  p.v = v;
  if (const std::size_t e = classic_elems_per_block(p.v)) {
    const std::size_t a = n / e + (n % e != 0);
    if (a > static_cast<std::size_t>(INT_MAX))
      throw std::invalid_argument("reduction: n = " + std::to_string(n) +
                                  " needs more than 2^31-1 blocks for variant " + to_string(p.v) +
                                  "; use a grid-stride variant.");
    const std::size_t b = a / e + (a % e != 0);
    p.slots_a = a > 1 ? a : 0;
    p.slots_b = a > 1 && b > 1 ? b : 0;
    return p;
  }
  const GridConfig c = grid_config(p.v);
  const std::size_t per_step = static_cast<std::size_t>(c.block_threads) * c.unroll * 4;
  const std::size_t needed = std::max<std::size_t>(1, n / per_step + (n % per_step != 0));
  const std::size_t resident =
      static_cast<std::size_t>(core::resident_grid(c.sum_kernel, c.block_threads));
  p.grid = static_cast<unsigned>(std::min(needed, resident));
  p.slots_a = p.grid;
  return p;
}

/// The workspace `v` needs for n elements: for best, the most any of its candidates needs.
std::size_t workspace_bytes(Variant v, std::size_t n) {
  if (v != Variant::best) return plan(v, n).bytes();
  std::size_t bytes = 0;
  for (Variant c : best_candidates()) bytes = std::max(bytes, plan(c, n).bytes());
  return bytes;
}

std::uintptr_t addr(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}

/// True when [a, a+an) and [b, b+bn) share a byte.
bool overlap(const void* a, std::size_t an, const void* b, std::size_t bn) {
  return addr(a) < addr(b) + bn && addr(b) < addr(a) + an;
}

}  // namespace
}  // namespace detail

// Each rung's name, in table order (a constexpr array: internal linkage already).
constexpr registry::Named<Variant> kNames[] = {
#define MEMHIER_CLASSIC_RUNG(name, ...) {Variant::name, #name},
#define MEMHIER_GRID_RUNG MEMHIER_CLASSIC_RUNG
#define MEMHIER_BEST MEMHIER_CLASSIC_RUNG
#include "memhier/kernels/reduction_rungs.inc"
};

const char* to_string(Variant v) {
  return registry::name_of(kNames, v);
}

const char* to_string(Op op) {
  return op == Op::sum ? "sum" : op == Op::max ? "max" : "unknown";
}

const std::vector<Variant>& all_variants() {
  static const std::vector<Variant> all(std::begin(kAllVariants), std::end(kAllVariants));
  return all;
}

Variant variant_from_string(const std::string& name) {
  if (const std::optional<Variant> v = registry::from_name(kNames, name)) return *v;
  std::string names;
  for (const registry::Named<Variant>& row : kNames)
    names += (names.empty() ? "" : ", ") + std::string(row.name);
  throw std::invalid_argument("unknown reduction variant '" + name + "'; known: " + names + ".");
}

Variant best_variant_for(std::size_t n) {
  return detail::cached_best(n);
}

std::size_t reduce_workspace_bytes(Variant v, std::size_t n) {
  if (!detail::known(v)) throw std::invalid_argument("reduction: unknown variant value.");
  return detail::workspace_bytes(v, std::max<std::size_t>(n, 1));
}

std::size_t reduce_workspace_bytes_all(std::size_t n) {
  std::size_t bytes = 0;
  for (Variant v : all_variants()) bytes = std::max(bytes, reduce_workspace_bytes(v, n));
  return bytes;
}

void reduce(Variant v, Op op, const float* in, std::size_t n, float* out, void* workspace,
            std::size_t workspace_bytes, cudaStream_t s) {
  using detail::addr;
  // Everything about the arguments is checked before the device is touched.
  if (!detail::known(v)) throw std::invalid_argument("reduce: unknown variant value.");
  if (op != Op::sum && op != Op::max)
    throw std::invalid_argument("reduce: unknown operator value (sum or max).");
  if (n == 0) throw std::invalid_argument("reduce: n must be at least 1 element.");
  if (n > std::numeric_limits<std::size_t>::max() / sizeof(float))
    throw std::invalid_argument("reduce: n = " + std::to_string(n) +
                                " floats overflow the byte count.");
  if (!in || !out || !workspace)
    throw std::invalid_argument("reduce: in, out and workspace must be device pointers, not null.");
  if (addr(in) % alignof(float) || addr(out) % alignof(float))
    throw std::invalid_argument("reduce: in and out must be 4-byte (float) aligned.");
  if (addr(workspace) % alignof(unsigned))
    throw std::invalid_argument("reduce: the workspace must be 4-byte aligned.");
  const std::size_t need = detail::workspace_bytes(v, n);
  if (workspace_bytes < need)
    throw std::invalid_argument(
        "reduce: variant " + std::string(to_string(v)) + " needs a " + std::to_string(need) +
        "-byte workspace for n = " + std::to_string(n) + ", got " +
        std::to_string(workspace_bytes) + " (size it with reduce_workspace_bytes).");
  if (detail::overlap(workspace, need, in, n * sizeof(float)) ||
      detail::overlap(workspace, need, out, sizeof(float)))
    throw std::invalid_argument("reduce: the workspace overlaps in or out.");
  const detail::Plan p = detail::plan(
      v == Variant::best ? detail::choose_best(op, in, n, workspace, need, s) : v, n);

  detail::Launch l;
  l.op = op;
  l.in = in;
  l.n = n;
  l.out = out;
  l.counter = static_cast<unsigned*>(workspace);
  l.slots = reinterpret_cast<float*>(static_cast<char*>(workspace) + detail::kHeaderBytes);
  l.slots_b = p.slots_a;
  l.grid = p.grid;
  l.stream = s;
  switch (p.v) {
#define MEMHIER_CLASSIC_RUNG(name, launch, ...) \
  case Variant::name:                           \
    return detail::launch(l);
#define MEMHIER_GRID_RUNG MEMHIER_CLASSIC_RUNG
#define MEMHIER_BEST(name, ...) \
  case Variant::name:           \
    break;
#include "memhier/kernels/reduction_rungs.inc"
  }
  throw std::invalid_argument("reduce: internal error, best did not resolve to a variant.");
}

Workspace::Workspace(std::size_t max_n) : max_n_(max_n) {
  if (max_n == 0) throw std::invalid_argument("reduction::Workspace: max_n must be at least 1.");
  bytes_ = reduce_workspace_bytes_all(max_n);
  MEMHIER_CUDA(cudaMalloc(&ptr_, bytes_));
  const cudaError_t err = cudaMemset(ptr_, 0, bytes_);
  if (err != cudaSuccess) {
    cudaFree(ptr_);
    ptr_ = nullptr;
    MEMHIER_CUDA(err);
  }
}

Workspace::~Workspace() {
  if (ptr_) cudaFree(ptr_);
}

Workspace::Workspace(Workspace&& o) noexcept
    : ptr_(std::exchange(o.ptr_, nullptr)),
      bytes_(std::exchange(o.bytes_, 0)),
      max_n_(std::exchange(o.max_n_, 0)) {}

Workspace& Workspace::operator=(Workspace&& o) noexcept {
  if (this != &o) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    max_n_ = std::exchange(o.max_n_, 0);
  }
  return *this;
}

void reduce(Variant v, Op op, const float* in, std::size_t n, float* out, Workspace& ws,
            cudaStream_t s) {
  if (n > ws.max_n())
    throw std::invalid_argument("reduce: n = " + std::to_string(n) +
                                " exceeds the workspace's max_n = " + std::to_string(ws.max_n()) +
                                ".");
  reduce(v, op, in, n, out, ws.data(), ws.bytes(), s);
}

}  // namespace memhier::reduction
