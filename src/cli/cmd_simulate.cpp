// memhier simulate TARGET: each modeled kernel's L1 / L2 / DRAM traffic predicted on the
// CPU by the memory-system model, on this tree's default card or another (--card).
#include <memory>
#include <optional>
#include <stdexcept>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/bench/card_record.hpp"
#include "memhier/bench/simulate.hpp"
#include "memhier/model/card.hpp"
#include "memhier/model/input.hpp"

namespace memhier::cli {
namespace {

struct SimulateCliOptions {
  std::string target;
  std::vector<std::string> variants;
  std::string size;
  bool size_given = false;
  std::string card = "this";
  bool json = false;
};

int run_simulate_command(const SimulateCliOptions& o) {
  if (o.size_given && o.size.empty())
    throw UsageError("--size '' is empty; give a shape such as 1000x772, or leave --size out.");
  std::optional<model::Card> card;
  if (o.card == "this") {
    std::string why;
    card = bench::this_card(&why);
    if (!card) {
      std::string list;
      for (const model::Card& c : model::all_cards())
        list += (list.empty() ? "" : ", ") + c.key + " (" + c.arch().cc() + ")";
      throw NoDevice("--card this (the default) models the card in this machine, and " + why +
                     " Name a card instead: " + list + ".");
    }
  } else {
    card = model::parse_card(o.card, "--card", {"this"});
  }
  const std::vector<bench::SimulateItem> items =
      as_bad_input([&] { return bench::simulate(o.target, o.variants, o.size, *card); });
  report::Document doc;
  doc.title = "memhier simulate " + o.target;
  doc.meta = make_meta(false);
  doc.sections.push_back(bench::simulate_section(items, *card));
  print_document(doc, o.json);
  return kExitOk;
}

}  // namespace

void add_simulate(CLI::App& app, int& rc) {
  auto o = std::make_shared<SimulateCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "simulate",
      "Predict each kernel's L1 and L2 hit rates, L2<->SM sectors and DRAM bytes on the CPU");
  sub->footer(
      "Each kernel's global accesses come from its own index math (the replay behind `memhier "
      "profile`'s predictions). Blocks go to SMs round-robin in waves of SMs x resident "
      "blocks (occupancy model, 32 registers per thread assumed), warps on an SM interleaved "
      "one instruction at a time, caches cold; no sampling. Without --size each family runs "
      "at its comparison shapes: one of a few MB, inside any card's L2, one several times "
      "the largest L2 (GEMM: C of 128 MiB over K = 8).");
  sub->add_option("TARGET", o->target,
                  "A family with a stream model (transpose, elementwise, gemm, gemm_bf16, "
                  "reduction, stencil, softmax, histogram), or all")
      ->required();
  sub->add_option("--variant", o->variants, "Only these variants of a family (repeatable)");
  const CLI::Option* size =
      sub->add_option("--size", o->size, "The family's shape (default: its two comparison shapes)");
  sub->add_option("--card", o->card,
                  "The hierarchy to replay on: this (the card in this machine, with what "
                  "`memhier probe` measured of it), a card of the table (h100-sxm, h200, "
                  "a100-80gb, l4, b200, rtx5090, ...; `memhier simulate --help` lists them on "
                  "error), or a compute capability such as 8.0 (its first card) (default: this)");
  sub->add_flag("--json", o->json, "Print JSON");
  sub->callback([o, size, &rc] {
    o->size_given = size->count() > 0;
    rc = run_simulate_command(*o);
  });
}

}  // namespace memhier::cli
