// Fuzz target for the declaration and access-expression parser and its evaluator.
// Input: "<declaration>\n<access>\n<bytes that pick variable values>". ParseError and
// EvalError are the expected answers to bad input; any other exception escapes (a bug),
// and a broken invariant aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "memhier/model/expr.hpp"

namespace {

using memhier::model::Access;
using memhier::model::Decl;
using memhier::model::Env;
using memhier::model::EvalError;
using memhier::model::parse_decl;
using memhier::model::ParseError;

[[noreturn]] void broken(const char* what, const std::string& decl, const std::string& access) {
  std::fprintf(stderr, "invariant broken: %s\n  decl:   %s\n  access: %s\n", what, decl.c_str(),
               access.c_str());
  std::abort();
}

// Every ParseError must point inside (or just past) its input and render.
void check_parse_error(const ParseError& e, const std::string& input, const std::string& decl,
                       const std::string& access) {
  if (e.message.empty()) broken("empty ParseError message", decl, access);
  if (e.input != input) broken("ParseError.input is not the parsed text", decl, access);
  if (e.column < 0 || static_cast<std::size_t>(e.column) > input.size())
    broken("ParseError column outside the input", decl, access);
  const std::string p = e.pretty();
  if (p.find('^') == std::string::npos) broken("pretty() without a caret", decl, access);
}

/// Reads little-endian values from the tail of the input, then zeros.
class ByteSource {
 public:
  ByteSource(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::int64_t value() {
    // A mix of small numbers (indices), edge values (overflow paths) and raw bits.
    switch (byte() % 8) {
      case 0:
        return std::numeric_limits<std::int64_t>::max();
      case 1:
        return std::numeric_limits<std::int64_t>::min();
      case 2:
        return -static_cast<std::int64_t>(byte());
      case 3: {
        std::uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
        return static_cast<std::int64_t>(v);
      }
      default:
        return byte() % 64;
    }
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

std::int64_t total_elements(const Decl& d, bool* bounded) {
  std::int64_t total = 1;
  *bounded = true;
  for (const std::int64_t e : d.dims) {
    if (e < 0 || __builtin_mul_overflow(total, e, &total)) *bounded = false;
  }
  return total;
}

void check_decl(const Decl& d, const std::string& text) {
  const auto bad = [&](const char* what) { broken(what, text, "-"); };
  if (d.elem_size <= 0 || d.elem_align <= 0) bad("non-positive element size or alignment");
  if ((d.elem_align & (d.elem_align - 1)) != 0 || d.elem_align > 16) bad("odd alignment");
  if (d.elem_size % d.elem_align != 0) bad("size not a multiple of alignment");
  long widths = 0;
  for (const int w : d.native_widths) {
    if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16) bad("native width not 1/2/4/8/16");
    widths += w;
  }
  if (widths > d.elem_size) bad("native widths exceed the element");
  int end = 0;
  for (const auto& m : d.members) {
    if (m.offset < end || m.size <= 0 || m.offset + m.size > d.elem_size)
      bad("member overlaps or leaves the element");
    end = m.offset + m.size;
  }
  for (std::size_t i = 0; i < d.dims.size(); ++i)
    if (d.dims[i] == 0 || d.dims[i] < -1 || (d.dims[i] == -1 && i != 0)) bad("bad extent");
  if (d.name.empty()) bad("empty name");

  // The canonical type name must parse back to the same layout.
  std::string again = d.type_name + " " + d.name;
  for (const std::int64_t e : d.dims) again += e < 0 ? "[]" : "[" + std::to_string(e) + "]";
  const Decl r = parse_decl(again);  // a ParseError here escapes as a bug
  if (r.elem_size != d.elem_size || r.dims != d.dims || r.native_widths != d.native_widths ||
      r.members.size() != d.members.size())
    bad("canonical type name does not round-trip");
}

// The access rebuilt from its parts; it must mean the same thing.
std::string rebuild(const Access& a) {
  if (a.bare()) return a.index_texts().at(0);
  std::string s = a.decl().name;
  for (const std::string& t : a.index_texts()) s += "[" + t + "]";
  if (!a.member().empty()) s += "." + a.member();
  return s;
}

void exercise_access(const std::string& access_text, const Decl& d, const std::string& decl_text,
                     ByteSource& bytes) {
  Access a;
  try {
    a = Access::parse(access_text, d);
  } catch (const ParseError& e) {
    check_parse_error(e, access_text, decl_text, access_text);
    return;
  }
  const auto bad = [&](const char* what) { broken(what, decl_text, access_text); };
  if (a.index_texts().size() != (a.bare() ? 1 : d.dims.size())) bad("index count");
  if (a.instructions().empty()) bad("no instructions");
  for (const auto& in : a.instructions())
    if (in.offset_bytes < 0 || in.width_bytes <= 0 ||
        in.offset_bytes + in.width_bytes > d.elem_size)
      bad("instruction outside the element");
  const std::vector<std::string> vars = a.free_variables();
  for (std::size_t i = 1; i < vars.size(); ++i)
    if (!(vars[i - 1] < vars[i])) bad("free variables not sorted and unique");

  const Access twin = Access::parse(rebuild(a), d);  // a ParseError here escapes as a bug
  bool bounded = false;
  const std::int64_t total = total_elements(d, &bounded);

  for (int lane = 0; lane < 32; lane += 1 + bytes.byte() % 8) {
    Env env;
    env.lane = lane;
    env.tx = lane + 32 * (bytes.byte() % 4);
    env.ty = bytes.byte() % 8;
    env.tz = bytes.byte() % 2;
    env.warp = bytes.byte() % 32;
    // Leave a variable unset now and then: the unknown-variable path.
    for (const std::string& v : vars)
      if (bytes.byte() % 16 != 0) env.vars[v] = bytes.value();
    std::int64_t off = 0, twin_off = 0;
    bool ok = true, twin_ok = true;
    try {
      off = a.element_offset(env);
    } catch (const EvalError& e) {
      if (e.message.empty()) bad("empty EvalError message");
      ok = false;
    }
    try {
      twin_off = twin.element_offset(env);
    } catch (const EvalError&) {
      twin_ok = false;
    }
    if (ok != twin_ok || (ok && off != twin_off)) bad("rebuilt access evaluates differently");
    if (!ok) continue;
    if (off < 0 || off % d.elem_size != 0) bad("offset negative or not element-aligned");
    if (bounded && off / d.elem_size >= total) bad("offset past the end of the array");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t nl1 = input.find('\n');
  std::string decl_text = "float tile[32][33]", access_text = input;
  std::size_t tail = size;
  if (nl1 != std::string::npos) {
    decl_text = input.substr(0, nl1);
    const std::size_t nl2 = input.find('\n', nl1 + 1);
    access_text =
        input.substr(nl1 + 1, nl2 == std::string::npos ? std::string::npos : nl2 - nl1 - 1);
    if (nl2 != std::string::npos) tail = nl2 + 1;
  }
  ByteSource bytes(data + tail, size - tail);

  Decl decl;
  bool have_decl = true;
  try {
    decl = parse_decl(decl_text);
  } catch (const ParseError& e) {
    check_parse_error(e, decl_text, decl_text, "-");
    have_decl = false;
  }
  if (have_decl) {
    check_decl(decl, decl_text);
    exercise_access(access_text, decl, decl_text, bytes);
  }
  // The expression parser also meets fixed shapes, so a broken declaration does not
  // leave it unexercised.
  static const Decl fixed[] = {parse_decl("float tile[32][33]"),
                               parse_decl("struct {float x, y, z;} p[64]"),
                               parse_decl("extern __shared__ int s[]")};
  for (const Decl& d : fixed) exercise_access(access_text, d, d.text, bytes);
  return 0;
}
