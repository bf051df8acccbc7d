// memhier bench FAMILY|all: verify and time the optimization ladders.
#include <fmt/format.h>

#include <iostream>
#include <limits>
#include <memory>
#include <stdexcept>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/run/pipeline.hpp"
#include "numbers.hpp"
#include "progress.hpp"

namespace memhier::cli {

namespace {

struct BenchCliOptions {
  std::string family;
  std::vector<std::string> variants;
  std::vector<std::string> sizes;
  std::string m, n, k;  ///< GEMM extents
  int gemm_given = 0;   ///< how many of --m, --n, --k were given
  bool quick = false;
  bool json = false;
  bool torch = false;
  bool sweep = false;
};

int run_bench(const BenchCliOptions& o) {
  // An unknown family is answered first, then the GEMM extents, then the rest.
  as_bad_input([&] { run::select_families(o.family); });
  run::BenchOptions opt;
  opt.family = o.family;
  opt.variants = o.variants;
  opt.shapes = o.sizes;
  if (o.gemm_given > 0) {
    if (o.gemm_given < 3) throw UsageError("--m, --n and --k must all be given, or none.");
    // Each extent fits a GEMM's int; the family checks the matrices' sizes.
    const std::int64_t most = std::numeric_limits<int>::max();
    const std::string why = " (a GEMM extent)";
    const std::int64_t m = parse_int(o.m, "--m", 1, most, why);
    const std::int64_t n = parse_int(o.n, "--n", 1, most, why);
    const std::int64_t k = parse_int(o.k, "--k", 1, most, why);
    opt.shapes.push_back(fmt::format("{}x{}x{}", m, n, k));
  }
  opt.quick = o.quick;
  opt.torch = o.torch;
  opt.sweep = o.sweep;
  opt.meta = make_meta(true);
  ProgressLine progress("memhier bench");
  opt.progress = [&progress](const std::string& s) { progress.step(s); };
  opt.say = [&progress](const std::string& sentence) {
    progress.done();
    std::cerr << "memhier bench: " << sentence << "\n";
  };
  // After a fault that loses the GPU to this process, the rest runs in another memhier.
  try {
    opt.isolate_with = run::self_executable();
  } catch (const std::runtime_error&) {
  }
  // Bad variants and shapes exit 2 before the device is touched; no GPU exits 3.
  const report::Document doc = as_bad_input([&] { return run::run_bench(opt); });
  progress.done();
  print_document(doc, o.json);
  return kExitOk;
}

/// FAMILY's help: the registered ladders, in report order.
std::string family_help() {
  std::string s;
  for (const registry::Family& f : registry::families()) s += f.name + ", ";
  return s + "or all";
}

/// The footer: each ladder's variants (what --variant takes), wrapped under its name.
std::string variants_footer() {
  constexpr std::size_t kWidth = 100;
  std::string s = "Variants (--variant), in rung order:";
  for (const registry::Family& f : registry::families()) {
    std::string line = "  " + f.name + ":";
    for (const registry::Variant& v : f.variants) {
      if (line.size() + 1 + v.name.size() > kWidth) {
        s += "\n" + line;
        line = std::string(4, ' ');
      } else {
        line += ' ';
      }
      line += v.name;
    }
    s += "\n" + line;
  }
  return s;
}

}  // namespace

void add_bench(CLI::App& app, int& rc) {
  auto o = std::make_shared<BenchCliOptions>();
  kernels::register_families();  // the help lists what the registry holds
  CLI::App* sub = app.add_subcommand(
      "bench", "Verify and time an optimization ladder against the vendor library and memcpy");
  sub->add_option("FAMILY", o->family, family_help())->required();
  sub->add_option("--variant", o->variants, "Only these variants (repeatable; see below)");
  sub->add_option("--size", o->sizes, "Shapes such as 8192x8192 or 268435456 (repeatable)");
  const CLI::Option* m = sub->add_option("--m", o->m, "GEMM: rows of A and C");
  const CLI::Option* n = sub->add_option("--n", o->n, "GEMM: columns of B and C");
  const CLI::Option* k = sub->add_option("--k", o->k, "GEMM: columns of A, rows of B");
  sub->add_flag("--quick", o->quick, "Smaller shapes, fewer repetitions");
  sub->add_flag("--json", o->json, "Print JSON");
  // Off by default here: a bench of one shape would wait seconds for Python and torch.
  sub->add_flag("--torch", o->torch,
                "Add PyTorch's call at each shape (timed by python3 where torch imports; "
                "$MEMHIER_PYTHON overrides python3)");
  std::string swept;
  for (const registry::Family& f : registry::families())
    if (!f.sweep_shapes.empty()) swept += (swept.empty() ? "" : ", ") + f.name;
  sub->add_flag("--sweep", o->sweep,
                "best against the vendor at shapes users run (squares, LLM projections, skinny "
                "M, primes; --quick: three of them): " +
                    swept);
  sub->footer(variants_footer());
  sub->callback([o, m, n, k, &rc] {
    o->gemm_given = (m->count() > 0) + (n->count() > 0) + (k->count() > 0);
    rc = run_bench(*o);
  });
}

}  // namespace memhier::cli
