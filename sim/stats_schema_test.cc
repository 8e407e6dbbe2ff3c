#include "sim/stats_schema.h"

#include <cmath>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/testing/generated_block.h"

namespace pto {
namespace {

using ::testing::ElementsAre;

TEST(StatsSchemaTest, PathsMetricsAndCompareRowsAreUnique) {
  std::set<absl::string_view> paths, metrics, rows;
  for (const StatSpec& s : StatsSchema()) {
    EXPECT_TRUE(paths.insert(s.path).second) << "path twice: " << s.path;
    if (!s.metric.empty()) EXPECT_TRUE(metrics.insert(s.metric).second) << s.metric;
    if (!s.compare.empty()) EXPECT_TRUE(rows.insert(s.compare).second) << s.compare;
    EXPECT_FALSE(s.meaning.empty()) << s.path;
    // A metric is a number regress and sweep can compare.
    if (!s.metric.empty()) {
      EXPECT_TRUE(s.unit == StatUnit::kMicroseconds || s.unit == StatUnit::kCount ||
                  s.unit == StatUnit::kFraction)
          << s.path;
    }
  }
  // The sweep columns are exactly the schema's metrics.
  std::set<absl::string_view> columns(StatMetricNames().begin(), StatMetricNames().end());
  EXPECT_EQ(columns, metrics);
  EXPECT_EQ(columns.size(), StatMetricNames().size());
}

TEST(StatsSchemaTest, TheKeysCodeReadsByNameAreInTheSchema) {
  for (absl::string_view key : {kStatMakespanUs, kStatDeviceWallUs, kStatAicBusyShare,
                                kStatAivBusyShare, kStatOrchestratorBusyUs, kStatSchedulerBusyUs,
                                kStatOverheadAllUs, kStatOverheadWindowUs, kStatHbmGbPerS}) {
    EXPECT_NE(FindStat(key), nullptr) << key;
  }
  ASSERT_NE(FindMetric("aic_busy_share"), nullptr);
  EXPECT_EQ(FindMetric("aic_busy_share")->path, kStatAicBusyShare);
  EXPECT_EQ(FindMetric("no_such_metric"), nullptr);
}

TEST(StatsSchemaTest, StatNumberFollowsPathsIndicesAndCountsArrays) {
  const nlohmann::json j = nlohmann::json::parse(R"({
    "makespan_us": 2.5,
    "engine_busy_share": {"aic": 0.25},
    "rings": [{"peak_task_window": 3}, {"peak_task_window": 7}],
    "hazards": [{}, {}, {}],
    "name": "k"
  })");
  EXPECT_EQ(StatNumber(j, "makespan_us"), 2.5);
  EXPECT_EQ(StatNumber(j, "engine_busy_share/aic"), 0.25);
  EXPECT_EQ(StatNumber(j, "rings/1/peak_task_window"), 7);
  EXPECT_EQ(StatNumber(j, "hazards"), 3);
  EXPECT_TRUE(std::isnan(StatNumber(j, "rings/2/peak_task_window")));
  EXPECT_TRUE(std::isnan(StatNumber(j, "tasks")));
  EXPECT_TRUE(std::isnan(StatNumber(j, "name")));  // not a number
}

TEST(StatsSchemaTest, LeafPathsSpellArraysAsTheSchemaDoes) {
  const nlohmann::json j = nlohmann::json::parse(R"({
    "a": {"b": 1, "c": [{"d": 2}, {"d": 3, "e": 4}]},
    "intervals": [[1, 2], [3, 4]], "region": [0, 8], "none": []
  })");
  EXPECT_THAT(StatLeafPaths(j),
              ElementsAre("a/b", "a/c/[]/d", "a/c/[]/e", "intervals/[]", "none", "region"));
  EXPECT_TRUE(StatPathCovers("x/*/avg", "x/aic/avg"));
  EXPECT_FALSE(StatPathCovers("x/*/avg", "x/[]/avg"));
  EXPECT_FALSE(StatPathCovers("x/*/avg", "x/aic/max"));
  EXPECT_TRUE(StatPathCovers("rings/[]/dep_pool", "rings/[]/dep_pool"));
}

TEST(StatsSchemaTest, DocsStatsMdHoldsTheGeneratedTable) {
  const std::string path = std::string(PTO_SOURCE_DIR) + "/docs/stats.md";
  const std::string table = StatsMarkdownTable();
  const std::optional<std::string> block =
      testing::CurrentGeneratedBlock(path, "StatsMarkdownTable", table);
  ASSERT_TRUE(block.has_value()) << path
                                 << " lacks '<!-- BEGIN GENERATED: StatsMarkdownTable() -->' "
                                    "and '<!-- END GENERATED -->' around the key table";
  EXPECT_EQ(*block, table) << path
                           << " is stale; regenerate with: PTO_UPDATE_GENERATED=1 "
                              "<build>/sim/stats_schema_test (then review the diff)";
}

}  // namespace
}  // namespace pto
