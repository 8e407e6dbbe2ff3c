#include "models/gm/flow_model.h"

#include <algorithm>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::ElementsAre;
using FlowId = FlowModel::FlowId;

// Runs the model to its end; each flow's end time, by id.
std::vector<TimePs> RunToEnd(FlowModel& model, size_t flows) {
  std::vector<TimePs> ends(flows, kNever);
  std::vector<FlowId> done;
  while (model.next_completion() != kNever) {
    const TimePs at = model.next_completion();
    done.clear();
    model.AdvanceTo(at, &done);
    for (FlowId id : done) ends[id] = at;
  }
  return ends;
}

TEST(FlowModelTest, OneFlowMovesAtItsBottleneck) {
  FlowModel model;
  const auto hbm = model.AddResource(8);
  const auto port = model.AddResource(2);
  const FlowId flow = model.Start(0, 1000, {port, hbm});
  EXPECT_DOUBLE_EQ(model.rate(flow), 2);
  // 1000 B at 2 B/ns.
  EXPECT_EQ(model.next_completion(), 500'000);
  EXPECT_THAT(RunToEnd(model, 1), ElementsAre(500'000));
}

TEST(FlowModelTest, FlowsOnOneResourceShareItEqually) {
  FlowModel model;
  const auto hbm = model.AddResource(2);
  model.Start(0, 1000, {hbm});
  model.Start(0, 3000, {hbm});
  // 1 B/ns each: the first ends at 1000 ns with 2000 B of the second left,
  // which then takes the whole 2 B/ns: 1000 ns more.
  EXPECT_THAT(RunToEnd(model, 2), ElementsAre(1'000'000, 2'000'000));
}

// Three requesters capped at 2, 4 and 8 B/ns share a 10 B/ns HBM, started
// in the given order of their caps: the first keeps its cap (2), the others
// split the remaining 8 (4 each; the second is then at its cap too).
void ExpectMaxMinFairRates(std::vector<int> start_order) {
  FlowModel model;
  const auto hbm = model.AddResource(10);
  std::vector<FlowModel::ResourceId> caps;
  for (double cap : {2.0, 4.0, 8.0}) caps.push_back(model.AddResource(cap));
  FlowId flow_of[3];
  for (int which : start_order) flow_of[which] = model.Start(0, 1000, {caps[which], hbm});
  EXPECT_DOUBLE_EQ(model.rate(flow_of[0]), 2);
  EXPECT_DOUBLE_EQ(model.rate(flow_of[1]), 4);
  EXPECT_DOUBLE_EQ(model.rate(flow_of[2]), 4);
}

TEST(FlowModelTest, RatesAreMaxMinFair) { ExpectMaxMinFairRates({0, 1, 2}); }

TEST(FlowModelTest, RatesDoNotDependOnTheOrderFlowsStart) { ExpectMaxMinFairRates({2, 1, 0}); }

TEST(FlowModelTest, ALaterFlowTakesItsShareFromThen) {
  FlowModel model;
  const auto hbm = model.AddResource(2);
  std::vector<FlowId> done;
  model.Start(0, 1000, {hbm});
  model.AdvanceTo(250'000, &done);  // 500 B moved alone
  EXPECT_TRUE(done.empty());
  model.Start(250'000, 1000, {hbm});
  // From 250 ns both move at 1 B/ns: the first's last 500 B end at 750 ns;
  // the second has 500 B left then, at 2 B/ns: 250 ns more.
  EXPECT_THAT(RunToEnd(model, 2), ElementsAre(750'000, 1'000'000));
}

TEST(FlowModelTest, IdenticalFlowsEndTogether) {
  // N requesters capped at c share a peak P: each moves at min(c, P / N), so
  // N equal transfers started together end together, at bytes / rate.
  for (int n : {1, 4, 16, 24, 48}) {
    FlowModel model;
    const auto hbm = model.AddResource(1600);
    for (int i = 0; i < n; ++i) model.Start(0, 1 << 20, {model.AddResource(128), hbm});
    const double rate = std::min(128.0, 1600.0 / n);
    const std::vector<TimePs> ends = RunToEnd(model, n);
    const TimePs expected =
        static_cast<TimePs>(std::ceil(static_cast<double>(1 << 20) / rate * 1000.0));
    for (TimePs end : ends) EXPECT_EQ(end, expected) << n << " flows";
  }
}

TEST(FlowModelTest, AggregateThroughputIsCappedByThePeak) {
  // 24 requesters of 128 B/ns on a 1600 B/ns HBM: 24 x 128 = 3072 > 1600, so
  // the HBM is the bottleneck and 24 MiB take 24 MiB / 1600 B/ns.
  FlowModel model;
  const auto hbm = model.AddResource(1600);
  for (int i = 0; i < 24; ++i) model.Start(0, 1 << 20, {model.AddResource(128), hbm});
  const std::vector<TimePs> ends = RunToEnd(model, 24);
  const TimePs last = *std::max_element(ends.begin(), ends.end());
  EXPECT_NEAR(static_cast<double>(last), 24.0 * (1 << 20) / 1600.0 * 1000.0, 1.0);
}

TEST(FlowModelTest, RemainingBytesFollowTheRate) {
  FlowModel model;
  const auto hbm = model.AddResource(4);
  const FlowId flow = model.Start(0, 4000, {hbm});
  std::vector<FlowId> done;
  model.AdvanceTo(500'000, &done);  // 2000 B at 4 B/ns
  EXPECT_EQ(model.remaining(flow), 2000);
  model.AdvanceTo(1'000'000, &done);
  EXPECT_THAT(done, ElementsAre(flow));
  EXPECT_EQ(model.active(), 0u);
  EXPECT_EQ(model.remaining(flow), 0);
  EXPECT_EQ(model.rate(flow), 0);
}

TEST(FlowModelTest, DisjointPathsDoNotInteract) {
  FlowModel model;
  const auto l2 = model.AddResource(4);
  const auto hbm = model.AddResource(1);
  const FlowId hit = model.Start(0, 1000, {l2});
  const FlowId miss = model.Start(0, 1000, {l2, hbm});
  // The miss is held to 1 B/ns by the HBM; the hit takes the L2's other 3.
  EXPECT_DOUBLE_EQ(model.rate(miss), 1);
  EXPECT_DOUBLE_EQ(model.rate(hit), 3);
}

}  // namespace
}  // namespace pto
