#include "common/stop_request.h"

#include <csignal>

#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(StopRequestTest, RecordsTheSignalInsteadOfDying) {
  ClearStopSignal();
  InstallStopSignalHandlers();
  EXPECT_EQ(StopSignal(), 0);
  ASSERT_EQ(std::raise(SIGTERM), 0);
  EXPECT_EQ(StopSignal(), SIGTERM);
  ClearStopSignal();
  EXPECT_EQ(StopSignal(), 0);
}

TEST(StopRequestTest, SecondSignalTakesTheDefaultAction) {
  ClearStopSignal();
  InstallStopSignalHandlers();
  ASSERT_EQ(std::raise(SIGINT), 0);
  EXPECT_EQ(StopSignal(), SIGINT);
  struct sigaction now = {};
  sigaction(SIGINT, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);  // reset: a second Ctrl-C kills
  ClearStopSignal();
}

TEST(StopRequestTest, TheWallDeadlineStopsOnceItPasses) {
  ClearStopSignal();
  ClearWallDeadline();
  EXPECT_FALSE(StopRequested());
  SetWallDeadline(std::chrono::steady_clock::now() + std::chrono::hours(1));
  EXPECT_FALSE(WallDeadlinePassed());
  SetWallDeadline(std::chrono::steady_clock::now() - std::chrono::milliseconds(1));
  EXPECT_TRUE(WallDeadlinePassed());
  EXPECT_TRUE(StopRequested());
  EXPECT_EQ(StopSignal(), 0);
  ClearWallDeadline();
  EXPECT_FALSE(StopRequested());
}

}  // namespace
}  // namespace pto
