// The card each claim speaks of, keyed by claim id, and the one rule that judges a check on
// the card that ran it. A claim not listed is about any card. A figure of the SM (a latency
// in cycles, a size per SM) names its architecture, which every card of it shares (the H100
// and the H200 are both sm_90); a figure of the memory system or of the whole card names the
// card. An absolute figure is judged on its subject alone, a share of a card's peak as a
// share of this card's datasheet peak, a ratio on any card.
#include <algorithm>
#include <string>
#include <vector>

#include "memhier/claims/judge.hpp"
#include "memhier/claims/ladders.hpp"
#include "memhier/model/arch.hpp"
#include "memhier/model/card.hpp"

#include "stated.hpp"

namespace memhier::claims {

Subject subject_of(ClaimId id) {
  using F = Subject::Figure;
  const Subject hopper = Subject::architecture(9, F::absolute);
  switch (id) {
    // The SM's own figures, stated on an H100 (or its table): every sm_90 card has them.
    case ClaimId::latency_shared_32_cycles:
    case ClaimId::latency_l1_33_cycles_published:
    case ClaimId::smem_228kb_per_sm:
    case ClaimId::dsmem_latency_remote_215_237_cycles_published:
    case ClaimId::dsmem_latency_own_49_cycles_published:
      return hopper;
    // The H100's memory system and datasheet: another card's L2, HBM and SM count differ.
    case ClaimId::latency_l2_265_530_cycles_published:
    case ClaimId::latency_hbm_650_690_cycles_published:
    case ClaimId::l2_size_50mb:
    case ClaimId::h100_device_figures:
    case ClaimId::l2_bandwidth_12tbs:
    case ClaimId::hbm_bandwidth_3350:
    case ClaimId::dsmem_all_to_all_3200_400_gbps_published:
    case ClaimId::fp16_tensor_590_flop_per_byte:
      return Subject::named("H100", F::absolute);
    case ClaimId::local_bandwidth_3350:  // 3.35 TB/s: the H100's datasheet peak
    case ClaimId::gemm_8pct_bandwidth:   // 278 of the H100's 3,350 GB/s
      return Subject::named("H100", F::share_of_peak);
    case ClaimId::l2_far_half_1_8x_near_published:
    case ClaimId::l2_fits_working_set:
      return Subject::named("H100", F::ratio);
    case ClaimId::coalesced_88pct_of_peak:
    case ClaimId::gemm_cublas_18500:
    case ClaimId::softmax_66pct_of_peak:
    case ClaimId::softmax_pytorch_1240:  // 1,240 of the A100's 2,039 GB/s
      return Subject::named("A100", F::share_of_peak);
    case ClaimId::coalescing_stride_2_half:
    case ClaimId::coalescing_stride_4_8:
    case ClaimId::coalescing_stride_32:
    case ClaimId::coalescing_random_25x:
    case ClaimId::aos_soa_4x:
    case ClaimId::float4_1_25x:
    case ClaimId::padding_3x_matmul:
    case ClaimId::gemm_naive_310:
    case ClaimId::gemm_tiled_2800:
    case ClaimId::gemm_register_tiled_6200:
    case ClaimId::gemm_cp_async_7100:
    case ClaimId::gemm_register_tiling_2_2x:
    case ClaimId::gemm_cp_async_1_15x:
    case ClaimId::cp_async_gemm_1_05x:
    case ClaimId::cp_async_flashattention_1_07x:
    case ClaimId::cp_async_reduction_1_09x:
    case ClaimId::softmax_parallel_max_2_1x:
    case ClaimId::softmax_warp_shuffle_1_2x:
    case ClaimId::softmax_float4_1_25x:
    case ClaimId::softmax_launch_bounds_1_12x:
    case ClaimId::softmax_ladder_3_6x:
    case ClaimId::launch_bounds_occupancy_not_always_faster:
    case ClaimId::l2_working_set_4mb:
    case ClaimId::l2_working_set_20mb:
    case ClaimId::l2_working_set_40mb:
    case ClaimId::l2_working_set_random_2gb:
    case ClaimId::carveout_trades_l1_for_shared:
    case ClaimId::carveout_default_large_l1:
      return Subject::named("A100", F::ratio);
    case ClaimId::transpose_naive_13pct:  // of the V100's 900 GB/s
    case ClaimId::transpose_tiled_64pct:
    case ClaimId::transpose_padded_83pct:
      return Subject::named("V100", F::share_of_peak);
    case ClaimId::bank_stride_2_4_8:
    case ClaimId::tiling_15x_v100:
      return Subject::named("V100", F::ratio);
    case ClaimId::readonly_cache_48kb_kepler:
      return Subject::architecture(3, F::absolute);
    case ClaimId::tma_hopper_adds_bulk_copies:
    case ClaimId::tma_offloads_addressing:
    case ClaimId::tma_tile_one_instruction_bounds:
    case ClaimId::tma_swizzle_oob_in_hardware:
    case ClaimId::dsmem_cluster_shares_shared_memory:
      return Subject::architecture(9, F::ratio);
    default:
      return Subject::any();
  }
}

std::string Subject::describe() const {
  switch (kind) {
    case Kind::any_card:
      return "any card";
    case Kind::architecture:
    {
      const model::ArchSpec* a = model::find_arch(cc_major, 0);
      const std::string sm = "sm_" + std::to_string(cc_major) + "0";
      return a ? a->name + " (" + sm + ")" : "cc " + std::to_string(cc_major) + ".x";
    }
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

namespace {

// "the H100's" from "the H100"; "Hopper (sm_90)'s".
std::string possessive(const Subject& s) {
  return s.describe() + "'s";
}

// A share of a card's peak, judged on `running`: the throughput measured here over this
// card's datasheet peak, against the claim's share of its own card's peak.
Check share_on_card(Check out, const Subject& s, const RunningCard& running) {
  const results::PeakShare& p = out.share;
  if (!p.measured()) return out;  // the check has no figure: its own verdict stands
  if (!(running.peak_dram_gbps > 0)) {
    out.set(results::not_measurable(
        "this card's datasheet DRAM bandwidth is unknown (the runtime reports no memory "
        "clock or bus width), so the share of its peak cannot be taken"));
    return out;
  }
  const double share = p.gbps / running.peak_dram_gbps;
  out.measured += "; " + judge_number(100 * share) + "% of this card's datasheet peak, " +
                  judge_number(running.peak_dram_gbps) + " GB/s (" + running.name + ")";
  Judgement j = judge_band(share, tolerance_band(out.id, p.claimed_lo, p.claimed_hi), true);
  if (j.verdict == Verdict::reproduced || j.verdict == Verdict::refuted)
    j.text += "; judged against this card's datasheet peak, the claim's share is of " +
              (p.claim_peak.empty() ? possessive(s) + " peak" : p.claim_peak);
  out.set(std::move(j));
  return out;
}

}  // namespace

Check on_card(const Check& check, const RunningCard& running) {
  if (!check.judged_on.empty()) return check;  // judged once, on the card that ran it
  Check out = check;
  out.judged_on = running.name.empty() ? "an unnamed card" : running.name;
  const Subject& s = claim(check.id).subject;
  switch (s.figure) {
    case Subject::Figure::ratio:
      return out;
    case Subject::Figure::absolute:
      if (s.covers(running)) return out;
      out.verdict = Verdict::about_other_card;
      out.detail = "about " + s.describe() + ": not this card";
      return out;
    case Subject::Figure::share_of_peak:
      if (out.share.measured()) return share_on_card(std::move(out), s, running);
      // The checker took the share of this card's own peak: say whose the claim's was.
      if (!s.covers(running) &&
          (out.verdict == Verdict::reproduced || out.verdict == Verdict::refuted))
        out.detail += "; a share of this card's peak, the claim's of " + possessive(s);
      return out;
  }
  return out;
}

}  // namespace memhier::claims
