// Claims know their card: an absolute figure about another card is not judged by this one,
// a ratio carries over, and verdicts from the device's properties are counted apart.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memhier/claims/catalogue.hpp"

namespace memhier::claims {
namespace {

const RunningCard kH200{"NVIDIA H200", 9, 0};
const RunningCard kH100{"NVIDIA H100 80GB HBM3", 9, 0};
const RunningCard kA100{"NVIDIA A100-SXM4-80GB", 8, 0};

Check reproduced(ClaimId id) {
  return {id, "3000 GB/s", {Verdict::reproduced, "reproduced (tolerance: within x1.25)"}};
}

TEST(ClaimSubjects, AnH100FigureOnAnH200IsAboutAnotherCard) {
  ASSERT_TRUE(claim(ClaimId::hbm_bandwidth_3350).subject.absolute);
  const Check c = on_card(reproduced(ClaimId::hbm_bandwidth_3350), kH200);
  EXPECT_EQ(c.verdict, Verdict::about_other_card);
  EXPECT_EQ(c.detail, "about the H100: not this card");
  EXPECT_EQ(c.measured, "3000 GB/s");  // what was measured stays shown
}

TEST(ClaimSubjects, AnH100FigureOnAnH100IsJudged) {
  const Check c = on_card(reproduced(ClaimId::hbm_bandwidth_3350), kH100);
  EXPECT_EQ(c.verdict, Verdict::reproduced);
  EXPECT_EQ(c.detail, "reproduced (tolerance: within x1.25)");
}

TEST(ClaimSubjects, ARatioAboutAnotherCardIsStillJudged) {
  const Subject& s = claim(ClaimId::padding_3x_matmul).subject;
  EXPECT_EQ(s.kind, Subject::Kind::card);
  EXPECT_EQ(s.card, "A100");
  EXPECT_FALSE(s.absolute);
  EXPECT_EQ(on_card(reproduced(ClaimId::padding_3x_matmul), kH200).verdict, Verdict::reproduced);
  EXPECT_EQ(on_card(reproduced(ClaimId::latency_l2_200_cycles), kA100).verdict,
            Verdict::reproduced);  // any card
}

TEST(ClaimSubjects, SubjectsCoverTheirCardsByNameOrArchitecture) {
  const Subject h100 = Subject::named("H100", true);
  EXPECT_TRUE(h100.covers(kH100));
  EXPECT_TRUE(h100.covers({"NVIDIA H100 PCIe", 9, 0}));
  EXPECT_FALSE(h100.covers(kH200));
  EXPECT_FALSE(Subject::named("A100", true).covers({"NVIDIA RTX A1000", 8, 6}));
  EXPECT_TRUE(Subject::architecture(9, true).covers(kH200));
  EXPECT_FALSE(Subject::architecture(9, true).covers(kA100));
  EXPECT_TRUE(Subject::any().covers(kA100));
  EXPECT_EQ(h100.describe(), "the H100");
  EXPECT_EQ(Subject::architecture(9, false).describe(), "cc 9.x");
  EXPECT_EQ(Subject::any().describe(), "any card");
}

TEST(ClaimSubjects, TheTallyCountsOtherCardsAndPropertiesApart) {
  report::Section s;
  Check props{ClaimId::smem_228kb_per_sm, "228 KiB per SM", {Verdict::reproduced, "reproduced"}};
  props.from_properties = true;
  add_checks(s, Checker::probe("bandwidth"), {reproduced(ClaimId::hbm_bandwidth_3350)});
  add_checks(s, Checker::probe("smem-carveout"), {props});

  const report::ClaimsTally on_h200 = tally({s}, kH200);
  EXPECT_EQ(on_h200.about_other_card, 2);  // both are the H100's own figures
  EXPECT_EQ(on_h200.reproduced, 0);
  EXPECT_EQ(on_h200.from_properties, 0);

  const report::ClaimsTally on_h100 = tally({s}, kH100);
  EXPECT_EQ(on_h100.about_other_card, 0);
  EXPECT_EQ(on_h100.reproduced, 1);
  EXPECT_EQ(on_h100.from_properties, 1);

  // The section shows the same verdicts and says which came from properties.
  const report::Section shown = claims_section({s}, "", kH200);
  const report::Table& t = shown.tables[0];
  int about = 0;
  for (const auto& row : t.rows) about += row[5].text == "about another card";
  EXPECT_EQ(about, 2);
  const report::Section here = claims_section({s}, "", kH100);
  bool labelled = false;
  for (const auto& row : here.tables[0].rows)
    labelled = labelled || (row[0].text == "smem-228kb-per-sm" &&
                            row[5].text == "reproduced (device properties)");
  EXPECT_TRUE(labelled);
}

}  // namespace
}  // namespace memhier::claims
