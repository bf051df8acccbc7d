// What every family shares: building a variant, naming the known ones, reading a shape.
#include "memhier/registry/family.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

#include "memhier/registry/decimal.hpp"

namespace memhier::registry {

Variant make_variant(std::string name, int rung, std::string technique, Claim claim,
                     const void* symbol, int block_threads, int dynamic_smem) {
  Variant v;
  v.name = std::move(name);
  v.rung = rung;
  v.technique = std::move(technique);
  v.claim = std::move(claim);
  v.symbol = symbol;
  v.block_threads = block_threads;
  v.dynamic_smem = dynamic_smem;
  return v;
}

void check_variants(const Family& family, const std::vector<std::string>& variants) {
  for (const std::string& v : variants) {
    if (std::any_of(family.variants.begin(), family.variants.end(),
                    [&](const Variant& x) { return x.name == v; }))
      continue;
    std::string known;
    for (const Variant& x : family.variants) known += (known.empty() ? "" : ", ") + x.name;
    throw std::invalid_argument("unknown " + family.name + " variant '" + v + "'; known: " + known +
                                ".");
  }
}

void check_shapes(const Family& family, const std::vector<std::string>& shapes) {
  if (!family.check_shape) return;  // a family without the hook is checked by make_case
  for (const std::string& s : shapes) family.check_shape(s);
}

std::vector<std::int64_t> parse_shape(const std::string& shape, std::size_t expected_dims,
                                      const std::string& what, double max_product) {
  const std::string head = what + " shape " + quote_for_message(shape);
  const std::string form = " is not " + std::to_string(expected_dims) +
                           " positive decimal integers (no leading zeros) joined by 'x'";
  std::vector<std::int64_t> dims;
  std::size_t start = 0;
  while (true) {
    const std::size_t x = shape.find_first_of("xX", start);
    const std::string part = shape.substr(start, x == std::string::npos ? x : x - start);
    const Decimal d = read_decimal(part);
    if (!d.ok())
      throw std::invalid_argument(head + form + " (extent " + quote_for_message(part) + " " +
                                  d.problem + ").");
    if (d.value < 1)
      throw std::invalid_argument(head + form + " (extent " + std::to_string(d.value) +
                                  " is not positive).");
    dims.push_back(d.value);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  if (dims.size() != expected_dims)
    throw std::invalid_argument(head + " needs " + std::to_string(expected_dims) +
                                " extents joined by 'x'.");
  // The element count, checked for overflow; an unbounded family (GEMM's m*n*k is work,
  // not storage) checks its own sizes.
  if (max_product < static_cast<double>(std::numeric_limits<std::int64_t>::max())) {
    std::int64_t total = 1;
    bool overflow = false;
    for (std::int64_t d : dims) overflow = overflow || __builtin_mul_overflow(total, d, &total);
    const auto limit = static_cast<std::int64_t>(max_product);
    if (overflow || total > limit)
      throw std::invalid_argument(
          head + " has " + (overflow ? std::string("more than 2^63-1") : std::to_string(total)) +
          " elements; at most " + std::to_string(limit) + " are allowed.");
  }
  return dims;
}

}  // namespace memhier::registry
