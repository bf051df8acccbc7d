// What every family shares: building a variant, naming the known ones, reading a shape.
#include "memhier/registry/family.hpp"

#include <stdexcept>
#include <utility>

#include "memhier/model/input.hpp"

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
  std::vector<std::string> known;
  for (const Variant& x : family.variants) known.push_back(x.name);
  for (const std::string& v : variants) model::parse_choice(v, family.name + " variant", known);
}

void check_shapes(const Family& family, const std::vector<std::string>& shapes) {
  if (!family.check_shape) return;  // a family without the hook is checked by make_case
  for (const std::string& s : shapes) family.check_shape(s);
}

std::vector<std::int64_t> parse_shape(const std::string& shape, std::size_t expected_dims,
                                      const std::string& what, double max_product) {
  return model::parse_shape(shape, expected_dims, what, max_product);
}

}  // namespace memhier::registry
