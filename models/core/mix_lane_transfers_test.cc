#include "models/core/mix_lane_transfers.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::ElementsAre;

// A segment of four records: a load (planned 0-100 ns), a matmul, a store
// (300-350 ns) and a load (400-500 ns), its ops starting at 1 us.
MixLaneTransfers Planned() {
  MixLaneTransfers lane;
  lane.Add({0, GmRuns{0x1000, 512, 4, 512}, GmDirection::kRead});
  lane.Add({2, GmRuns{0x9000, 512, 1, 512}, GmDirection::kWrite});
  lane.Add({3, GmRuns{0x2000, 512, 4, 512}, GmDirection::kRead});
  lane.Begin(Ns(1000), {0, 100, 300, 400}, {100, 300, 350, 500});
  return lane;
}

TEST(MixLaneTransfersTest, LateLoadsShiftTheLaterTransfersAndStoresArePosted) {
  MixLaneTransfers lane = Planned();
  ASSERT_TRUE(lane.has_next());
  EXPECT_EQ(lane.next_due(), Ns(1000));
  lane.Issue(Ns(1000));
  EXPECT_FALSE(lane.has_next());  // waiting for the load
  // It lands 150 ns after its op's planned end: everything after shifts.
  lane.OnLoadLanded(Ns(1250));
  EXPECT_EQ(lane.shift(), Ns(150));
  ASSERT_TRUE(lane.has_next());
  EXPECT_EQ(lane.next().record, 2u);
  EXPECT_EQ(lane.next_due(), Ns(1000 + 300 + 150));
  lane.Issue(Ns(1450));
  // The store is posted: the next load is due without waiting for it.
  ASSERT_TRUE(lane.has_next());
  EXPECT_EQ(lane.next_due(), Ns(1000 + 400 + 150));
  lane.Issue(Ns(1550));
  // Landing before its shifted planned end (1650) shifts nothing more.
  lane.OnLoadLanded(Ns(1600));
  EXPECT_EQ(lane.shift(), Ns(150));
  EXPECT_FALSE(lane.has_next());
  EXPECT_FALSE(lane.all_landed());  // the store is still in flight
  lane.OnStoreLanded();
  EXPECT_TRUE(lane.all_landed());
  EXPECT_THAT(lane.durations_ns(), ElementsAre(250, -1, -1, 50));
}

TEST(MixLaneTransfersTest, ALaneWithNothingToMoveHasLandedAtOnce) {
  MixLaneTransfers lane;
  lane.Begin(0, {0, 10}, {10, 20});
  EXPECT_FALSE(lane.has_next());
  EXPECT_TRUE(lane.all_landed());
  EXPECT_THAT(lane.durations_ns(), ElementsAre(-1, -1));
  // A new segment forgets the last one's transfers.
  lane.Add({1, GmRuns{0, 64, 1, 64}, GmDirection::kRead});
  lane.Clear();
  lane.Begin(0, {0}, {10});
  EXPECT_TRUE(lane.all_landed());
}

}  // namespace
}  // namespace pto
