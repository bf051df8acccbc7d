// What every family shares: building a variant, naming the known ones, reading a shape.
#include "memhier/registry/family.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

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

std::vector<std::int64_t> parse_shape(const std::string& shape, std::size_t expected_dims,
                                      const std::string& what, double max_product) {
  std::vector<std::int64_t> dims;
  std::size_t start = 0;
  while (true) {
    const std::size_t x = shape.find_first_of("xX", start);
    const std::string part = shape.substr(start, x == std::string::npos ? x : x - start);
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || part[0] == '+' || v < 1)
      throw std::invalid_argument(what + " shape '" + shape + "' is not " +
                                  std::to_string(expected_dims) +
                                  " positive integers joined by 'x'.");
    dims.push_back(v);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  if (dims.size() != expected_dims)
    throw std::invalid_argument(what + " shape '" + shape + "' needs " +
                                std::to_string(expected_dims) + " extents joined by 'x'.");
  double total = 1;
  for (std::int64_t d : dims) total *= static_cast<double>(d);
  if (total > max_product)
    throw std::invalid_argument(what + " shape '" + shape + "' is too large (more than " +
                                std::to_string(static_cast<long long>(max_product)) + ").");
  return dims;
}

}  // namespace memhier::registry
