// The card record: what the probe measured of this card, kept per card in the user's cache
// folder, so that `memhier simulate --card this` and the profile's traffic comparison model
// the card that runs rather than a table entry.
#pragma once

#include <optional>
#include <string>

#include "memhier/bench/probes.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/core/device.hpp"
#include "memhier/model/card.hpp"
#include "memhier/report/document.hpp"

namespace memhier::bench {

/// The record of a probe run on its device (tiers the run did not measure stay 0).
model::CardRecord card_record(const ProbeRun& run, const std::string& when);

/// Where the record of the card with this slug lives ("" when there is no cache folder).
std::string card_record_path(const std::string& slug);

/// Writes the record (a temporary file renamed over the old one); false, with `why`, when
/// it cannot be written.
bool save_card_record(const model::CardRecord& record, std::string* why);

/// The record of a whole probe run, stamped with the commit and date of `meta`.
bool save_card_record(const ProbeRun& run, const report::Meta& meta, std::string* why);

/// The record of the card with this slug, when one was saved and reads back whole.
std::optional<model::CardRecord> load_card_record(const std::string& slug);

/// The current device as the models see it (model::card_of_device with its saved record);
/// nullopt with `why` set to one sentence when there is no GPU.
std::optional<model::Card> this_card(std::string* why);

/// The device as the claims judge it: its name, compute capability and datasheet DRAM peak.
claims::RunningCard running_card(const core::DeviceInfo& device);

}  // namespace memhier::bench
