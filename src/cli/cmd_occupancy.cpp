// memhier occupancy: how many blocks fit on an SM, what limits them, what would help.
#include <fmt/format.h>

#include <cctype>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/model/occupancy.hpp"
#include "memhier/registry/decimal.hpp"
#include "memhier/report/model_records.hpp"
#include "numbers.hpp"

namespace memhier::cli {
namespace {

struct OccOptions {
  std::string cc = "9.0";
  std::string block = "256";
  std::string regs = "32";
  std::string smem = "0";
  std::string static_smem = "0";
  std::string carveout;
  bool carveout_given = false;  ///< without --carveout the driver chooses
  bool json = false;
};

// A run of digits that starts with '0' and has more digits after it ("09.0", "sm_090").
bool has_leading_zero(const std::string& text) {
  for (std::size_t i = 0; i + 1 < text.size(); ++i)
    if (text[i] == '0' && std::isdigit(static_cast<unsigned char>(text[i + 1])) &&
        (i == 0 || !std::isdigit(static_cast<unsigned char>(text[i - 1]))))
      return true;
  return false;
}

std::string kib(int bytes) {
  return fmt::format("{:.1f} KiB", bytes / 1024.0);
}

int run_occupancy(const OccOptions& o) {
  // Strict like every number: "09.0" is refused, not read as 9.0.
  const model::ArchSpec* arch = has_leading_zero(o.cc) ? nullptr : model::find_arch(o.cc);
  if (!arch) {
    std::string known;
    for (const auto& a : model::all_archs()) known += (known.empty() ? "" : ", ") + a.cc();
    throw UsageError("--cc " + registry::quote_for_message(o.cc) +
                     " is not a known compute capability; known: " + known + ".");
  }
  const std::string on_arch = " on compute capability " + arch->cc();
  const std::vector<int> b = parse_block(o.block, "--block", arch->max_threads_per_block);
  model::LaunchResources r;
  r.block_threads = b[0] * b[1] * b[2];
  r.regs_per_thread = static_cast<int>(parse_int(o.regs, "--regs", 1, arch->max_regs_per_thread,
                                                 " (registers per thread" + on_arch + ")"));
  const std::string most = " (the most a block may use" + on_arch + ")";
  r.dynamic_smem_bytes =
      static_cast<int>(parse_size(o.smem, "--smem", arch->smem_per_block_optin, most));
  // Static __shared__ arrays are capped below the opt-in size (ptxas refuses more).
  r.static_smem_bytes = static_cast<int>(
      parse_size(o.static_smem, "--static-smem", arch->smem_per_block_default,
                 " (the most static shared memory a block may declare" + on_arch + ")"));
  r.carveout_percent =
      !o.carveout_given
          ? -1
          : static_cast<int>(parse_int(o.carveout, "--carveout", 0, 100, " (percent)"));
  model::OccupancyResult res;
  try {
    res = model::occupancy(*arch, r);
  } catch (const model::OccupancyError& e) {
    throw UsageError(e.message);
  }
  const std::string advice = model::occupancy_advice(*arch, r, res);
  if (o.json) {
    nlohmann::json j = json_header("memhier.occupancy", make_meta(false));
    j.update(report::occupancy_record(*arch, r, res, advice));
    print_json(j);
    return kExitOk;
  }
  std::cout << fmt::format(
      "compute capability {} ({}): block {} threads, {} registers/thread, {} shared/block "
      "({} static + {} dynamic), carveout {}\n",
      arch->cc(), arch->name, r.block_threads, r.regs_per_thread,
      kib(r.static_smem_bytes + r.dynamic_smem_bytes), kib(r.static_smem_bytes),
      kib(r.dynamic_smem_bytes),
      r.carveout_percent < 0 ? "default" : fmt::format("{}%", r.carveout_percent));
  std::cout << fmt::format("  blocks per SM   {}\n", res.blocks_per_sm);
  std::cout << fmt::format("  active warps    {} of {}\n", res.active_warps, res.max_warps);
  std::cout << fmt::format("  occupancy       {:.1f}%\n", 100.0 * res.occupancy);
  std::cout << fmt::format("  limiter         {}\n", model::to_string(res.limiter));
  std::cout << fmt::format(
      "  blocks allowed by each resource: warps {}, blocks {}, registers {} ({} per block), "
      "shared memory {} ({} per block of a {} carveout)\n",
      res.blocks_by_warps, res.blocks_by_blocks, res.blocks_by_registers, res.regs_per_block,
      res.blocks_by_smem, kib(res.smem_per_block), kib(res.smem_carveout_bytes));
  std::cout << "  advice          " << (advice.empty() ? "none: occupancy is 100%." : advice)
            << '\n';
  return kExitOk;
}

}  // namespace

void add_occupancy(CLI::App& app, int& rc) {
  auto o = std::make_shared<OccOptions>();
  CLI::App* sub = app.add_subcommand(
      "occupancy", "Blocks and warps per SM, the limiter, and the smallest change that helps");
  sub->add_option("--cc", o->cc,
                  "Compute capability: 7.0 7.5 8.0 8.6 8.9 9.0 10.0 12.0 (default 9.0)");
  sub->add_option("--block", o->block, "Threads per block, or a shape such as 32x8 (default 256)");
  sub->add_option("--regs", o->regs, "Registers per thread, 1..255 (default 32)");
  sub->add_option("--smem", o->smem,
                  "Dynamic shared memory per block: 48K, 100KiB, 4096 (default 0)");
  sub->add_option("--static-smem", o->static_smem,
                  "Static shared memory per block, at most 48K (default 0)");
  const CLI::Option* carveout = sub->add_option(
      "--carveout", o->carveout,
      "Preferred shared-memory carveout, percent 0..100 (default: the driver's choice)");
  sub->add_flag("--json", o->json, "Print JSON");
  sub->callback([o, carveout, &rc] {
    o->carveout_given = carveout->count() > 0;
    rc = run_occupancy(*o);
  });
}

}  // namespace memhier::cli
