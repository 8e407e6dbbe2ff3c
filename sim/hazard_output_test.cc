#include "sim/hazard_output.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;

HazardReport Raw() {
  HazardReport r;
  r.kind = HazardKind::kRaw;
  r.task = {7, "copy"};
  r.others = {{3, "writer0"}, {4, "writer1"}};
  r.tensor = {2, "scratch", 0x1000};
  r.region_begin = 0x1000 + 128;
  r.region_end = 0x1000 + 256;
  r.detail = "reads what unordered writers wrote";
  r.fix = "add deps=[writer0, writer1] to copy";
  return r;
}

TEST(HazardOutputTest, OneLinePerReportInOrder) {
  HazardOutput out;
  EXPECT_TRUE(out.empty());
  out.Add(Raw());
  HazardReport fs = Raw();
  fs.kind = HazardKind::kFalseSharing;
  fs.others.clear();
  fs.blocks = {{0, 24}, {1, 25}};
  out.Add(fs);
  ASSERT_EQ(out.size(), 2u);
  const std::string lines = out.Lines();
  EXPECT_EQ(lines.find("hazard: RAW"), 0u);
  EXPECT_NE(lines.find("\nhazard: false sharing"), std::string::npos);
  EXPECT_EQ(lines.back(), '\n');
  EXPECT_THAT(lines, HasSubstr("scratch"));
}

// A distinct race per tensor: `i` names tensor i.
HazardReport RawOn(size_t i) {
  HazardReport r = Raw();
  r.tensor.name = "t" + std::to_string(i);
  return r;
}

TEST(HazardOutputTest, StdoutStopsAtItsLimitAndSaysHowManyItLeftOut) {
  HazardOutput out;
  const size_t total = HazardOutput::kMaxPrinted + 7;
  for (size_t i = 0; i < total; ++i) out.Add(RawOn(i));
  EXPECT_EQ(out.size(), total);
  const std::string lines = out.Lines();
  size_t printed = 0;
  for (size_t at = lines.find("hazard: RAW"); at != std::string::npos;
       at = lines.find("hazard: RAW", at + 1)) {
    ++printed;
  }
  EXPECT_EQ(printed, HazardOutput::kMaxPrinted);
  EXPECT_THAT(
      lines,
      HasSubstr("hazard: 7 more not printed (the first 50 of 57 distinct hazards are above"));
  EXPECT_EQ(out.ToJson().size(), total);  // stats.json keeps them
}

TEST(HazardOutputTest, RepeatsOfOneRaceAreOneEntryWithACount) {
  // A loop repeating one race: the same task names, other instances.
  HazardOutput out;
  for (TaskSeq k = 0; k < 3000; ++k) {
    HazardReport r = Raw();
    r.task.seq = 100 + k;
    out.Add(r);
  }
  EXPECT_EQ(out.size(), 3000u);
  EXPECT_EQ(out.entries(), 1u);
  const nlohmann::json j = out.ToJson();
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["repeats"], 2999);
  EXPECT_EQ(j[0]["also"].size(), HazardOutput::kMaxAlso);
  EXPECT_EQ(j[0]["also"][0], 101);
  EXPECT_THAT(out.Lines(), HasSubstr("(and 2999 more like it, on tasks #101, #102,"));
  EXPECT_LT(j.dump().size(), 2000u);
}

TEST(HazardOutputTest, StoredEntriesAreCappedAndTheRestCounted) {
  HazardOutput out;
  const size_t total = HazardOutput::kMaxStored + 500;
  for (size_t i = 0; i < total; ++i) out.Add(RawOn(i));
  EXPECT_EQ(out.size(), total);
  EXPECT_EQ(out.entries(), HazardOutput::kMaxStored);
  EXPECT_EQ(out.not_stored(), 500u);
  EXPECT_EQ(out.ToJson().size(), HazardOutput::kMaxStored);
  EXPECT_THAT(out.Lines(), HasSubstr("hazard: 1450 more not printed (the first 50 of 1500 "));
}

TEST(HazardOutputTest, JsonNamesTasksTensorAndTheRegionInsideIt) {
  HazardOutput out;
  out.Add(Raw());
  const nlohmann::json j = out.ToJson();
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["kind"], "RAW");
  EXPECT_EQ(j[0]["task"]["name"], "copy");
  EXPECT_EQ(j[0]["others"].size(), 2u);
  EXPECT_EQ(j[0]["others"][1]["name"], "writer1");
  EXPECT_EQ(j[0]["tensor"], "scratch");
  EXPECT_EQ(j[0]["region"][0], 128);  // offsets inside the tensor
  EXPECT_EQ(j[0]["region"][1], 256);
  EXPECT_EQ(j[0]["line"], out.Lines().substr(0, out.Lines().size() - 1));
}

TEST(HazardOutputTest, EmptyRunGivesAnEmptyArray) {
  EXPECT_EQ(HazardOutput().ToJson(), nlohmann::json::array());
  EXPECT_EQ(HazardOutput().Lines(), "");
}

}  // namespace
}  // namespace pto
