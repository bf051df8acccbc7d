// memhier claims: the claims catalogue, no GPU needed; docs/claims.md is its --markdown.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/claims/catalogue.hpp"

namespace memhier::cli {
namespace {

struct ClaimsOptions {
  std::vector<std::string> ids;
  bool markdown = false;
  bool json = false;
};

std::string checked_by_text(const claims::Claim& c) {
  return c.checked_by.empty() ? "not measurable here: " + c.unmeasured : claims::checkers_text(c);
}

int run_claims(const ClaimsOptions& o) {
  if (o.markdown && o.json) throw UsageError("choose one of --markdown and --json.");
  if (o.markdown && !o.ids.empty())
    throw UsageError("--markdown prints the whole catalogue (docs/claims.md); drop the ids.");
  std::vector<const claims::Claim*> chosen;
  for (const std::string& id : o.ids) {
    const claims::Claim* c = claims::find(id);
    if (!c) throw UsageError("no claim '" + id + "'; 'memhier claims' lists every id.");
    chosen.push_back(c);
  }
  if (o.ids.empty())
    for (const claims::Claim& c : claims::catalogue()) chosen.push_back(&c);

  if (o.markdown) {
    std::cout << claims::catalogue_markdown();
  } else if (o.json) {
    nlohmann::json j = json_header("memhier.claims", make_meta(false));
    j["claims"] = nlohmann::json::array();
    for (const claims::Claim* c : chosen) j["claims"].push_back(claims::claim_record(*c));
    print_json(j);
  } else {
    for (const claims::Claim* c : chosen)
      std::cout << fmt::format("{}  ({})\n  {}\n  checked by: {}\n", claims::name(c->id), c->source,
                               c->text, checked_by_text(*c));
    if (o.ids.empty())
      std::cout << fmt::format("\n{} claims. memhier report judges each on this card.\n",
                               chosen.size());
  }
  return kExitOk;
}

}  // namespace

void add_claims(CLI::App& app, int& rc) {
  auto o = std::make_shared<ClaimsOptions>();
  CLI::App* sub = app.add_subcommand(
      "claims",
      "The source texts' numeric claims: id, source, text and what checks each (no GPU needed)");
  sub->add_option("ID", o->ids, "Only these claims (ids as listed)");
  sub->add_flag("--markdown", o->markdown, "Print the catalogue as Markdown (docs/claims.md)");
  sub->add_flag("--json", o->json, "Print JSON");
  sub->callback([o, &rc] { rc = run_claims(*o); });
}

}  // namespace memhier::cli
