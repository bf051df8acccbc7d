#include "memhier/bench/card_record.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include <unistd.h>

#include "memhier/core/cache_dir.hpp"
#include "memhier/core/device.hpp"

namespace memhier::bench {
namespace {

constexpr const char* kFormat = "memhier-card-record/1";

double finite_or_zero(double v) {
  return std::isfinite(v) ? v : 0.0;
}

}  // namespace

model::CardRecord card_record(const ProbeRun& run, const std::string& when) {
  const core::DeviceInfo& d = run.context.device;
  model::CardRecord r;
  r.device_name = d.name;
  r.cc_major = d.cc_major;
  r.cc_minor = d.cc_minor;
  r.sms = d.sm_count;
  r.l2_bytes = d.l2_bytes;
  r.peak_dram_gbps = d.peak_dram_gbps();
  r.sm_clock_mhz = run.context.sm_clock_mhz;
  r.when = when;
  // The probe's own tier names (probe::merge_tiers): the best each tier reached.
  for (const probe::TierFigure& t : run.tiers) {
    if (t.tier == "HBM") {
      r.dram_gbps = finite_or_zero(t.bandwidth_gbps);
      r.dram_copy_gbps = finite_or_zero(t.copy_gbps);
      r.dram_latency_cycles = finite_or_zero(t.latency_cycles);
    } else if (t.tier == "L2") {
      r.l2_gbps = finite_or_zero(t.bandwidth_gbps);
      r.l2_latency_cycles = finite_or_zero(t.latency_cycles);
    } else if (t.tier == "shared") {
      r.shared_gbps = finite_or_zero(t.bandwidth_gbps);
    }
  }
  return r;
}

std::string card_record_path(const std::string& slug) {
  const std::string dir = core::cache_dir();
  return dir.empty() ? std::string() : dir + "/cards/" + slug + ".json";
}

bool save_card_record(const model::CardRecord& r, std::string* why) {
  const std::string path =
      card_record_path(model::card_slug(r.device_name, r.cc_major, r.cc_minor));
  if (path.empty()) {
    *why = "no cache folder: set MEMHIER_CACHE_DIR, XDG_CACHE_HOME or HOME.";
    return false;
  }
  const nlohmann::json j = {{"format", kFormat},
                            {"device_name", r.device_name},
                            {"cc", {r.cc_major, r.cc_minor}},
                            {"sms", r.sms},
                            {"l2_bytes", r.l2_bytes},
                            {"peak_dram_gbps", r.peak_dram_gbps},
                            {"dram_gbps", r.dram_gbps},
                            {"dram_copy_gbps", r.dram_copy_gbps},
                            {"l2_gbps", r.l2_gbps},
                            {"shared_gbps", r.shared_gbps},
                            {"dram_latency_cycles", r.dram_latency_cycles},
                            {"l2_latency_cycles", r.l2_latency_cycles},
                            {"sm_clock_mhz", r.sm_clock_mhz},
                            {"when", r.when}};
  std::error_code ec;
  const std::filesystem::path p(path);
  std::filesystem::create_directories(p.parent_path(), ec);
  const std::filesystem::path tmp = p.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    f << j.dump(2) << "\n";
    if (!f) {
      *why = "cannot write " + tmp.string() + ".";
      return false;
    }
  }
  std::filesystem::rename(tmp, p, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    *why = "cannot write " + p.string() + ": " + ec.message() + ".";
    return false;
  }
  return true;
}

bool save_card_record(const ProbeRun& run, const report::Meta& meta, std::string* why) {
  return save_card_record(card_record(run, "memhier " + meta.git_commit + ", " + meta.date_utc),
                          why);
}

std::optional<model::CardRecord> load_card_record(const std::string& slug) {
  const std::string path = card_record_path(slug);
  if (path.empty()) return std::nullopt;
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::stringstream text;
  text << f.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  if (!j.is_object() || j.value("format", "") != kFormat) return std::nullopt;
  try {
    model::CardRecord r;
    r.device_name = j.at("device_name").get<std::string>();
    r.cc_major = j.at("cc").at(0).get<int>();
    r.cc_minor = j.at("cc").at(1).get<int>();
    r.sms = j.at("sms").get<int>();
    r.l2_bytes = j.at("l2_bytes").get<long long>();
    r.peak_dram_gbps = j.at("peak_dram_gbps").get<double>();
    r.dram_gbps = j.at("dram_gbps").get<double>();
    r.dram_copy_gbps = j.value("dram_copy_gbps", 0.0);  // records saved before it have none
    r.l2_gbps = j.at("l2_gbps").get<double>();
    r.shared_gbps = j.value("shared_gbps", 0.0);  // records saved before it have none
    r.dram_latency_cycles = j.at("dram_latency_cycles").get<double>();
    r.l2_latency_cycles = j.at("l2_latency_cycles").get<double>();
    r.sm_clock_mhz = j.at("sm_clock_mhz").get<double>();
    r.when = j.at("when").get<std::string>();
    return r;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a damaged record is no record: the table's figures stand
  }
}

std::optional<model::Card> this_card(std::string* why) {
  const std::optional<core::DeviceInfo> d = core::query_device(0, why);
  if (!d) return std::nullopt;
  const std::optional<model::CardRecord> rec =
      load_card_record(model::card_slug(d->name, d->cc_major, d->cc_minor));
  const bool same = rec && rec->device_name == d->name && rec->sms == d->sm_count;
  return model::card_of_device(d->name, d->cc_major, d->cc_minor, d->sm_count, d->l2_bytes,
                               d->peak_dram_gbps(), same ? &*rec : nullptr);
}

claims::RunningCard running_card(const core::DeviceInfo& device) {
  return {device.name, device.cc_major, device.cc_minor, device.peak_dram_gbps()};
}

}  // namespace memhier::bench
