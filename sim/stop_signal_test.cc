#include "sim/stop_signal.h"

#include <csignal>

#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(StopSignalTest, RecordsTheSignalInsteadOfDying) {
  ClearStopSignal();
  InstallStopSignalHandlers();
  EXPECT_EQ(StopSignal(), 0);
  ASSERT_EQ(std::raise(SIGTERM), 0);
  EXPECT_EQ(StopSignal(), SIGTERM);
  ClearStopSignal();
  EXPECT_EQ(StopSignal(), 0);
}

TEST(StopSignalTest, SecondSignalTakesTheDefaultAction) {
  ClearStopSignal();
  InstallStopSignalHandlers();
  ASSERT_EQ(std::raise(SIGINT), 0);
  EXPECT_EQ(StopSignal(), SIGINT);
  struct sigaction now = {};
  sigaction(SIGINT, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);  // reset: a second Ctrl-C kills
  ClearStopSignal();
}

}  // namespace
}  // namespace pto
