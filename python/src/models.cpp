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
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/model/analyze.hpp"
#include "memhier/model/arch.hpp"
#include "memhier/model/input.hpp"
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

// The warp's inputs arrive as the text the command line carries (python/memhier/models.py
// formats ints and tuples, reading nothing): the command's reader reads them.
Prepared prepare(const std::string& decl, const std::string& expr, const std::string& block,
                 const std::string& warp, bool store, const std::string& offset_bytes,
                 const std::string& active, const std::map<std::string, std::int64_t>& vars) {
  Prepared p;
  p.decl = model::parse_decl(decl);
  p.access = model::Access::parse(expr, p.decl);
  p.ctx = model::read_warp_context({block, warp, offset_bytes, active}, model::Face::python);
  p.ctx.is_store = store;
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

nb::dict analyze_shared(const std::string& decl, const std::string& expr, const std::string& block,
                        const std::string& warp, bool store, const std::string& offset_bytes,
                        const std::string& active,
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

nb::dict analyze_global(const std::string& decl, const std::string& expr, const std::string& block,
                        const std::string& warp, bool store, const std::string& offset_bytes,
                        const std::string& active,
                        const std::map<std::string, std::int64_t>& vars) {
  return model_errors([&] {
    const Prepared p = prepare(decl, expr, block, warp, store, offset_bytes, active, vars);
    const model::GlobalAnalysis a = model::analyze_global(p.access, p.ctx);
    return nb::borrow<nb::dict>(
        to_python(report::global_record(p.decl.text, expr, p.ctx.offset_bytes, a)));
  });
}

// Every argument as typed (a string, or an int formatted in decimal by models.py), read by
// the command's reader: memhier.InputError with the command's sentence when one does not.
nb::dict occupancy(const std::string& cc, const std::string& block, const std::string& regs,
                   const std::string& smem, const std::string& static_smem,
                   std::optional<std::string> carveout) {
  const model::OccupancyText text{cc, block, regs, smem, static_smem, std::move(carveout)};
  const model::OccupancyInput in = model::read_occupancy(text, model::Face::python);
  return model_errors([&] {
    const model::OccupancyResult res = model::occupancy(*in.arch, in.resources);
    return nb::borrow<nb::dict>(to_python(report::occupancy_record(
        *in.arch, in.resources, res, model::occupancy_advice(*in.arch, in.resources, res))));
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
  // Text that does not read: the command's sentence, as memhier.InputError (a ValueError).
  nb::exception<model::InputError>(m, "InputError", PyExc_ValueError);
  m.def("analyze_shared", &analyze_shared, "decl"_a, "expr"_a, "block"_a, "warp"_a, "store"_a,
        "offset_bytes"_a, "active"_a, "vars"_a, "Shared-memory cost of one warp's access.");
  m.def("analyze_global", &analyze_global, "decl"_a, "expr"_a, "block"_a, "warp"_a, "store"_a,
        "offset_bytes"_a, "active"_a, "vars"_a, "Global-memory cost of one warp's access.");
  m.def("occupancy", &occupancy, "cc"_a, "block"_a, "regs"_a, "smem"_a, "static_smem"_a,
        "carveout"_a.none(), "Blocks per SM, the limiter and advice, from the inputs as typed.");
  m.def("claims", &claims, "ids"_a, "The claims catalogue as the CLI's JSON entries.");
}

}  // namespace memhier::python
