// Claims know their card: an absolute figure about another card is not judged by this one,
// a share of a card's peak is taken of this card's datasheet peak, a ratio carries over, a
// figure of the SM holds on every card of its architecture, and verdicts from the device's
// properties are counted apart. One judge: a section's claims table and the Claims section
// show the same verdict.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memhier/claims/catalogue.hpp"

namespace memhier::claims {
namespace {

const RunningCard kH200{"NVIDIA H200", 9, 0, 4814};
const RunningCard kH100{"NVIDIA H100 80GB HBM3", 9, 0, 3352};
const RunningCard kA100{"NVIDIA A100-SXM4-80GB", 8, 0, 2039};

Check reproduced(ClaimId id) {
  return {id, "3000 GB/s", {Verdict::reproduced, "reproduced (tolerance: within x1.25)"}};
}

// A check of a share-of-peak claim as its checker makes it: its own verdict (here against
// cudaMemcpy) and the throughput the judge divides by the running card's peak.
Check share_check(ClaimId id, double gbps, double claimed, const std::string& claim_peak) {
  Check c{id, "padded: 85% of cudaMemcpy D2D", {Verdict::reproduced, "reproduced (memcpy)"}};
  c.share = {gbps, claimed, claimed, claim_peak};
  return c;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(ClaimSubjects, AnH100FigureOnAnH200IsAboutAnotherCard) {
  ASSERT_TRUE(claim(ClaimId::hbm_bandwidth_3350).subject.absolute());
  const Check c = on_card(reproduced(ClaimId::hbm_bandwidth_3350), kH200);
  EXPECT_EQ(c.verdict, Verdict::about_other_card);
  EXPECT_EQ(c.detail, "about the H100: not this card");
  EXPECT_EQ(c.measured, "3000 GB/s");  // what was measured stays shown
  Check refuted{ClaimId::l2_bandwidth_12tbs, "8.4 TB/s", {Verdict::refuted, "refuted: 8.4"}};
  EXPECT_EQ(on_card(refuted, kH200).verdict, Verdict::about_other_card);
}

TEST(ClaimSubjects, AnH100FigureOnAnH100IsJudged) {
  const Check c = on_card(reproduced(ClaimId::hbm_bandwidth_3350), kH100);
  EXPECT_EQ(c.verdict, Verdict::reproduced);
  EXPECT_EQ(c.detail, "reproduced (tolerance: within x1.25)");
}

TEST(ClaimSubjects, AFigureOfTheSmHoldsOnEveryCardOfItsArchitecture) {
  const Subject& s = claim(ClaimId::smem_228kb_per_sm).subject;
  EXPECT_EQ(s.kind, Subject::Kind::architecture);
  EXPECT_EQ(s.describe(), "Hopper (sm_90)");
  EXPECT_EQ(on_card(reproduced(ClaimId::smem_228kb_per_sm), kH200).verdict, Verdict::reproduced);
  EXPECT_EQ(on_card(reproduced(ClaimId::latency_shared_32_cycles), kH200).verdict,
            Verdict::reproduced);
  const Check on_a100 = on_card(reproduced(ClaimId::smem_228kb_per_sm), kA100);
  EXPECT_EQ(on_a100.verdict, Verdict::about_other_card);
  EXPECT_EQ(on_a100.detail, "about Hopper (sm_90): not this card");
}

TEST(ClaimSubjects, ARatioAboutAnotherCardIsStillJudged) {
  const Subject& s = claim(ClaimId::padding_3x_matmul).subject;
  EXPECT_EQ(s.kind, Subject::Kind::card);
  EXPECT_EQ(s.card, "A100");
  EXPECT_EQ(s.figure, Subject::Figure::ratio);
  EXPECT_EQ(on_card(reproduced(ClaimId::padding_3x_matmul), kH200).verdict, Verdict::reproduced);
  EXPECT_EQ(on_card(reproduced(ClaimId::latency_l2_200_cycles), kA100).verdict,
            Verdict::reproduced);  // any card
}

// 3.35 TB/s is the H100's whole datasheet peak: on the H200 the same stream is judged as a
// share of the H200's 4814 GB/s, 1x within x/÷1.25 (80..125 %).
TEST(ClaimSubjects, AShareOfAnH100PeakIsJudgedWithTheH200Datasheet) {
  ASSERT_EQ(claim(ClaimId::local_bandwidth_3350).subject.figure, Subject::Figure::share_of_peak);
  const Check low = on_card(
      share_check(ClaimId::local_bandwidth_3350, 3410, 1.0, "the H100's 3,350 GB/s"), kH200);
  EXPECT_EQ(low.verdict, Verdict::refuted);  // 3410 / 4814 = 71 %: below 80 %
  EXPECT_TRUE(
      contains(low.measured, "70.8% of this card's datasheet peak, 4814 GB/s (NVIDIA H200)"))
      << low.measured;
  EXPECT_TRUE(contains(low.detail, "the claim's share is of the H100's 3,350 GB/s")) << low.detail;
  const Check high = on_card(
      share_check(ClaimId::local_bandwidth_3350, 4300, 1.0, "the H100's 3,350 GB/s"), kH200);
  EXPECT_EQ(high.verdict, Verdict::reproduced);  // 89 %
  // The same rule on the H100 itself: its own datasheet.
  EXPECT_EQ(on_card(share_check(ClaimId::local_bandwidth_3350, 3000, 1.0, ""), kH100).verdict,
            Verdict::reproduced);
  // The checker's verdict against cudaMemcpy does not survive: 13 % of the V100's 900 GB/s
  // is judged as 2000 / 4814 = 42 % of the H200's.
  const Check v100 = on_card(
      share_check(ClaimId::transpose_naive_13pct, 2000, 120.0 / 900, "the V100's 900 GB/s"), kH200);
  EXPECT_EQ(v100.verdict, Verdict::refuted);
  EXPECT_TRUE(contains(v100.detail, "the V100's 900 GB/s")) << v100.detail;
  EXPECT_EQ(
      on_card(share_check(ClaimId::transpose_naive_13pct, 600, 120.0 / 900, ""), kH200).verdict,
      Verdict::reproduced);  // 12.5 % against 13.3 % ±25 %
}

TEST(ClaimSubjects, AShareWithoutThisCardsPeakIsNotMeasurable) {
  const RunningCard unknown{"NVIDIA H200", 9, 0, 0};
  const Check c = on_card(share_check(ClaimId::local_bandwidth_3350, 4300, 1.0, ""), unknown);
  EXPECT_EQ(c.verdict, Verdict::not_measurable);
}

// A share the checker already took of this card's own peak (the fp32 peak of cuBLAS) keeps
// its verdict, and the row says whose peak the claim's was.
TEST(ClaimSubjects, AShareTakenByItsCheckerNamesTheClaimsCard) {
  const Check c = on_card(reproduced(ClaimId::gemm_cublas_18500), kH200);
  EXPECT_EQ(c.verdict, Verdict::reproduced);
  EXPECT_TRUE(contains(c.detail, "a share of this card's peak, the claim's of the A100's"))
      << c.detail;
}

TEST(ClaimSubjects, JudgingTwiceChangesNothing) {
  const Check once = on_card(
      share_check(ClaimId::local_bandwidth_3350, 3410, 1.0, "the H100's 3,350 GB/s"), kH200);
  const Check twice = on_card(once, kH200);
  EXPECT_EQ(twice.measured, once.measured);
  EXPECT_EQ(twice.detail, once.detail);
  EXPECT_EQ(twice.verdict, once.verdict);
}

TEST(ClaimSubjects, SubjectsCoverTheirCardsByNameOrArchitecture) {
  const Subject h100 = Subject::named("H100", Subject::Figure::absolute);
  EXPECT_TRUE(h100.covers(kH100));
  EXPECT_TRUE(h100.covers({"NVIDIA H100 PCIe", 9, 0}));
  EXPECT_FALSE(h100.covers(kH200));
  EXPECT_FALSE(
      Subject::named("A100", Subject::Figure::absolute).covers({"NVIDIA RTX A1000", 8, 6}));
  const Subject hopper = Subject::architecture(9, Subject::Figure::absolute);
  EXPECT_TRUE(hopper.covers(kH200));
  EXPECT_TRUE(hopper.covers(kH100));
  EXPECT_FALSE(hopper.covers(kA100));
  EXPECT_TRUE(Subject::any().covers(kA100));
  EXPECT_EQ(h100.describe(), "the H100");
  EXPECT_EQ(Subject::any().describe(), "any card");
}

// A claim whose text names a card speaks of a card or an architecture, never of any card.
TEST(ClaimSubjects, AClaimThatNamesACardHasASubject) {
  for (const Claim& c : catalogue()) {
    bool names = false;
    for (const char* card : {"H100", "A100", "V100", "Kepler"})
      names = names || contains(c.text, card);
    // Tables of several architectures and the A100-or-H100 tile claim speak of every card.
    const bool several = c.id == ClaimId::smem_per_block_by_arch ||
                         c.id == ClaimId::carveout_older_architectures ||
                         c.id == ClaimId::tile_32_optimal;
    if (names && !several) {
      EXPECT_NE(c.subject.kind, Subject::Kind::any_card) << name(c.id) << ": " << c.text;
    }
  }
}

TEST(ClaimSubjects, TheTallyCountsOtherCardsAndPropertiesApart) {
  report::Section s;
  Check props{ClaimId::smem_228kb_per_sm, "228 KiB per SM", {Verdict::reproduced, "reproduced"}};
  props.from_properties = true;
  add_checks(s, Checker::probe("bandwidth"), {reproduced(ClaimId::hbm_bandwidth_3350)});
  add_checks(s, Checker::probe("smem-carveout"), {props});

  const report::ClaimsTally on_h200 = tally({s}, kH200);
  EXPECT_EQ(on_h200.about_other_card, 1);  // the H100's HBM peak
  EXPECT_EQ(on_h200.reproduced, 0);
  EXPECT_EQ(on_h200.from_properties, 1);  // Hopper's 228 KB holds on the H200

  const report::ClaimsTally on_a100 = tally({s}, kA100);
  EXPECT_EQ(on_a100.about_other_card, 2);
  EXPECT_EQ(on_a100.from_properties, 0);

  const report::ClaimsTally on_h100 = tally({s}, kH100);
  EXPECT_EQ(on_h100.about_other_card, 0);
  EXPECT_EQ(on_h100.reproduced, 1);
  EXPECT_EQ(on_h100.from_properties, 1);

  // The section says which came from properties, and does not count it as reproduced.
  const report::Section here = claims_section({s}, "", kH200);
  bool labelled = false;
  for (const auto& row : here.tables[0].rows)
    labelled = labelled || (row[0].text == "smem-228kb-per-sm" &&
                            row[5].text == "reproduced (device properties)");
  EXPECT_TRUE(labelled);
  EXPECT_TRUE(contains(here.paragraphs[2], "0 reproduced")) << here.paragraphs[2];
  EXPECT_TRUE(contains(here.paragraphs[2], "1 judged from the device's properties"));
}

// How many claims speak of the card that ran: its name, its architecture or any card.
TEST(ClaimSubjects, TheTallySaysHowManyClaimsSpeakOfThisCard) {
  const report::ClaimsTally h200 = tally({}, kH200);
  const report::ClaimsTally h100 = tally({}, kH100);
  const report::ClaimsTally a100 = tally({}, kA100);
  const int all = static_cast<int>(catalogue().size());
  for (const report::ClaimsTally* t : {&h200, &h100, &a100}) {
    EXPECT_EQ(t->claims, all);
    EXPECT_EQ(t->of_this_card + t->of_other_card, all);
  }
  int h100_named = 0, hopper = 0;
  for (const Claim& c : catalogue()) {
    h100_named += c.subject.kind == Subject::Kind::card && c.subject.card == "H100";
    hopper += c.subject.kind == Subject::Kind::architecture && c.subject.cc_major == 9;
  }
  ASSERT_GT(h100_named, 0);
  ASSERT_GT(hopper, 0);
  EXPECT_EQ(h100.of_other_card + h100_named, h200.of_other_card);  // the H100's own
  EXPECT_GE(a100.of_other_card, hopper);                           // Hopper's are not the A100's
  EXPECT_EQ(tally({}).claims, 0);  // no card: nothing to count against
  const report::Section s = claims_section({}, "", kH200);
  EXPECT_TRUE(contains(s.paragraphs[3], std::to_string(h200.of_this_card) + " speak of this card"))
      << s.paragraphs[3];
}

// One judge: a probe section's own claims table shows the verdict the Claims section shows.
TEST(ClaimSubjects, TheSectionTableAndTheClaimsSectionAgree) {
  std::vector<report::Section> sections(2);
  sections[0].id = "bandwidth";
  add_checks(sections[0], Checker::probe("bandwidth"),
             {reproduced(ClaimId::hbm_bandwidth_3350), reproduced(ClaimId::l1_bandwidth_2tbs)});
  sections[1].id = "local-memory";
  add_checks(sections[1], Checker::probe("local-memory"),
             {share_check(ClaimId::local_bandwidth_3350, 3410, 1.0, "the H100's 3,350 GB/s")});
  judge_on_card(sections, kH200);

  const report::Section all = claims_section(sections, "", kH200);
  auto detail_of = [&all](const std::string& id) {
    for (const auto& row : all.tables[0].rows)
      if (row[0].text == id) return row[7].text;
    return std::string("missing");
  };
  int compared = 0;
  for (const report::Section& s : sections)
    for (const report::Table& t : s.tables) {
      ASSERT_EQ(t.id, s.id + "-claims");
      for (const auto& row : t.rows) {
        EXPECT_EQ(row[4].text, detail_of(row[0].text)) << row[0].text;
        ++compared;
      }
    }
  EXPECT_EQ(compared, 3);
  EXPECT_EQ(detail_of("hbm-bandwidth-3350"), "about the H100: not this card");
  EXPECT_EQ(sections[0].tables[0].rows[0][4].text, "about the H100: not this card");
  EXPECT_EQ(sections[1].checks[0].verdict, Verdict::refuted);
}

}  // namespace
}  // namespace memhier::claims
