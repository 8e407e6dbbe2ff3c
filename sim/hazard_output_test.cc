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

TEST(HazardOutputTest, StdoutStopsAtItsLimitAndSaysHowManyItLeftOut) {
  HazardOutput out;
  const size_t total = HazardOutput::kMaxPrinted + 7;
  for (size_t i = 0; i < total; ++i) out.Add(Raw());
  EXPECT_EQ(out.size(), total);
  const std::string lines = out.Lines();
  size_t printed = 0;
  for (size_t at = lines.find("hazard: RAW"); at != std::string::npos;
       at = lines.find("hazard: RAW", at + 1)) {
    ++printed;
  }
  EXPECT_EQ(printed, HazardOutput::kMaxPrinted);
  EXPECT_THAT(lines, HasSubstr("hazard: 7 more not printed (the first 50 of 57 are above"));
  EXPECT_EQ(out.ToJson().size(), total);  // stats.json keeps every one
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
