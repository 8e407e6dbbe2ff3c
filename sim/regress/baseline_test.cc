#include "sim/regress/baseline.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;

TEST(BaselineTest, ToleranceDependsOnTheMetricKind) {
  const MetricMap baseline = {
      {"makespan_us", 100}, {"overhead_share", 0.30}, {"task_dispatches", 4}};
  Tolerance t;  // 1% on times, 0.01 on shares, counts exact
  EXPECT_TRUE(
      CompareToBaseline(
          baseline, {{"makespan_us", 100.9}, {"overhead_share", 0.305}, {"task_dispatches", 4}}, t)
          .empty());
  const std::vector<MetricDrift> drifts = CompareToBaseline(
      baseline, {{"makespan_us", 101.5}, {"overhead_share", 0.32}, {"task_dispatches", 5}}, t);
  ASSERT_EQ(drifts.size(), 3u);
  EXPECT_EQ(drifts[0].metric, "makespan_us");
  EXPECT_EQ(drifts[0].allowed, "±1%");
  EXPECT_EQ(drifts[1].allowed, "±0.01");
  EXPECT_EQ(drifts[2].allowed, "exact");
}

TEST(BaselineTest, MetricsOnOneSideOnlyAreDrifts) {
  const std::vector<MetricDrift> drifts =
      CompareToBaseline({{"a.makespan_us", 1}}, {{"b.makespan_us", 1}}, Tolerance{});
  ASSERT_EQ(drifts.size(), 2u);
  EXPECT_TRUE(std::isnan(drifts[0].measured));
  EXPECT_TRUE(std::isnan(drifts[1].baseline));
}

TEST(BaselineTest, DriftTableShowsBaselineMeasuredAndChange) {
  const std::string table =
      FormatDrifts({{"per_block_tasks.makespan_us", 17.142223, 18.856445, "±1%"}});
  EXPECT_THAT(table, HasSubstr("per_block_tasks.makespan_us"));
  EXPECT_THAT(table, HasSubstr("17.142223"));
  EXPECT_THAT(table, HasSubstr("18.856445"));
  EXPECT_THAT(table, HasSubstr("+10.00%"));
}

TEST(BaselineTest, SaveThenLoadRoundTripsAndChecksAreNotBaselined) {
  RunMetrics run;
  run.total = {{"makespan_us", 3.5}, {"checks_passed", 2}, {"hazards", 0}};
  const MetricMap metrics = BaselineMetrics(run);
  EXPECT_EQ(metrics.size(), 1u);
  const std::string path =
      (std::filesystem::temp_directory_path() / "baseline_test_roundtrip.json").string();
  ASSERT_TRUE(SaveBaselines(path, "demo", {{"case", metrics}}).ok());
  absl::StatusOr<Baselines> loaded = LoadBaselines(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->at("case").at("makespan_us"), 3.5);
}

TEST(BaselineTest, MalformedFileIsNamed) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "baseline_test_bad.json").string();
  std::ofstream(path) << "{\"cases\": {\"x\": {\"makespan_us\": \"fast\"}}}";
  absl::StatusOr<Baselines> loaded = LoadBaselines(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("baseline_test_bad.json"));
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("not a number"));
}

}  // namespace
}  // namespace pto
