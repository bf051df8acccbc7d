// Glue between the access expressions and the cost rules: evaluate an access for
// every lane of one warp, cost each instruction, and search for fixes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "memhier/model/access.hpp"
#include "memhier/model/expr.hpp"

namespace memhier::model {

/// Which threads form the warp being analyzed.
struct WarpContext {
  int block_x = 32, block_y = 1, block_z = 1;  ///< block shape; tx, ty, tz derive from it
  int warp = 0;                                ///< warp index within the block
  std::uint32_t active_mask = 0xffffffffu;     ///< lanes that execute the access
  std::int64_t offset_bytes = 0;               ///< base address of the array
  std::map<std::string, std::int64_t> vars;    ///< user variables (--set, --sweep)
  bool is_store = false;

  int block_threads() const { return block_x * block_y * block_z; }
};

/// Lane's coordinates in the block (lane, tx, ty, tz, warp) plus the user variables.
Env lane_env(const WarpContext& ctx, int lane);

/// Addresses of every active lane for one instruction of the access. Lanes past the
/// end of the block are inactive. Throws EvalError.
WarpAccess build_warp(const Access& access, const Instruction& instr, const WarpContext& ctx);

struct SharedInstructionCost {
  Instruction instruction;
  WarpAccess warp;
  SharedCost cost;
};

/// Shared-memory cost of every instruction of the access, plus their sums.
struct SharedAnalysis {
  std::vector<SharedInstructionCost> per_instruction;
  int wavefronts = 0, ideal_wavefronts = 0, conflicts = 0, degree = 0;
};
SharedAnalysis analyze_shared(const Access& access, const WarpContext& ctx);

struct GlobalInstructionCost {
  Instruction instruction;
  WarpAccess warp;
  GlobalCost cost;
};

struct GlobalAnalysis {
  std::vector<GlobalInstructionCost> per_instruction;
  int requests = 0, sectors = 0, lines = 0, ideal_sectors = 0, bytes_needed = 0;
  double sectors_per_request = 0.0;
  double caching_utilization = 0.0;
  double noncaching_utilization = 0.0;
};
GlobalAnalysis analyze_global(const Access& access, const WarpContext& ctx);

/// A conflict fix, re-analyzed: the rewritten declaration and access and their cost.
struct SharedFix {
  std::string kind;         ///< "padding" or "xor-swizzle"
  std::string decl_text;
  std::string access_text;
  std::string note;         ///< what else must change (e.g. every access uses the swizzle)
  SharedAnalysis analysis;
};

/// Padding and XOR-swizzle rewrites of a conflicted access, each re-analyzed; the
/// first conflict-free candidate of each kind, or the best one found when none is.
std::vector<SharedFix> suggest_shared_fixes(const Decl& decl, const Access& access,
                                            const WarpContext& ctx);

/// "float tile[32][33]" from its parts.
std::string decl_text(const std::string& type_name, const std::string& name,
                      const std::vector<std::int64_t>& dims);

}  // namespace memhier::model
