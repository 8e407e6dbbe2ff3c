#include "sim/sweep/run_metrics.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using Json = nlohmann::json;
using ::testing::DoubleNear;

Json Launch(const std::string& name, double makespan, int dispatches, double aiv_share,
            double overhead_us) {
  return {{"name", name},
          {"makespan_us", makespan},
          {"device_wall_us", makespan + 1},
          {"tasks", dispatches},
          {"task_dispatches", dispatches},
          {"block_dispatches", 4 * dispatches},
          {"engine_busy_share", {{"aic", 0.0}, {"aiv", aiv_share}}},
          {"checks", {{"passed", 1}, {"failed", 0}}},
          {"hazards", Json::array()},
          {"scheduler_overhead",
           {{"makespan_us", makespan},
            {"overhead_us", {{"all", overhead_us}}},
            {"overhead_share", {{"all", overhead_us / makespan}}}}}};
}

TEST(RunMetricsTest, SingleLaunchIsTheTotalWithoutLaunchKeys) {
  absl::StatusOr<RunMetrics> run = MetricsFromStats(Launch("k", 10, 2, 0.5, 2));
  ASSERT_TRUE(run.ok());
  const MetricMap flat = run->Flatten();
  EXPECT_EQ(flat.at("makespan_us"), 10);
  EXPECT_EQ(flat.at("block_dispatches"), 8);
  EXPECT_THAT(flat.at("overhead_share"), DoubleNear(0.2, 1e-12));
  EXPECT_EQ(flat.count("k.makespan_us"), 0u);
}

TEST(RunMetricsTest, LaunchesSumAndSharesAreWeightedByMakespan) {
  Json stats = {{"makespan_us", 40.0},
                {"per_launch", {Launch("a", 10, 2, 1.0, 5), Launch("b", 30, 1, 0.0, 3)}}};
  absl::StatusOr<RunMetrics> run = MetricsFromStats(stats);
  ASSERT_TRUE(run.ok());
  const MetricMap flat = run->Flatten();
  EXPECT_EQ(flat.at("makespan_us"), 40);
  EXPECT_EQ(flat.at("task_dispatches"), 3);
  EXPECT_EQ(flat.at("checks_passed"), 2);
  EXPECT_THAT(flat.at("aiv_busy_share"), DoubleNear(10.0 / 40.0, 1e-12));
  EXPECT_THAT(flat.at("overhead_share"), DoubleNear(8.0 / 40.0, 1e-12));
  EXPECT_EQ(flat.at("a.makespan_us"), 10);
  EXPECT_EQ(flat.at("b.task_dispatches"), 1);
}

TEST(RunMetricsTest, RepeatedLaunchNamesGetTheirIndex) {
  Json stats = {{"makespan_us", 20.0},
                {"per_launch", {Launch("main", 10, 2, 0, 0), Launch("main", 10, 3, 0, 0)}}};
  const MetricMap flat = MetricsFromStats(stats)->Flatten();
  EXPECT_EQ(flat.at("main#0.task_dispatches"), 2);
  EXPECT_EQ(flat.at("main#1.task_dispatches"), 3);
}

TEST(RunMetricsTest, SummaryOnlyRunsHaveNoOverheadShare) {
  Json launch = Launch("k", 10, 2, 0.5, 2);
  launch.erase("scheduler_overhead");
  EXPECT_EQ(MetricsFromStats(launch)->total.count("overhead_share"), 0u);
}

TEST(RunMetricsTest, KindsFollowTheNameSuffix) {
  EXPECT_EQ(KindOf("a.makespan_us"), MetricKind::kTime);
  EXPECT_EQ(KindOf("overhead_share"), MetricKind::kShare);
  EXPECT_EQ(KindOf("b#1.task_dispatches"), MetricKind::kCount);
}

TEST(RunMetricsTest, ReadingAMissingFileNamesIt) {
  absl::StatusOr<RunMetrics> run = ReadRunMetrics("/nonexistent/stats.json");
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(std::string(run.status().message()), ::testing::HasSubstr("/nonexistent/stats.json"));
}

}  // namespace
}  // namespace pto
