#include "models/core/mix_transfer_board.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

struct RecordingLane : MixTransferBoard::Lane {
  void OnMixTransfersTimed(TimePs now, absl::Span<const double> durations_ns) override {
    told_at.push_back(now);
    durations.assign(durations_ns.begin(), durations_ns.end());
  }
  std::vector<TimePs> told_at;
  std::vector<double> durations;
};

TEST(MixTransferBoardTest, TheLastPostTellsEveryLaneTheLongestDurationPerRecord) {
  MixTransferBoard board(3);
  RecordingLane aic, aiv0, aiv1;
  const MixTransferBoard::Segment segment{/*task=*/7, /*block=*/2, /*index=*/0};
  // The AIC measured record 0 (a cube load); the AIVs their halves of
  // record 2 (a split vector load).
  board.Post(100, segment, &aiv0, std::vector<double>{-1, -1, 300, -1});
  board.Post(150, segment, &aic, std::vector<double>{500, -1, -1, -1});
  EXPECT_TRUE(aic.told_at.empty());
  EXPECT_TRUE(aiv0.told_at.empty());
  EXPECT_EQ(board.open_segments(), 1u);
  board.Post(900, segment, &aiv1, std::vector<double>{-1, -1, 350, -1});
  for (const RecordingLane* lane : {&aic, &aiv0, &aiv1}) {
    EXPECT_THAT(lane->told_at, testing::ElementsAre(900));
    EXPECT_THAT(lane->durations, testing::ElementsAre(500, -1, 350, -1));
  }
  EXPECT_EQ(board.open_segments(), 0u);
}

TEST(MixTransferBoardTest, SegmentsAndBlocksMeetSeparately) {
  MixTransferBoard board(2);
  RecordingLane a, b;
  board.Post(0, {7, 0, 0}, &a, std::vector<double>{1});
  board.Post(0, {7, 1, 0}, &b, std::vector<double>{2});  // another block
  board.Post(0, {7, 0, 1}, &b, std::vector<double>{3});  // a later segment
  EXPECT_TRUE(a.told_at.empty());
  EXPECT_TRUE(b.told_at.empty());
  board.Post(10, {7, 0, 0}, &b, std::vector<double>{4});
  EXPECT_THAT(a.durations, testing::ElementsAre(4));
  EXPECT_EQ(board.open_segments(), 2u);
}

}  // namespace
}  // namespace pto
