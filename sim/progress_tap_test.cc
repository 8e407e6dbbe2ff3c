#include "sim/progress_tap.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;

TEST(ProgressTapTest, QuietForTheFirstSecondThenRateAndSimulatedTime) {
  double now = 100.0;
  std::ostringstream out;
  ProgressTap tap(out, "launch 0 'stress'", [&now] { return now; });
  Task task;
  for (int i = 0; i < 4096; ++i) {
    task.times.finish = int64_t{1000} * 1000 * (i + 1);  // 1 us apart
    now += 0.0001;
    tap.OnTaskRetired(task);
  }
  EXPECT_EQ(out.str(), "");  // 0.4 s so far: short runs show nothing
  now = 102.0;
  for (int i = 0; i < 1024; ++i) tap.OnTaskRetired(task);
  const std::string line = out.str();
  EXPECT_THAT(line, HasSubstr("\rlaunch 0 'stress': 5120 tasks retired, 2.6 k tasks/s, "
                              "simulated 4096.0 us, 2 s"));
  EXPECT_EQ(line.find('\n'), std::string::npos);  // one line, rewritten in place
  tap.Erase();
  EXPECT_THAT(out.str(), ::testing::EndsWith("\r\x1b[K"));
}

TEST(ProgressTapTest, EraseWithoutALineWritesNothing) {
  std::ostringstream out;
  ProgressTap tap(out, "launch 0", [] { return 0.0; });
  tap.Erase();
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace pto
