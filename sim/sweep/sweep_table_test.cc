#include "sim/sweep/sweep_table.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

SweepSpec Spec() {
  SweepSpec spec;
  spec.config = "configs/ascend.yaml";
  spec.traces = {"a.pb"};
  spec.axes = {{"chip.clusters", {"8", "16"}}};
  return spec;
}

std::vector<SweepRow> Rows() {
  SweepRow ok{0, "a.pb", {"8"}, 0, "", {{"makespan_us", 12.5}, {"task_dispatches", 4}}};
  SweepRow bad{1, "a.pb", {"16"}, 2, "error: chip.clusters: \"x\", bad", {}};
  return {ok, bad};
}

TEST(SweepTableTest, CsvHasTheVariedKeysByNameAndQuotesErrors) {
  const std::string csv = SweepCsv(Spec(), Rows());
  EXPECT_THAT(csv, StartsWith("point,trace,chip.clusters,exit_code,makespan_us,"));
  EXPECT_THAT(csv, HasSubstr("\n0,a.pb,8,0,12.5,"));
  EXPECT_THAT(csv, HasSubstr(",4,"));
  EXPECT_THAT(csv, HasSubstr("\n1,a.pb,16,2,,"));
  EXPECT_THAT(csv, HasSubstr("\"error: chip.clusters: \"\"x\"\", bad\"\n"));
  EXPECT_THAT(csv, ::testing::Not(HasSubstr("seconds")));  // wall-clock is in timing.json
}

TEST(SweepTableTest, JsonRoundTrips) {
  const nlohmann::json j = SweepJson(Spec(), Rows());
  EXPECT_EQ(j["sweep"]["points"], 2);
  EXPECT_EQ(j["sweep"]["chart_key"], "chip.clusters");
  EXPECT_EQ(j["rows"][0]["config"]["chip.clusters"], "8");
  absl::StatusOr<SweepTable> table = ParseSweepJson(j, "x/sweep.json");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(SweepJson(table->spec, table->rows).dump(), j.dump());
}

TEST(SweepTableTest, MalformedJsonNamesTheSource) {
  absl::StatusOr<SweepTable> table =
      ParseSweepJson({{"sweep", {{"config", 3}}}, {"rows", {}}}, "shard_1/sweep.json");
  ASSERT_FALSE(table.ok());
  EXPECT_THAT(std::string(table.status().message()), HasSubstr("shard_1/sweep.json"));
}

}  // namespace
}  // namespace pto
