// `memhier tune` (bench/tune.hpp): the family's tune hook at each shape, and its table.
#include "memhier/bench/tune.hpp"

#include <stdexcept>

namespace memhier::bench {

using report::Value;

bool tunable(const registry::Family& family) {
  return static_cast<bool>(family.tune);
}

void check_tune(const registry::Family& family, const std::vector<std::string>& shapes) {
  if (!tunable(family)) {
    std::string tuned;
    for (const registry::Family& f : registry::families())
      if (tunable(f)) tuned += (tuned.empty() ? "" : ", ") + f.name;
    throw std::invalid_argument(
        "'" + family.name + "' chooses its best rung by shape rules, " +
        "not by tuning; tuned families: " + (tuned.empty() ? "none" : tuned) + ".");
  }
  if (shapes.empty()) throw std::invalid_argument("tune needs at least one shape (--shapes).");
  registry::check_shapes(family, shapes);
}

std::vector<registry::TuneRecord> tune_family(
    const registry::Family& family, const std::vector<std::string>& shapes, bool retune,
    const std::function<void(const std::string&)>& progress) {
  check_tune(family, shapes);
  std::vector<registry::TuneRecord> out;
  for (const std::string& s : shapes) {
    progress(family.name + " " + s);
    out.push_back(family.tune(s, retune));
  }
  return out;
}

report::Section tune_section(const registry::Family& family,
                             const std::vector<registry::TuneRecord>& records) {
  report::Section s;
  s.id = "tune-" + family.name;
  s.title = family.title + ": best per shape";
  s.paragraphs.push_back(
      "What `best` runs at each shape on this card, kept in the tuning cache (per card and "
      "exact shape) for later calls and processes. A decision from the cache times nothing; a "
      "new one times the candidates the family's model of this card keeps (GEMM: tiles and "
      "waves on its SMs; stencil: shared memory, resident blocks and bytes in flight; "
      "transpose and reduction: all their rungs), each "
      "warmed up on a corner of the problem, run once, the close ones again. Its time is "
      "the wall time of the whole decision, scratch allocation included; of it, the GPU time "
      "is its launches' own (CUDA events), which a busy host does not stretch.");
  report::Table t;
  t.id = "tune-" + family.name;
  t.title = family.title + ": tuned configurations";
  t.columns = {{"shape", "", "shape"},           {"config", "", "config"},
               {"from", "", "source"},           {"timed", "", "timed"},
               {"candidates", "", "candidates"}, {"launches", "", "launches"},
               {"tuning", "ms", "tuning_ms"},    {"of it GPU", "ms", "gpu_ms"}};
  for (const registry::TuneRecord& r : records) {
    const char* source = r.cached ? "cache" : r.tuned ? "tuned now" : "untuned default";
    t.rows.push_back({Value::str(r.shape), Value::str(r.config), Value::str(source),
                      Value::integer(r.timed), Value::integer(r.candidates),
                      Value::integer(r.launches), Value::num(r.ms, 1), Value::num(r.gpu_ms, 1)});
  }
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace memhier::bench
