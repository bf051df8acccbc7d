// The CPU models and the claims catalogue as plain dicts with the keys of the CLI's JSON
// (memhier analyze/occupancy/claims --json); python/memhier/models.py wraps them.
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/model/analyze.hpp"
#include "memhier/model/arch.hpp"
#include "memhier/model/occupancy.hpp"
#include "memhier/report/model_records.hpp"

namespace nb = nanobind;

namespace memhier::python {
namespace {

struct Prepared {
  model::Decl decl;
  model::Access access;
  model::WarpContext ctx;
};

// The model's own error types become ValueError with their one-line message.
template <class F>
decltype(auto) model_errors(F&& f) {
  try {
    return f();
  } catch (const model::ParseError& e) {
    throw nb::value_error(e.pretty().c_str());
  } catch (const model::EvalError& e) {
    throw nb::value_error(e.message.c_str());
  } catch (const model::OccupancyError& e) {
    throw nb::value_error(e.message.c_str());
  }
}

Prepared prepare(const std::string& decl, const std::string& expr, const std::vector<int>& block,
                 int warp, bool store, std::int64_t offset_bytes, std::uint32_t active,
                 const std::map<std::string, std::int64_t>& vars) {
  Prepared p;
  p.decl = model::parse_decl(decl);
  p.access = model::Access::parse(expr, p.decl);
  if (block.empty() || block.size() > 3)
    throw nb::value_error("block must have one to three extents (x, y, z).");
  int dims[3] = {1, 1, 1};
  std::int64_t threads = 1;
  for (std::size_t i = 0; i < block.size(); ++i) {
    if (block[i] < 1) throw nb::value_error("every block extent must be at least 1.");
    dims[i] = block[i];
    threads *= block[i];
  }
  if (threads > 1024) throw nb::value_error("a block holds at most 1024 threads.");
  p.ctx.block_x = dims[0];
  p.ctx.block_y = dims[1];
  p.ctx.block_z = dims[2];
  const int warps = (p.ctx.block_threads() + 31) / 32;
  if (warp < 0 || warp >= warps)
    throw nb::value_error(("warp must be in 0.." + std::to_string(warps - 1) + " for a block of " +
                           std::to_string(p.ctx.block_threads()) + " threads.")
                              .c_str());
  if (offset_bytes < 0) throw nb::value_error("offset_bytes must not be negative.");
  p.ctx.warp = warp;
  p.ctx.is_store = store;
  p.ctx.offset_bytes = offset_bytes;
  p.ctx.active_mask = active;
  p.ctx.vars = vars;
  for (const std::string& v : p.access.free_variables())
    if (!vars.count(v))
      throw nb::value_error(
          ("variable '" + v + "' has no value; pass vars={'" + v + "': N}.").c_str());
  return p;
}

// A JSON record as Python objects (dict, list, int, float, str, bool, None).
nb::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      nb::dict d;
      for (const auto& [k, v] : j.items()) d[k.c_str()] = to_python(v);
      return d;
    }
    case nlohmann::json::value_t::array: {
      nb::list l;
      for (const auto& v : j) l.append(to_python(v));
      return l;
    }
    case nlohmann::json::value_t::string:
      return nb::str(j.get_ref<const std::string&>().c_str());
    case nlohmann::json::value_t::boolean:
      return nb::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return nb::int_(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return nb::int_(j.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float:
      return nb::float_(j.get<double>());
    default:
      return nb::none();
  }
}

nb::dict analyze_shared(const std::string& decl, const std::string& expr,
                        const std::vector<int>& block, int warp, bool store,
                        std::int64_t offset_bytes, std::uint32_t active,
                        const std::map<std::string, std::int64_t>& vars) {
  return model_errors([&] {
    const Prepared p = prepare(decl, expr, block, warp, store, offset_bytes, active, vars);
    const model::SharedAnalysis a = model::analyze_shared(p.access, p.ctx);
    const std::vector<model::SharedFix> fixes =
        a.conflicts > 0 ? model::suggest_shared_fixes(p.decl, p.access, p.ctx)
                        : std::vector<model::SharedFix>{};
    return nb::borrow<nb::dict>(to_python(report::shared_record(p.decl.text, expr, a, fixes)));
  });
}

nb::dict analyze_global(const std::string& decl, const std::string& expr,
                        const std::vector<int>& block, int warp, bool store,
                        std::int64_t offset_bytes, std::uint32_t active,
                        const std::map<std::string, std::int64_t>& vars) {
  return model_errors([&] {
    const Prepared p = prepare(decl, expr, block, warp, store, offset_bytes, active, vars);
    const model::GlobalAnalysis a = model::analyze_global(p.access, p.ctx);
    return nb::borrow<nb::dict>(
        to_python(report::global_record(p.decl.text, expr, offset_bytes, a)));
  });
}

nb::dict occupancy(const std::string& cc, int block_threads, int regs, int smem, int static_smem,
                   std::optional<int> carveout) {
  const model::ArchSpec* arch = model::find_arch(cc);
  if (!arch) {
    std::string known;
    for (const auto& a : model::all_archs()) known += (known.empty() ? "" : ", ") + a.cc();
    throw nb::value_error(
        ("'" + cc + "' is not a known compute capability; known: " + known + ".").c_str());
  }
  if (regs < 1 || regs > arch->max_regs_per_thread)
    throw nb::value_error(("regs must be in 1.." + std::to_string(arch->max_regs_per_thread) +
                           " on compute capability " + arch->cc() + ".")
                              .c_str());
  if (smem < 0 || static_smem < 0) throw nb::value_error("shared memory must not be negative.");
  if (carveout && (*carveout < 0 || *carveout > 100))
    throw nb::value_error("carveout is a percentage, 0..100.");
  model::LaunchResources r;
  r.block_threads = block_threads;
  r.regs_per_thread = regs;
  r.dynamic_smem_bytes = smem;
  r.static_smem_bytes = static_smem;
  r.carveout_percent = carveout.value_or(-1);
  return model_errors([&] {
    const model::OccupancyResult res = model::occupancy(*arch, r);
    return nb::borrow<nb::dict>(
        to_python(report::occupancy_record(*arch, r, res, model::occupancy_advice(*arch, r, res))));
  });
}

nb::list claims(const std::vector<std::string>& ids) {
  std::vector<const claims::Claim*> chosen;
  for (const std::string& id : ids) {
    const claims::Claim* c = claims::find(id);
    if (!c)
      throw nb::value_error(("no claim '" + id + "'; memhier.claims() lists every id.").c_str());
    chosen.push_back(c);
  }
  if (ids.empty())
    for (const claims::Claim& c : claims::catalogue()) chosen.push_back(&c);
  nb::list out;
  for (const claims::Claim* c : chosen) out.append(to_python(claims::claim_record(*c)));
  return out;
}

}  // namespace

void bind_models(nb::module_& m) {
  using namespace nb::literals;
  m.def("analyze_shared", &analyze_shared, "decl"_a, "expr"_a, "block"_a, "warp"_a, "store"_a,
        "offset_bytes"_a, "active"_a, "vars"_a, "Shared-memory cost of one warp's access.");
  m.def("analyze_global", &analyze_global, "decl"_a, "expr"_a, "block"_a, "warp"_a, "store"_a,
        "offset_bytes"_a, "active"_a, "vars"_a, "Global-memory cost of one warp's access.");
  m.def("occupancy", &occupancy, "cc"_a, "block_threads"_a, "regs"_a, "smem"_a, "static_smem"_a,
        "carveout"_a.none(), "Blocks per SM, the limiter and advice.");
  m.def("claims", &claims, "ids"_a, "The claims catalogue as the CLI's JSON entries.");
}

}  // namespace memhier::python
