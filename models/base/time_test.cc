#include "models/base/time.h"

#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(NsTest, RoundsToTheNearestPicosecond) {
  EXPECT_EQ(Ns(0), 0);
  EXPECT_EQ(Ns(1), 1'000);
  EXPECT_EQ(Ns(2.5), 2'500);
  EXPECT_EQ(Ns(0.0004), 0);
  EXPECT_EQ(Ns(0.0005), 1);
  EXPECT_EQ(Ns(197.0 + 32 * 3), 293'000);
  EXPECT_EQ(Ns(1e7), 10'000'000'000);  // 10 ms: beyond 32 bits
}

}  // namespace
}  // namespace pto
