// Declarations and access expressions: "float tile[32][33]" with "tile[lane][k]".
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace memhier::model {

/// A malformed declaration or expression: the message and the 0-based column of the
/// offending character in `input`.
struct ParseError {
  std::string message;
  int column = 0;
  std::string input;
  /// "message\n  input\n  ^" with the caret under the column.
  std::string pretty() const;
};

/// An expression that parsed but cannot be evaluated for some thread: index out of
/// the declared bounds, division by zero, an unknown variable.
struct EvalError {
  std::string message;
};

/// One field of a struct element type.
struct Member {
  std::string name;
  int offset = 0;  ///< bytes from the element's start
  int size = 0;    ///< bytes
};

/// A parsed declaration. Scalar and vector types are one "member" with an empty name.
struct Decl {
  std::string text;                ///< as given
  std::string type_name;           ///< "float", "float4", "struct {float x, y, z;}"
  std::string name;                ///< "tile"
  int elem_size = 0;               ///< bytes per element, including struct padding
  int elem_align = 0;
  std::vector<std::int64_t> dims;  ///< extents, outermost first; -1 for "[]"
  std::vector<Member> members;     ///< struct fields; empty for scalars and vectors
  /// The native widths one element is moved with (float3 -> {4,4,4}, float4 -> {16}).
  std::vector<int> native_widths;

  std::int64_t row_pitch_elems() const;  ///< extent of the innermost dimension (1 if 1-D unsized)
};

/// Parses a declaration: a type (char, signed/unsigned char, short, int, unsigned,
/// long, float, double, half, __half, bfloat16, int8_t..uint64_t, float2/3/4,
/// double2, int2/4, uint2/4, char4, or `struct {T a, b; U c;}`), a name, and zero or
/// more extents "[N]" (the outermost may be "[]"). Throws ParseError.
Decl parse_decl(const std::string& text);

/// The values an expression is evaluated with.
struct Env {
  std::int64_t lane = 0, tx = 0, ty = 0, tz = 0, warp = 0;
  std::map<std::string, std::int64_t> vars;  ///< from --set and --sweep
};

/// One memory instruction an access compiles to.
struct Instruction {
  std::string label;     ///< member name ("y") or "" for a whole scalar
  int offset_bytes = 0;  ///< from the element's start
  int width_bytes = 4;
};

class ExprNode;

/// An access "tile[lane][k]", "p[lane].y", or a bare element index "lane*2"
/// (into the flattened array). Integer arithmetic as in C on int64.
class Access {
 public:
  /// Throws ParseError (columns count from the start of `text`).
  static Access parse(const std::string& text, const Decl& decl);

  /// Byte offset of the accessed element's start from the array base, for one
  /// thread. Throws EvalError when an index leaves the declared bounds.
  std::int64_t element_offset(const Env& env) const;

  /// The instructions the access compiles to: one for a scalar, vector or member,
  /// one per member (or per native piece) for a whole struct or float3.
  const std::vector<Instruction>& instructions() const { return instructions_; }

  /// Source text of each index expression, outermost first (for rewriting fixes).
  const std::vector<std::string>& index_texts() const { return index_texts_; }
  const std::string& member() const { return member_; }
  bool bare() const { return bare_; }  ///< given as a bare element index

  /// Names of the variables the access mentions other than lane/tx/ty/tz/warp.
  std::vector<std::string> free_variables() const;

  const Decl& decl() const { return decl_; }

 private:
  Decl decl_;  // a copy: an Access stands on its own

  // The access as given: error messages quote its subexpressions.
  std::string text_;
  std::vector<std::shared_ptr<const ExprNode>> indices_;
  std::vector<std::string> index_texts_;
  std::string member_;
  bool bare_ = false;
  std::vector<Instruction> instructions_;
};

}  // namespace memhier::model
