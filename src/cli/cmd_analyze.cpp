// memhier analyze shared|global DECL EXPR: what one warp's accesses cost.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/model/analyze.hpp"
#include "memhier/model/input.hpp"
#include "memhier/report/model_records.hpp"
#include "numbers.hpp"

namespace memhier::cli {
namespace {

struct AnalyzeOptions {
  bool shared = true;
  std::string decl, expr;
  model::WarpText warp;  ///< --block, --warp, --offset-bytes, --active as typed
  std::vector<std::string> sets;
  std::string sweep;
  bool sweeping = false;  ///< --sweep was given (an empty value is an error, not "no sweep")
  bool store = false;
  bool json = false;
};

struct Prepared {
  model::Decl decl;
  model::Access access;
  model::WarpContext ctx;
  std::string expr_text;
};

Prepared prepare(const AnalyzeOptions& o) {
  Prepared p;
  p.decl = model::parse_decl(o.decl);
  p.access = model::Access::parse(o.expr, p.decl);
  p.expr_text = o.expr;
  p.ctx = model::read_warp_context(o.warp, model::Face::cli);
  p.ctx.is_store = o.store;
  for (const std::string& s : o.sets) {
    auto [name, value] = parse_assignment(s, "--set");
    p.ctx.vars[name] = value;
  }
  return p;
}

// Every free variable needs a value before evaluation: say which one is missing.
void check_variables(const Prepared& p, const std::string& swept) {
  for (const std::string& v : p.access.free_variables())
    if (!p.ctx.vars.count(v) && v != swept)
      throw UsageError(fmt::format(
          "variable '{}' has no value; give it with --set {}=N or --sweep {}=A..B.", v, v, v));
}

// An analysis without its per-instruction detail (lane addresses): what a sweep row keeps.
template <class Analysis>
Analysis totals_only(Analysis a) {
  decltype(a.per_instruction)().swap(a.per_instruction);  // frees it; clear() would not
  return a;
}

// `text` with every line indented by two spaces: an array element as dump(2) nests it.
std::string indented(const std::string& text) {
  std::string out = "  ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

std::string instr_label(const model::Instruction& i) {
  return fmt::format("{}{}-byte {}", i.label.empty() ? "" : "." + i.label + ": ", i.width_bytes,
                     "access");
}

std::string lane_map(const model::WarpAccess& w, const std::array<int, 32>& value,
                     const char* what) {
  std::string s;
  for (int half = 0; half < 2; ++half) {
    s += "  lane ";
    for (int l = half * 16; l < half * 16 + 16; ++l) s += fmt::format("{:>3}", l);
    s += fmt::format("\n  {:<5}", what);
    for (int l = half * 16; l < half * 16 + 16; ++l)
      s += w.active(l) ? fmt::format("{:>3}", value[l]) : std::string("  -");
    s += '\n';
  }
  return s;
}

void print_shared(const Prepared& p, const model::SharedAnalysis& a,
                  const std::vector<model::SharedFix>& fixes) {
  std::cout << fmt::format("shared  {}  {}   (block {}x{}x{}, warp {})\n", p.decl.text, p.expr_text,
                           p.ctx.block_x, p.ctx.block_y, p.ctx.block_z, p.ctx.warp);
  for (const auto& ic : a.per_instruction) {
    if (a.per_instruction.size() > 1) std::cout << instr_label(ic.instruction) << '\n';
    std::cout << lane_map(ic.warp, ic.cost.lane_bank, "bank");
    std::cout << "  words per bank (worst phase):";
    for (int b = 0; b < 32; ++b)
      std::cout << (b % 16 == 0 ? "\n    " : " ") << fmt::format("{:>2}", ic.cost.bank_words[b]);
    std::cout << fmt::format(
        "\n  wavefronts {}  ideal {}  conflicts {}  degree {}-way  ({} phase{})\n",
        ic.cost.wavefronts, ic.cost.ideal_wavefronts, ic.cost.conflicts, ic.cost.degree,
        ic.cost.phases, ic.cost.phases > 1 ? "s" : "");
  }
  if (a.per_instruction.size() > 1)
    std::cout << fmt::format("total: wavefronts {}  ideal {}  conflicts {}  worst degree {}-way\n",
                             a.wavefronts, a.ideal_wavefronts, a.conflicts, a.degree);
  if (a.conflicts == 0) {
    std::cout << "verdict: conflict-free.\n";
    return;
  }
  std::cout << fmt::format(
      "verdict: {} extra wavefront{} ({}x the ideal); fixes, each re-analyzed:\n", a.conflicts,
      a.conflicts > 1 ? "s" : "",
      fmt::format("{:.2g}", static_cast<double>(a.wavefronts) / a.ideal_wavefronts));
  for (const auto& f : fixes)
    std::cout << fmt::format(
        "  {:<12} {}   {}\n  {:<12} -> wavefronts {}, conflicts {}{}; {}\n", f.kind, f.decl_text,
        f.access_text, "", f.analysis.wavefronts, f.analysis.conflicts,
        f.analysis.conflicts == 0 ? " (conflict-free)" : " (best found)", f.note);
  if (fixes.empty()) std::cout << "  (no padding or swizzle rewrite applies to a bare index)\n";
}

std::string global_verdict(const model::GlobalAnalysis& a) {
  if (a.requests == 0) return "no lane is active.";
  if (a.sectors == a.ideal_sectors && a.bytes_needed >= 32 * a.sectors)
    return "coalesced: every sector moved is fully used.";
  if (a.sectors == a.ideal_sectors)
    return fmt::format(
        "as few sectors as possible, but only {:.1f}% of the bytes moved are used "
        "(lanes share words: a broadcast).",
        100.0 * a.noncaching_utilization);
  const double over = static_cast<double>(a.sectors) / a.ideal_sectors;
  if (over <= 1.5)
    return fmt::format(
        "nearly coalesced: {} sectors where {} would do (misaligned base or a "
        "straddled boundary).",
        a.sectors, a.ideal_sectors);
  return fmt::format(
      "uncoalesced: {} sectors where {} would do ({:.1f}x the traffic); make "
      "consecutive lanes touch consecutive addresses.",
      a.sectors, a.ideal_sectors, over);
}

void print_global(const Prepared& p, const model::GlobalAnalysis& a) {
  std::cout << fmt::format("global  {}  {}   (block {}x{}x{}, warp {}, base +{} B)\n", p.decl.text,
                           p.expr_text, p.ctx.block_x, p.ctx.block_y, p.ctx.block_z, p.ctx.warp,
                           p.ctx.offset_bytes);
  for (const auto& ic : a.per_instruction) {
    if (a.per_instruction.size() > 1) std::cout << instr_label(ic.instruction) << '\n';
    std::array<int, 32> sector{};
    for (int l = 0; l < 32; ++l) sector[l] = static_cast<int>((ic.warp.address[l] / 32) % 1000);
    std::cout << lane_map(ic.warp, sector, "sect");
    if (a.per_instruction.size() > 1)
      std::cout << fmt::format(
          "  requests {}  sectors {}  lines {}  ideal sectors {}  bytes needed {}\n",
          ic.cost.requests, ic.cost.sectors, ic.cost.lines, ic.cost.ideal_sectors,
          ic.cost.bytes_needed);
  }
  std::cout << fmt::format(
      "requests {}  sectors {}  sectors/request {:.2f}  lines {}  ideal sectors {}  bytes needed "
      "{}\n"
      "bus utilization: caching loads (128 B lines) {:.1f}%, non-caching loads (32 B sectors) "
      "{:.1f}%\nverdict: {}\n",
      a.requests, a.sectors, a.sectors_per_request, a.lines, a.ideal_sectors, a.bytes_needed,
      100.0 * a.caching_utilization, 100.0 * a.noncaching_utilization, global_verdict(a));
}

int run_analyze(const AnalyzeOptions& o) {
  Prepared p = prepare(o);
  Sweep sweep;
  const bool sweeping = o.sweeping;
  if (sweeping) sweep = parse_sweep(o.sweep, "--sweep");
  check_variables(p, sweeping ? sweep.name : "");

  if (!sweeping) {
    if (o.shared) {
      const auto a = model::analyze_shared(p.access, p.ctx);
      const auto fixes = a.conflicts > 0 ? model::suggest_shared_fixes(p.decl, p.access, p.ctx)
                                         : std::vector<model::SharedFix>{};
      if (!o.json) {
        print_shared(p, a, fixes);
        return kExitOk;
      }
      nlohmann::json j = json_header("memhier.analyze.shared", make_meta(false));
      j.update(report::shared_record(p.decl.text, o.expr, a, fixes));
      print_json(j);
      return kExitOk;
    }
    const auto a = model::analyze_global(p.access, p.ctx);
    if (!o.json) {
      print_global(p, a);
      return kExitOk;
    }
    nlohmann::json j = json_header("memhier.analyze.global", make_meta(false));
    j.update(report::global_record(p.decl.text, o.expr, p.ctx.offset_bytes, a));
    j["verdict"] = global_verdict(a);
    print_json(j);
    return kExitOk;
  }

  // Sweep: one row per value of the swept variable. Every value is analyzed before anything
  // is printed (an error midway leaves no partial table); rows keep only the totals, and
  // JSON rows are printed one by one as print_json would print the array.
  std::vector<model::SharedAnalysis> shared_rows;
  std::vector<model::GlobalAnalysis> global_rows;
  for (std::int64_t i = 0; i < sweep.count(); ++i) {
    p.ctx.vars[sweep.name] = sweep.value(i);
    if (o.shared)
      shared_rows.push_back(totals_only(model::analyze_shared(p.access, p.ctx)));
    else
      global_rows.push_back(totals_only(model::analyze_global(p.access, p.ctx)));
  }
  if (!o.json)
    std::cout << (o.shared ? fmt::format("{:>8}  {:>10}  {:>5}  {:>9}  {:>6}\n", sweep.name,
                                         "wavefronts", "ideal", "conflicts", "degree")
                           : fmt::format("{:>8}  {:>8}  {:>7}  {:>9}  {:>5}  {:>8}  {:>11}\n",
                                         sweep.name, "requests", "sectors", "sect/req", "lines",
                                         "caching", "non-caching"));
  for (std::int64_t i = 0; i < sweep.count(); ++i) {
    const std::int64_t v = sweep.value(i);
    nlohmann::json row;
    row[sweep.name] = v;
    if (o.shared) {
      const auto& a = shared_rows[static_cast<std::size_t>(i)];
      row.update(report::shared_totals(a));
      if (!o.json)
        std::cout << fmt::format("{:>8}  {:>10}  {:>5}  {:>9}  {:>6}\n", v, a.wavefronts,
                                 a.ideal_wavefronts, a.conflicts, a.degree);
    } else {
      const auto& a = global_rows[static_cast<std::size_t>(i)];
      row.update(report::global_totals(a));
      if (!o.json)
        std::cout << fmt::format("{:>8}  {:>8}  {:>7}  {:>9.2f}  {:>5}  {:>7.1f}%  {:>10.1f}%\n", v,
                                 a.requests, a.sectors, a.sectors_per_request, a.lines,
                                 100.0 * a.caching_utilization, 100.0 * a.noncaching_utilization);
    }
    if (o.json) std::cout << (i == 0 ? "[\n" : ",\n") << indented(row.dump(2));
  }
  if (o.json) std::cout << "\n]\n";
  return kExitOk;
}

void add_kind(CLI::App& analyze, const char* name, bool shared, int& rc) {
  auto o = std::make_shared<AnalyzeOptions>();
  o->shared = shared;
  CLI::App* sub = analyze.add_subcommand(
      name, shared
                ? "Shared memory: banks, wavefronts, conflicts, and a fix when there are conflicts"
                : "Global memory: requests, sectors, lines, bus utilization, and a verdict");
  sub->add_option("DECL", o->decl,
                  "Declaration, e.g. 'float tile[32][33]', 'float4 v[]', "
                  "'struct {float x, y, z;} p[]'")
      ->required();
  sub->add_option("EXPR", o->expr,
                  "Access, e.g. 'tile[tx][ty]', 'p[lane].y', or a bare "
                  "element index 'lane*2'")
      ->required();
  sub->add_option("--block", o->warp.block,
                  "Block shape XxYxZ that defines tx, ty, tz (default 32)");
  sub->add_option("--warp", o->warp.warp, "Warp index within the block (default 0)");
  sub->add_option("--set", o->sets, "Give a variable a value: --set k=3 (repeatable)");
  const CLI::Option* sweep = sub->add_option(
      "--sweep", o->sweep, "One row per value: --sweep s=1..33[:step] (at most 1000000 values)");
  sub->add_option("--offset-bytes", o->warp.offset_bytes,
                  "Shift the array's base address by N bytes (0 to 1 TiB)");
  sub->add_option("--active", o->warp.active,
                  "Mask of active lanes, hex or decimal (default 0xffffffff)");
  sub->add_flag("--store", o->store, "Analyze a store instead of a load");
  sub->add_flag("--json", o->json, "Print JSON");
  sub->callback([o, sweep, &rc] {
    o->sweeping = sweep->count() > 0;
    rc = run_analyze(*o);
  });
}

}  // namespace

void add_analyze(CLI::App& app, int& rc) {
  CLI::App* analyze =
      app.add_subcommand("analyze", "Predict what one warp's memory accesses cost (no GPU needed)");
  analyze->require_subcommand(1);
  add_kind(*analyze, "shared", true, rc);
  add_kind(*analyze, "global", false, rc);
}

}  // namespace memhier::cli
