#include "sim/sweep/sweep_grid.h"

#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SweepGridTest, ParsesVary) {
  absl::StatusOr<SweepAxis> axis = ParseVary("chip.clusters=8, 16,24");
  ASSERT_TRUE(axis.ok());
  EXPECT_EQ(axis->key, "chip.clusters");
  EXPECT_THAT(axis->values, ElementsAre("8", "16", "24"));
  EXPECT_THAT(std::string(ParseVary("chip.clusters").status().message()),
              HasSubstr("expected key=v1,v2"));
  EXPECT_FALSE(ParseVary("chip.clusters=8,,16").ok());
  EXPECT_THAT(std::string(ParseVary("chip.clusters=8,8").status().message()),
              HasSubstr("listed twice"));
}

TEST(SweepGridTest, GridIsTracesThenAxesWithTheLastInnermost) {
  const std::vector<SweepAxis> axes = {{"a", {"1", "2", "3"}}, {"b", {"x", "y"}}};
  const std::vector<SweepPoint> points = ExpandGrid({"t1", "t2"}, axes);
  ASSERT_EQ(points.size(), 12u);
  EXPECT_THAT(points[0].values, ElementsAre("1", "x"));
  EXPECT_THAT(points[1].values, ElementsAre("1", "y"));
  EXPECT_THAT(points[2].values, ElementsAre("2", "x"));
  EXPECT_EQ(points[5].trace, "t1");
  EXPECT_THAT(points[5].values, ElementsAre("3", "y"));
  EXPECT_EQ(points[6].trace, "t2");
  EXPECT_EQ(points[11].index, 11);
  EXPECT_EQ(ExpandGrid({"t"}, {}).size(), 1u);
}

TEST(SweepGridTest, ShardsPartitionTheGrid) {
  const std::vector<SweepPoint> points =
      ExpandGrid({"t"}, {{"a", {"1", "2", "3"}}, {"b", {"1", "2", "3"}}, {"c", {"1", "2"}}});
  ASSERT_EQ(points.size(), 18u);
  std::multiset<int> seen;
  for (int i = 0; i < 4; ++i) {
    for (const SweepPoint& p : points) {
      if (InShard(p.index, {i, 4})) seen.insert(p.index);
    }
  }
  EXPECT_EQ(seen.size(), 18u);
  for (int p = 0; p < 18; ++p) EXPECT_EQ(seen.count(p), 1u);
}

TEST(SweepGridTest, ParsesShard) {
  absl::StatusOr<Shard> shard = ParseShard("2/5");
  ASSERT_TRUE(shard.ok());
  EXPECT_EQ(shard->index, 2);
  EXPECT_EQ(shard->count, 5);
  for (const char* bad : {"5/5", "-1/2", "1", "a/b", "0/0"}) {
    EXPECT_FALSE(ParseShard(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace pto
