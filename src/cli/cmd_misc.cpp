// memhier info and memhier list.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/core/device.hpp"
#include "memhier/model/card.hpp"
#include "memhier/model/input.hpp"
#include "memhier/registry/registry.hpp"

namespace memhier::cli {

void add_info(CLI::App& app, int& rc) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("info", "The GPU and CUDA toolkit this machine has");
  sub->add_flag("--json", *json, "Print JSON");
  sub->callback([json, &rc] {
    const report::Meta meta = make_meta(false);
    const core::Versions v = core::cuda_versions();
    std::string why;
    const auto dev = core::query_device(0, &why);
    if (*json) {
      nlohmann::json j = json_header("memhier.info", meta);
      j["runtime"] = v.runtime;
      j["driver"] = v.driver;
      if (dev) {
        j["device"] = {{"name", dev->name},
                       {"cc", fmt::format("{}.{}", dev->cc_major, dev->cc_minor)},
                       {"sms", dev->sm_count},
                       {"sm_clock_khz", dev->sm_clock_khz},
                       {"mem_clock_khz", dev->mem_clock_khz},
                       {"mem_bus_width_bits", dev->mem_bus_width_bits},
                       {"peak_dram_gbps", dev->peak_dram_gbps()},
                       {"global_mem_bytes", dev->global_mem_bytes},
                       {"l2_bytes", dev->l2_bytes},
                       {"persisting_l2_max_bytes", dev->persisting_l2_max_bytes},
                       {"smem_per_block", dev->smem_per_block},
                       {"smem_per_block_optin", dev->smem_per_block_optin},
                       {"smem_per_sm", dev->smem_per_sm},
                       {"regs_per_sm", dev->regs_per_sm},
                       {"max_threads_per_sm", dev->max_threads_per_sm},
                       {"max_blocks_per_sm", dev->max_blocks_per_sm},
                       {"ecc", dev->ecc},
                       {"pci_bus_id", dev->pci_bus_id}};
        // The card's record folder (docs/results/<card>/) and its table entry, if any.
        const model::Card* card = model::card_for_device(dev->name, dev->cc_major, dev->cc_minor);
        j["card"] = model::card_slug(dev->name, dev->cc_major, dev->cc_minor);
        j["card_table_entry"] = card ? nlohmann::json(card->name) : nlohmann::json(nullptr);
      } else {
        j["device"] = nullptr;
        j["no_device_reason"] = why;
      }
      print_json(j);
      rc = kExitOk;
      return;
    }
    std::cout << fmt::format("memhier {}  built with {}  runtime {}  driver {}\n", meta.version,
                             meta.toolkit, v.runtime.empty() ? "?" : v.runtime,
                             v.driver.empty() ? "none" : v.driver);
    if (!dev) {
      std::cout << "No GPU: " << why
                << " Without one, analyze, occupancy, simulate --card NAME, claims, list and "
                   "report --no-gpu work (the CPU models and the catalogue); probe, bench, "
                   "profile and report measure and need a GPU.\n";
      rc = kExitOk;
      return;
    }
    std::cout << fmt::format(
        "GPU 0: {} (compute capability {}.{}), {} SMs at up to {} MHz\n"
        "  memory {:.1f} GiB, {}-bit bus at {} MHz: {:.0f} GB/s peak (datasheet)\n"
        "  L2 {:.1f} MiB (persisting up to {:.1f} MiB), shared memory {:.0f} KiB/SM, "
        "{:.0f} KiB/block ({:.0f} KiB opt-in)\n"
        "  {} registers/SM, {} threads/SM, {} blocks/SM, ECC {}\n",
        dev->name, dev->cc_major, dev->cc_minor, dev->sm_count, dev->sm_clock_khz / 1000,
        static_cast<double>(dev->global_mem_bytes) / double(1 << 30), dev->mem_bus_width_bits,
        dev->mem_clock_khz / 1000, dev->peak_dram_gbps(), dev->l2_bytes / double(1 << 20),
        dev->persisting_l2_max_bytes / double(1 << 20), dev->smem_per_sm / 1024.0,
        dev->smem_per_block / 1024.0, dev->smem_per_block_optin / 1024.0, dev->regs_per_sm,
        dev->max_threads_per_sm, dev->max_blocks_per_sm, dev->ecc ? "on" : "off");
    const model::Card* card = model::card_for_device(dev->name, dev->cc_major, dev->cc_minor);
    std::cout << fmt::format("  card record: {}{}\n",
                             model::card_slug(dev->name, dev->cc_major, dev->cc_minor),
                             card ? " (the card table's " + card->name + ")"
                                  : " (not in the card table: the models use what it measures)");
    rc = kExitOk;
  });
}

void add_list(CLI::App& app, int& rc) {
  auto json = std::make_shared<bool>(false);
  auto family = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("list", "The registered kernels and probes");
  sub->add_option("family", *family, "Only this family's entries (transpose, latency, ...)");
  sub->add_flag("--json", *json, "Print JSON");
  sub->callback([json, family, &rc] {
    std::vector<registry::Entry> entries = registry::entries();
    if (!family->empty()) {
      std::vector<std::string> families;
      for (const auto& e : entries)
        if (std::find(families.begin(), families.end(), e.family) == families.end())
          families.push_back(e.family);
      model::parse_choice(*family, "family", families);
      entries.erase(std::remove_if(entries.begin(), entries.end(),
                                   [&](const registry::Entry& e) { return e.family != *family; }),
                    entries.end());
    }
    if (*json) {
      nlohmann::json j = json_header("memhier.list", make_meta(false));
      j["entries"] = nlohmann::json::array();
      for (const auto& e : entries)
        j["entries"].push_back(
            {{"kind", e.kind},
             {"family", e.family},
             {"name", e.name},
             {"rung", e.rung},
             {"technique", e.technique},
             {"claim", {{"source", claims::cite(e.claim.source)}, {"text", e.claim.text}}}});
      print_json(j);
    } else if (entries.empty()) {
      std::cout << "No kernels or probes are registered in this build yet.\n";
    } else {
      for (const auto& e : entries)
        std::cout << fmt::format("{:<6} {:<14} {:<22} {}\n", e.kind, e.family, e.name, e.technique);
    }
    rc = kExitOk;
  });
}

}  // namespace memhier::cli
