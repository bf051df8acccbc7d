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

nb::dict shared_totals(const model::SharedAnalysis& a) {
  nb::dict d;
  d["wavefronts"] = a.wavefronts;
  d["ideal_wavefronts"] = a.ideal_wavefronts;
  d["conflicts"] = a.conflicts;
  d["degree"] = a.degree;
  return d;
}

nb::dict analyze_shared(const std::string& decl, const std::string& expr,
                        const std::vector<int>& block, int warp, bool store,
                        std::int64_t offset_bytes, std::uint32_t active,
                        const std::map<std::string, std::int64_t>& vars) {
  return model_errors([&] {
    const Prepared p = prepare(decl, expr, block, warp, store, offset_bytes, active, vars);
    const model::SharedAnalysis a = model::analyze_shared(p.access, p.ctx);
    nb::dict d = shared_totals(a);
    d["declaration"] = p.decl.text;
    d["access"] = expr;
    nb::list instructions;
    for (const auto& ic : a.per_instruction) {
      nb::dict i;
      i["member"] = ic.instruction.label;
      i["width_bytes"] = ic.instruction.width_bytes;
      i["wavefronts"] = ic.cost.wavefronts;
      i["ideal_wavefronts"] = ic.cost.ideal_wavefronts;
      i["conflicts"] = ic.cost.conflicts;
      i["degree"] = ic.cost.degree;
      nb::list banks, words;
      for (int l = 0; l < 32; ++l) {
        banks.append(ic.warp.active(l) ? nb::object(nb::int_(ic.cost.lane_bank[l])) : nb::none());
        words.append(ic.cost.bank_words[l]);
      }
      i["lane_bank"] = banks;
      i["bank_words"] = words;
      instructions.append(i);
    }
    d["instructions"] = instructions;
    nb::list fixes;
    if (a.conflicts > 0)
      for (const model::SharedFix& f : model::suggest_shared_fixes(p.decl, p.access, p.ctx)) {
        nb::dict fd = shared_totals(f.analysis);
        fd["kind"] = f.kind;
        fd["declaration"] = f.decl_text;
        fd["access"] = f.access_text;
        fd["note"] = f.note;
        fixes.append(fd);
      }
    d["fixes"] = fixes;
    return d;
  });
}

nb::dict analyze_global(const std::string& decl, const std::string& expr,
                        const std::vector<int>& block, int warp, bool store,
                        std::int64_t offset_bytes, std::uint32_t active,
                        const std::map<std::string, std::int64_t>& vars) {
  return model_errors([&] {
    const Prepared p = prepare(decl, expr, block, warp, store, offset_bytes, active, vars);
    const model::GlobalAnalysis a = model::analyze_global(p.access, p.ctx);
    nb::dict d;
    d["declaration"] = p.decl.text;
    d["access"] = expr;
    d["offset_bytes"] = offset_bytes;
    d["requests"] = a.requests;
    d["sectors"] = a.sectors;
    d["sectors_per_request"] = a.sectors_per_request;
    d["lines"] = a.lines;
    d["ideal_sectors"] = a.ideal_sectors;
    d["bytes_needed"] = a.bytes_needed;
    d["caching_utilization"] = a.caching_utilization;
    d["noncaching_utilization"] = a.noncaching_utilization;
    return d;
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
    nb::dict d;
    d["cc"] = arch->cc();
    d["block_threads"] = r.block_threads;
    d["regs_per_thread"] = r.regs_per_thread;
    d["dynamic_smem_bytes"] = r.dynamic_smem_bytes;
    d["static_smem_bytes"] = r.static_smem_bytes;
    d["carveout_percent"] = r.carveout_percent;
    d["blocks_per_sm"] = res.blocks_per_sm;
    d["active_warps"] = res.active_warps;
    d["max_warps"] = res.max_warps;
    d["occupancy"] = res.occupancy;
    d["limiter"] = model::to_string(res.limiter);
    nb::dict bounds;
    bounds["warps"] = res.blocks_by_warps;
    bounds["blocks"] = res.blocks_by_blocks;
    bounds["registers"] = res.blocks_by_registers;
    bounds["shared_memory"] = res.blocks_by_smem;
    d["bounds"] = bounds;
    d["regs_per_block"] = res.regs_per_block;
    d["smem_per_block"] = res.smem_per_block;
    d["smem_carveout_bytes"] = res.smem_carveout_bytes;
    d["advice"] = model::occupancy_advice(*arch, r, res);
    return d;
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
  for (const claims::Claim* c : chosen) {
    nb::list sources;
    for (const claims::SourceRef& r : claims::parse_sources(c->source)) {
      nb::dict s;
      s["origin"] = r.origin;
      s["section"] = r.section;
      sources.append(s);
    }
    nb::dict d;
    d["id"] = c->id;
    d["source"] = c->source;
    d["sources"] = sources;
    d["text"] = c->text;
    d["checked_by"] = nb::cast(c->checked_by);
    d["unmeasured"] = c->unmeasured;
    out.append(d);
  }
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
