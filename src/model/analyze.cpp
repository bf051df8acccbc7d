#include "memhier/model/analyze.hpp"

#include <algorithm>

namespace memhier::model {

Env lane_env(const WarpContext& ctx, int lane) {
  Env e;
  const std::int64_t tid = static_cast<std::int64_t>(ctx.warp) * kWarpSize + lane;
  e.lane = lane;
  e.warp = ctx.warp;
  e.tx = tid % ctx.block_x;
  e.ty = (tid / ctx.block_x) % ctx.block_y;
  e.tz = tid / (static_cast<std::int64_t>(ctx.block_x) * ctx.block_y);
  e.vars = ctx.vars;
  return e;
}

WarpAccess build_warp(const Access& access, const Instruction& instr, const WarpContext& ctx) {
  WarpAccess w;
  w.width_bytes = instr.width_bytes;
  w.is_store = ctx.is_store;
  w.active_mask = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const std::int64_t tid = static_cast<std::int64_t>(ctx.warp) * kWarpSize + lane;
    if (!((ctx.active_mask >> lane) & 1u) || tid >= ctx.block_threads()) continue;
    const std::int64_t off = access.element_offset(lane_env(ctx, lane));
    // Checked: a huge base offset plus a huge element offset must not wrap into a small
    // (or negative) address that the cost rules would price as if it were real.
    std::int64_t addr = 0;
    if (__builtin_add_overflow(ctx.offset_bytes, off, &addr) ||
        __builtin_add_overflow(addr, std::int64_t{instr.offset_bytes}, &addr))
      throw EvalError{"lane " + std::to_string(lane) + "'s address (base +" +
                      std::to_string(ctx.offset_bytes) + " B, element at +" + std::to_string(off) +
                      " B) overflows 64 bits"};
    if (addr < 0) throw EvalError{"lane " + std::to_string(lane) + " addresses byte " +
                                  std::to_string(addr) + ", before the start of memory."};
    w.address[lane] = static_cast<std::uint64_t>(addr);
    w.active_mask |= 1u << lane;
  }
  return w;
}

SharedAnalysis analyze_shared(const Access& access, const WarpContext& ctx) {
  SharedAnalysis a;
  for (const Instruction& instr : access.instructions()) {
    SharedInstructionCost c{instr, build_warp(access, instr, ctx), {}};
    c.cost = shared_cost(c.warp);
    a.wavefronts += c.cost.wavefronts;
    a.ideal_wavefronts += c.cost.ideal_wavefronts;
    a.conflicts += c.cost.conflicts;
    a.degree = std::max(a.degree, c.cost.degree);
    a.per_instruction.push_back(std::move(c));
  }
  return a;
}

GlobalAnalysis analyze_global(const Access& access, const WarpContext& ctx) {
  GlobalAnalysis a;
  for (const Instruction& instr : access.instructions()) {
    GlobalInstructionCost c{instr, build_warp(access, instr, ctx), {}};
    c.cost = global_cost(c.warp);
    a.requests += c.cost.requests;
    a.sectors += c.cost.sectors;
    a.lines += c.cost.lines;
    a.ideal_sectors += c.cost.ideal_sectors;
    a.bytes_needed += c.cost.bytes_needed;
    a.per_instruction.push_back(std::move(c));
  }
  if (a.requests > 0) {
    a.sectors_per_request = static_cast<double>(a.sectors) / a.requests;
    a.caching_utilization = static_cast<double>(a.bytes_needed) / (a.lines * 128.0);
    a.noncaching_utilization = static_cast<double>(a.bytes_needed) / (a.sectors * 32.0);
  }
  return a;
}

std::string decl_text(const std::string& type_name, const std::string& name,
                      const std::vector<std::int64_t>& dims) {
  // Plain strings, no iostream: from Python, after numpy was imported, an ostringstream
  // here crashed inside the locale's number formatting on the H100 host.
  std::string s = type_name + ' ' + name;
  for (std::int64_t d : dims) s += d < 0 ? std::string("[]") : "[" + std::to_string(d) + "]";
  return s;
}

namespace {

std::string access_text(const Decl& decl, const std::vector<std::string>& indices,
                        const std::string& member) {
  std::string s = decl.name;
  for (const std::string& i : indices) s += "[" + i + "]";
  if (!member.empty()) s += "." + member;
  return s;
}

bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// Re-parses a rewritten declaration and access and costs it; false if the rewrite
// leaves the declared bounds for some lane (then it is no fix).
bool try_fix(const std::string& kind, const std::string& dtext, const std::string& atext,
             const std::string& note, const WarpContext& ctx, SharedFix* out) {
  try {
    Decl d = parse_decl(dtext);
    Access a = Access::parse(atext, d);
    *out = SharedFix{kind, dtext, atext, note, analyze_shared(a, ctx)};
    return true;
  } catch (const ParseError&) {
    return false;
  } catch (const EvalError&) {
    return false;
  }
}

// Keeps the candidate with the fewest wavefronts; stops at the first conflict-free one.
void consider(const SharedFix& candidate, SharedFix* best, bool* have) {
  if (!*have || candidate.analysis.wavefronts < best->analysis.wavefronts) *best = candidate;
  *have = true;
}

}  // namespace

std::vector<SharedFix> suggest_shared_fixes(const Decl& decl, const Access& access,
                                            const WarpContext& ctx) {
  std::vector<SharedFix> fixes;
  if (access.bare() || decl.dims.empty()) return fixes;
  const std::vector<std::string>& idx = access.index_texts();
  const int words_per_elem = std::max(1, decl.elem_size / 4);
  // Elements that fill one 128-byte row of banks: the padding period for 1-D arrays.
  const std::int64_t elems_per_bank_row = std::max(1, 128 / std::max(decl.elem_size, 1));

  // Padding: grow the row pitch by the fewest elements that remove the conflicts.
  {
    SharedFix best;
    bool have = false;
    for (int pad = 1; pad <= 32 / std::min(words_per_elem, 32); ++pad) {
      std::vector<std::int64_t> dims = decl.dims;
      std::vector<std::string> nidx = idx;
      std::string note;
      // A pad that would overflow an extent is no fix (the declaration is already huge).
      if (dims.size() >= 2) {
        if (__builtin_add_overflow(dims.back(), std::int64_t{pad}, &dims.back())) continue;
        note = "pad the innermost dimension by " + std::to_string(pad) +
               (pad == 1 ? " element" : " elements") + "; indices stay the same";
      } else {
        // 1-D: skip `pad` elements after every bank row: i -> i + pad * (i / period).
        const std::string period = std::to_string(elems_per_bank_row);
        nidx[0] = "(" + idx[0] + ") + " + std::to_string(pad) + " * ((" + idx[0] + ") / " +
                  period + ")";
        if (dims[0] > 0) {
          const std::int64_t rows =
              dims[0] / elems_per_bank_row + (dims[0] % elems_per_bank_row != 0 ? 1 : 0);
          std::int64_t grow = 0;
          if (__builtin_mul_overflow(std::int64_t{pad}, rows, &grow) ||
              __builtin_add_overflow(dims[0], grow, &dims[0]))
            continue;
        }
        note = "insert " + std::to_string(pad) + " padding element(s) after every " + period +
               "; every access of " + decl.name + " must use the same mapping";
      }
      SharedFix f;
      if (!try_fix("padding", decl_text(decl.type_name, decl.name, dims),
                   access_text(decl, nidx, access.member()), note, ctx, &f))
        continue;
      consider(f, &best, &have);
      if (best.analysis.conflicts == 0) break;
    }
    if (have) fixes.push_back(best);
  }

  // XOR swizzle (2-D and up): permute the column by the row's low bits; no memory cost.
  if (decl.dims.size() >= 2 && is_pow2(decl.dims.back())) {
    SharedFix best;
    bool have = false;
    const std::int64_t width = decl.dims.back();
    const std::string& row = idx[idx.size() - 2];
    const std::string& col = idx.back();
    for (std::int64_t m = width; m >= 2; m /= 2) {
      std::vector<std::string> nidx = idx;
      nidx.back() = "(" + col + ") ^ ((" + row + ") % " + std::to_string(m) + ")";
      SharedFix f;
      if (!try_fix("xor-swizzle", decl.text, access_text(decl, nidx, access.member()),
                   "same declaration; every read and write of " + decl.name +
                       " must apply the same XOR to the column",
                   ctx, &f))
        continue;
      consider(f, &best, &have);
      if (best.analysis.conflicts == 0) break;
    }
    if (have) fixes.push_back(best);
  }
  return fixes;
}

}  // namespace memhier::model
