// The one reader of every string a user types: numbers, sizes, shapes, block shapes, masks,
// compute capabilities, cards and names chosen from a list. The command's options and the
// Python package's arguments both arrive here as text, so a value reads the same through
// either face; each refusal is an InputError holding one sentence that names the input and
// what is accepted.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "memhier/model/analyze.hpp"
#include "memhier/model/arch.hpp"
#include "memhier/model/card.hpp"
#include "memhier/model/occupancy.hpp"

namespace memhier::model {

/// Text that does not read as what it is for. An std::invalid_argument, so every face
/// treats it as bad input: the command exits 2, Python raises memhier.InputError (a
/// ValueError).
struct InputError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// A decimal integer as read from text, or why the text is not one.
struct Decimal {
  std::int64_t value = 0;
  /// Empty on success, else a phrase completing "'TEXT' ...": "has a leading zero".
  std::string problem;
  bool ok() const { return problem.empty(); }
};

/// Reads an optional '-' then decimal digits, nothing else (no spaces, '+', hex, exponent
/// or suffix). A leading zero ("010") is refused rather than read as octal 8 or decimal 10.
Decimal read_decimal(std::string_view text);

/// A finite decimal real as read from text, or why the text is not one.
struct DecimalReal {
  double value = 0;
  std::string problem;  ///< as Decimal::problem: "is not a decimal number"
  bool ok() const { return problem.empty(); }
};

/// Reads "-1.5", "0.25", "2e-3": an optional '-', an integer part as read_decimal reads it
/// (no leading zero), an optional ".DIGITS" and an optional exponent "e[+-]DIGITS".
/// Refuses spaces, a leading '+', hex, "inf", "nan" and a value that overflows a double.
DecimalReal read_decimal_real(std::string_view text);

/// `text` for a message: quoted, non-printable bytes as \xNN, cut to 64 characters,
/// so that a message about it stays one line.
std::string quote_for_message(std::string_view text);

/// Which face an input came through: it decides only how an input is named in a message
/// ("--static-smem" on the command line, "static_smem" in Python), never how it reads.
enum class Face { cli, python };

/// The name of input `python_name` ("static_smem") as `face` spells it ("--static-smem").
std::string input_name(const std::string& python_name, Face face);

/// `text` as a decimal integer in lo..hi, or InputError naming `what`; `why` (if any) is
/// appended to the range in messages, e.g. " (registers per thread on 9.0)".
std::int64_t parse_int(const std::string& text, const std::string& what, std::int64_t lo,
                       std::int64_t hi, const std::string& why = "");

/// Bytes from "48K", "48KB", "48KiB", "1M", "2G", "49152" (K = 1024, decimal digits), in
/// 0..hi.
std::int64_t parse_size(const std::string& text, const std::string& what, std::int64_t hi,
                        const std::string& why = "");

/// A 32-bit lane mask: "0xffff" (hex, as masks are written) or decimal, in 0..0xffffffff.
std::uint32_t parse_mask(const std::string& text, const std::string& what);

/// "32x8", "32x8x2", "256" -> {x, y, z}: each 1..1024, at most `max_threads` in all.
std::array<int, 3> parse_block(const std::string& text, const std::string& what,
                               int max_threads = 1024);

/// "4099x1031" or "268435456" -> exactly `expected_dims` positive decimal extents whose
/// product, checked for overflow, is at most `max_product` elements (infinity: unbounded).
/// `what` names the input ("softmax"), the message says "softmax shape '...'".
std::vector<std::int64_t> parse_shape(const std::string& text, std::size_t expected_dims,
                                      const std::string& what, double max_product = 4.0e9);

/// "a,b,c" -> {"a", "b", "c"}: a comma-separated list with no empty item ("64x64,,8x8" is
/// refused, naming `what`); the items are read by their own parser.
std::vector<std::string> split_list(const std::string& text, const std::string& what);

/// A compute capability ("9.0", "sm_90a", "90"); a leading zero ("09.0") is refused.
const ArchSpec& parse_arch(const std::string& text, const std::string& what);

/// A card of the card table by key, name, model number or compute capability (a table key
/// such as "h200", or "9.0"); `also` are the caller's own words, listed first among the
/// choices when the text names no card.
const Card& parse_card(const std::string& text, const std::string& what,
                       const std::vector<std::string>& also = {});

/// The position of `text` in `known` (exact match): a variant, a family, a mode. The
/// message lists every choice: "unknown softmax variant 'x'; known: a, b, c."
std::size_t parse_choice(const std::string& text, const std::string& what,
                         const std::vector<std::string>& known);

/// What `memhier occupancy` and `memhier.occupancy` take, as typed.
struct OccupancyText {
  std::string cc = "9.0";
  std::string block = "256";
  std::string regs = "32";
  std::string smem = "0";
  std::string static_smem = "0";
  std::optional<std::string> carveout;  ///< none: the driver's choice
};

/// An occupancy question read: the architecture and the launch's resources.
struct OccupancyInput {
  const ArchSpec* arch = nullptr;
  LaunchResources resources;
};

/// Reads every field of `text` (in the order above), naming inputs as `face` spells them.
OccupancyInput read_occupancy(const OccupancyText& text, Face face);

/// What `memhier analyze` and `memhier.analyze_shared/global` take besides the declaration,
/// the expression and the variables, as typed.
struct WarpText {
  std::string block = "32";
  std::string warp = "0";
  std::string offset_bytes = "0";
  std::string active = "0xffffffff";
};

/// The largest offset_bytes: 1 TiB, far past any alignment question the model answers.
inline constexpr std::int64_t kMaxOffsetBytes = std::int64_t{1} << 40;

/// The warp's context from `text` (block shape, warp, offset, active lanes); variables and
/// the store flag are the caller's.
WarpContext read_warp_context(const WarpText& text, Face face);

}  // namespace memhier::model
