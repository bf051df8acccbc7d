// memhier occupancy: how many blocks fit on an SM, what limits them, what would help.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/model/input.hpp"
#include "memhier/model/occupancy.hpp"
#include "memhier/report/model_records.hpp"

namespace memhier::cli {
namespace {

struct OccOptions {
  model::OccupancyText text;  ///< the options as typed, read by the model's reader
  std::string carveout;       ///< --carveout's text, when given (else the driver chooses)
  bool json = false;
};

std::string kib(int bytes) {
  return fmt::format("{:.1f} KiB", bytes / 1024.0);
}

int run_occupancy(const OccOptions& o) {
  const model::OccupancyInput in = model::read_occupancy(o.text, model::Face::cli);
  const model::ArchSpec* arch = in.arch;
  const model::LaunchResources& r = in.resources;
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
  sub->add_option("--cc", o->text.cc,
                  "Compute capability: 7.0 7.5 8.0 8.6 8.9 9.0 10.0 12.0 (default 9.0)");
  sub->add_option("--block", o->text.block,
                  "Threads per block, or a shape such as 32x8 (default 256)");
  sub->add_option("--regs", o->text.regs, "Registers per thread, 1..255 (default 32)");
  sub->add_option("--smem", o->text.smem,
                  "Dynamic shared memory per block: 48K, 100KiB, 4096 (default 0)");
  sub->add_option("--static-smem", o->text.static_smem,
                  "Static shared memory per block, at most 48K (default 0)");
  const CLI::Option* carveout = sub->add_option(
      "--carveout", o->carveout,
      "Preferred shared-memory carveout, percent 0..100 (default: the driver's choice)");
  sub->add_flag("--json", o->json, "Print JSON");
  sub->callback([o, carveout, &rc] {
    if (carveout->count() > 0) o->text.carveout = o->carveout;
    rc = run_occupancy(*o);
  });
}

}  // namespace memhier::cli
