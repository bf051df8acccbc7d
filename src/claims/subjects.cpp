// The card each claim speaks of, keyed by claim id: a claim not listed is about any card. An
// absolute figure (a latency, a bandwidth, a size) names its card and is judged on that card
// alone; a ratio names its card for the reader and is judged on any.
#include <algorithm>
#include <string>
#include <vector>

#include "memhier/model/card.hpp"

#include "stated.hpp"

namespace memhier::claims {

Subject subject_of(ClaimId id) {
  const Subject h100 = Subject::named("H100", true);
  switch (id) {
    case ClaimId::latency_shared_32_cycles:
    case ClaimId::latency_l1_33_cycles_published:
    case ClaimId::latency_l2_265_530_cycles_published:
    case ClaimId::latency_hbm_650_690_cycles_published:
    case ClaimId::l2_size_50mb:
    case ClaimId::h100_device_figures:
    case ClaimId::l2_bandwidth_12tbs:
    case ClaimId::hbm_bandwidth_3350:
    case ClaimId::smem_228kb_per_sm:
    case ClaimId::dsmem_latency_remote_215_237_cycles_published:
    case ClaimId::dsmem_latency_own_49_cycles_published:
    case ClaimId::dsmem_all_to_all_3200_400_gbps_published:
    case ClaimId::fp16_tensor_590_flop_per_byte:
      return h100;
    case ClaimId::l2_far_half_1_8x_near_published:
    case ClaimId::l2_fits_working_set:
      return Subject::named("H100", false);
    case ClaimId::coalesced_88pct_of_peak:
    case ClaimId::coalescing_random_25x:
    case ClaimId::aos_soa_4x:
    case ClaimId::float4_1_25x:
    case ClaimId::padding_3x_matmul:
    case ClaimId::launch_bounds_occupancy_not_always_faster:
    case ClaimId::carveout_trades_l1_for_shared:
    case ClaimId::carveout_default_large_l1:
      return Subject::named("A100", false);
    case ClaimId::bank_stride_2_4_8:
    case ClaimId::transpose_naive_13pct:
    case ClaimId::tiling_15x_v100:
      return Subject::named("V100", false);
    case ClaimId::tma_hopper_adds_bulk_copies:
    case ClaimId::tma_offloads_addressing:
    case ClaimId::tma_tile_one_instruction_bounds:
    case ClaimId::tma_swizzle_oob_in_hardware:
      return Subject::architecture(9, false);
    default:
      return Subject::any();
  }
}

std::string Subject::describe() const {
  switch (kind) {
    case Kind::any_card:
      return "any card";
    case Kind::architecture:
      return "cc " + std::to_string(cc_major) + ".x";
    case Kind::card:
      return "the " + card;
  }
  return "any card";
}

bool Subject::covers(const RunningCard& running) const {
  switch (kind) {
    case Kind::any_card:
      return true;
    case Kind::architecture:
      return running.cc_major == cc_major;
    case Kind::card:
    {  // every word of the card's name among the device name's (the card table's rule)
      const std::vector<std::string> have = model::name_words(running.name);
      const std::vector<std::string> want = model::name_words(card);
      return std::all_of(want.begin(), want.end(), [&have](const std::string& w) {
        return std::find(have.begin(), have.end(), w) != have.end();
      });
    }
  }
  return true;
}

Check on_card(const Check& check, const RunningCard& running) {
  const Subject& s = claim(check.id).subject;
  if (!s.absolute || s.covers(running)) return check;
  Check out = check;
  out.verdict = Verdict::about_other_card;
  out.detail = "about " + s.describe() + ": not this card";
  return out;
}

}  // namespace memhier::claims
