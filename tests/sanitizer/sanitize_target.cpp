// The process compute-sanitizer watches (tests/sanitizer/run.sh): every registered variant
// of every ladder on its family's small test shapes (and, but under racecheck, the tail
// splits on a wave of this card's tiles and a few more), the vendor baselines apart, or every
// probe at --quick sizes with one repetition per timing (those of two GPUs or more apart, as
// "outer"). Usage:
//   memhier_sanitize_target kernels|baselines|probes|outer|gpu-check [FAMILY|PROBE]
// FAMILY narrows kernels or baselines to one ladder (a new rung checked without the rest),
// PROBE the probes to one.
// Exit 0: all ran and verified; 1: a variant or baseline gave a wrong answer, or a CUDA
// error; 77: no GPU (the test is skipped, the reason on stdout); 2: bad usage.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "memhier/core/check.hpp"
#include "memhier/core/device.hpp"
#include "memhier/core/timing.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/probe/probe.hpp"
#include "memhier/probe/unavailable.hpp"
#include "memhier/registry/registry.hpp"

namespace {

using memhier::registry::Case;
using memhier::registry::Family;
using memhier::registry::Variant;

constexpr int kSkip = 77;

// At most this many elements by the shape's own numbers (the product of the digit runs in
// its text): the family's edge cases (1, primes, one past a tile) without its large shapes,
// judged before a case is built (building one allocates and computes its reference).
constexpr double kMaxShapeElements = 1 << 23;

double shape_elements(const std::string& shape) {
  double product = 1;
  double run = -1;
  for (char c : shape + ' ') {
    if (c >= '0' && c <= '9') {
      run = (run < 0 ? 0 : run) * 10 + (c - '0');
    } else if (run >= 0) {
      product *= std::max(run, 1.0);
      run = -1;
    }
  }
  return product;
}

// Vendor lines a sanitizer cannot check, and why (seen on the H200, CUDA 13.0, cuDNN 9.19):
// that tool skips them with the sentence; memcheck and initcheck still run and verify them.
// run.sh names the tool in MEMHIER_SANITIZER_TOOL.
struct Unchecked {
  const char* tool;
  const char* family;  // its vendor lines: the case's baseline and the reference variants
  const char* why;
};
constexpr Unchecked kUnchecked[] = {
    {"racecheck", "attention",
     "racecheck reports shared-memory hazards inside cuDNN's own generated flash kernel "
     "(cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_*), vendor code memhier cannot "
     "change"},
    {"synccheck", "attention",
     "synccheck overflows its tracking of the barriers of cuDNN's kernel and the launch fails"},
};

// The sanitizer tool at work, as run.sh names it ("" outside run.sh).
std::string sanitizer_tool() {
  const char* tool = std::getenv("MEMHIER_SANITIZER_TOOL");
  return tool ? tool : "";
}

// Why the sanitizer at work cannot check this family's vendor lines (nullptr: it can).
const char* unchecked_why(const Family& f) {
  const std::string tool = sanitizer_tool();
  for (const Unchecked& u : kUnchecked)
    if (tool == u.tool && f.name == u.family) return u.why;
  return nullptr;
}

// Variants registered after "best" are vendor reference lines (gemm's TF32 cuBLAS call):
// they run with the baselines, not with our kernels.
bool is_reference_line(const Family& f, const Variant& v) {
  bool past_best = false;
  for (const Variant& w : f.variants) {
    if (&w == &v) return past_best;
    past_best = past_best || w.name == "best";
  }
  return false;
}

// Runs `what` ("kernels" or "baselines") of every family (or only `only`, when not empty) on
// its small test shapes, then its kernels that need a wave of tiles on this card's wave cases
// (where a decline is a failure: the shape was made for them); each output is verified, so
// a sanitizer finding and a wrong answer both fail.
int run_ladders(bool baselines, const std::string& only, const memhier::core::DeviceInfo& dev) {
  memhier::kernels::register_families();
  int failures = 0, runs = 0;
  for (const Family& f : memhier::registry::families()) {
    if (!only.empty() && f.name != only) continue;
    std::uint32_t seed = 1;
    // The variants of `names` (all when empty) at `shape`; `must_run`: a decline fails.
    auto run_shape = [&](const std::string& shape, const std::vector<std::string>& names,
                         bool must_run) {
      std::unique_ptr<Case> c = f.make_case(shape, seed++);
      auto verify = [&](const std::string& name) {
        ++runs;
        MEMHIER_CUDA(cudaDeviceSynchronize());
        const double e = c->error();
        if (!(std::isfinite(e) && e <= c->tolerance())) {
          std::printf("FAIL %s %s at %s: relative error %g > %g\n", f.name.c_str(), name.c_str(),
                      shape.c_str(), e, c->tolerance());
          ++failures;
        }
      };
      if (baselines && !c->baseline_name().empty()) {
        if (const char* why = unchecked_why(f)) {
          std::printf("not checked at %s: %s: %s\n", shape.c_str(), c->baseline_name().c_str(),
                      why);
        } else {
          c->poison(nullptr);
          c->run_baseline(nullptr);
          verify(c->baseline_name());
        }
      }
      for (const Variant& v : f.variants) {
        if (is_reference_line(f, v) != baselines) continue;
        if (!names.empty() && std::find(names.begin(), names.end(), v.name) == names.end())
          continue;
        if (const char* why = baselines ? unchecked_why(f) : nullptr) {
          std::printf("not checked at %s: %s: %s\n", shape.c_str(), v.name.c_str(), why);
          continue;
        }
        try {
          c->poison(nullptr);
          c->run(v.name, nullptr);
        } catch (const std::invalid_argument& e) {
          // A variant declines a shape with a reason: not a failure, unless it was made for it.
          if (must_run) {
            std::printf("FAIL %s %s declined %s, made for it: %s\n", f.name.c_str(), v.name.c_str(),
                        shape.c_str(), e.what());
            ++failures;
          }
          continue;
        }
        verify(v.name);
      }
    };
    for (const std::string& shape : f.test_shapes)
      if (shape_elements(shape) <= kMaxShapeElements) run_shape(shape, {}, false);
    if (baselines || !f.wave_cases) continue;
    // racecheck looks at shared memory alone, and the tail splits' shared-memory code is the
    // tile loop the test shapes check; what is theirs (the slots) is global memory, memcheck's
    // and initcheck's. Under racecheck they took about two minutes more on the H200, near the
    // test's five-minute limit.
    if (sanitizer_tool() == "racecheck") {
      std::printf("%s: the wave cases are not run under racecheck (global-memory code)\n",
                  f.name.c_str());
      continue;
    }
    for (const memhier::registry::WaveCase& w : f.wave_cases(dev)) {
      const int before = runs;
      run_shape(w.shape, w.variants, true);
      std::printf("%s at %s (past a wave of tiles): %d runs\n", f.name.c_str(), w.shape.c_str(),
                  runs - before);
    }
  }
  if (runs == 0 && !only.empty()) {
    std::fprintf(stderr, "no ladder named %s ran (see memhier list)\n", only.c_str());
    return 2;
  }
  std::printf("%d runs, %d wrong\n", runs, failures);
  return failures == 0 ? 0 : 1;
}

// Every registered probe of one GPU (`outer`: of two GPUs or more; only `only`, when not
// empty) once, in registry order, at its smallest. The outer probes run apart: NCCL's set-up
// under the sanitizer takes most of a test's time limit.
int run_probes(const memhier::core::DeviceInfo& dev, bool outer, const std::string& only) {
  memhier::probe::register_probes();
  memhier::probe::Context ctx;
  ctx.device = dev;
  ctx.quick = true;
  ctx.smallest = true;
  ctx.sm_clock_mhz = memhier::core::measure_sm_clock_mhz();
  int n = 0;
  for (const memhier::registry::Entry& e : memhier::registry::entries()) {
    if (e.kind != "probe" || !e.run_probe || (e.min_gpus > 1) != outer) continue;
    if (!only.empty() && e.name != only) continue;
    std::printf("probe %s\n", e.name.c_str());
    std::fflush(stdout);
    try {
      e.run_probe(ctx);
    } catch (const memhier::probe::Unavailable& u) {
      std::printf("probe %s not run: %s\n", e.name.c_str(), u.what());  // a second GPU, NCCL
      continue;
    }
    ++n;
  }
  if (n == 0 && !only.empty()) {
    std::fprintf(stderr, "no probe named %s ran (see memhier list)\n", only.c_str());
    return 2;
  }
  std::printf("%d probes ran\n", n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc >= 2 && argc <= 3 ? argv[1] : "";
  const std::string only = argc == 3 ? argv[2] : "";
  if (what != "kernels" && what != "baselines" && what != "probes" && what != "outer" &&
      what != "gpu-check") {
    std::fprintf(stderr,
                 "usage: memhier_sanitize_target kernels|baselines|probes|outer|gpu-check "
                 "[FAMILY|PROBE]\n");
    return 2;
  }
  std::string why;
  const auto dev = memhier::core::query_device(0, &why);
  if (!dev) {
    std::printf("skipped: no GPU: %s\n", why.c_str());
    return kSkip;
  }
  if (what == "gpu-check") return 0;
  try {
    if (what == "probes" || what == "outer") return run_probes(*dev, what == "outer", only);
    return run_ladders(what == "baselines", only, *dev);
  } catch (const std::exception& e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
}
