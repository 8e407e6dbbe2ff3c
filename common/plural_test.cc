#include "common/plural.h"

#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(CountOfTest, OneIsSingularEverythingElsePlural) {
  EXPECT_EQ(CountOf(1, "cluster"), "1 cluster");
  EXPECT_EQ(CountOf(0, "cluster"), "0 clusters");
  EXPECT_EQ(CountOf(24, "cluster"), "24 clusters");
  EXPECT_EQ(CountOf(1, "task dispatch", "task dispatches"), "1 task dispatch");
  EXPECT_EQ(CountOf(3, "task dispatch", "task dispatches"), "3 task dispatches");
}

}  // namespace
}  // namespace pto
