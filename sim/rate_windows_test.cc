#include "sim/rate_windows.h"

#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

using Samples = std::vector<std::pair<TimePs, double>>;

RateWindows Windows(Samples* out) {
  return RateWindows(/*window=*/1000,
                     [out](TimePs at, double mean) { out->emplace_back(at, mean); });
}

TEST(RateWindowsTest, EmitsEachWindowsMean) {
  Samples out;
  RateWindows w = Windows(&out);
  w.Set(0, 10);    // 10 over [0, 500)
  w.Set(500, 30);  // 30 over [500, 1500)
  w.Set(1500, 0);
  w.Finish();
  // [0, 1000): (10 x 500 + 30 x 500) / 1000 = 20; [1000, 2000) so far: 30
  // over the 500 ps integrated; then 0 from the last change on.
  EXPECT_THAT(out, ElementsAre(Pair(0, 20.0), Pair(1000, 30.0), Pair(1500, 0.0)));
}

TEST(RateWindowsTest, ARateHeldForManyWindowsEmitsOnce) {
  Samples out;
  RateWindows w = Windows(&out);
  w.Set(0, 5);
  w.Set(1'000'000, 0);  // a thousand windows at 5
  w.Set(1'000'500, 0);
  w.Finish();
  EXPECT_THAT(out, ElementsAre(Pair(0, 5.0), Pair(1'000'000, 0.0)));
}

TEST(RateWindowsTest, WindowsAlignToMultiplesOfTheirLength) {
  Samples out;
  RateWindows w = Windows(&out);
  w.Set(2500, 8);  // the window [2000, 3000) has 8 over its last half
  w.Set(3000, 0);
  w.Set(3200, 0);
  w.Finish();
  EXPECT_THAT(out, ElementsAre(Pair(2000, 4.0), Pair(3000, 0.0)));
}

TEST(RateWindowsTest, NothingSetEmitsNothing) {
  Samples out;
  RateWindows w = Windows(&out);
  w.Finish();
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace pto
