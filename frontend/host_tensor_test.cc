#include "frontend/host_tensor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/subscript.h"

namespace pto::ptoc {
namespace {

using ::testing::ElementsAre;

TEST(HostTensorTest, InitIsZerosOrTheBytesOrNothingForAShapeOnlyTensor) {
  EXPECT_TRUE(HostTensor({2}, trace::FP32, std::string(8, '\0')).ToInit().zeros());
  const std::string bytes("\x00\x00\x80\x3f\x00\x00\x00\x00", 8);  // 1.0f, 0.0f
  EXPECT_EQ(HostTensor({2}, trace::FP32, bytes).ToInit().data(), bytes);
  // -0.0f is not all-zero bytes: it travels as data.
  const std::string negative_zero("\x00\x00\x00\x80", 4);
  EXPECT_EQ(HostTensor({1}, trace::FP32, negative_zero).ToInit().data(), negative_zero);
  const HostTensor meta({1 << 20, 1 << 16}, trace::BF16);
  EXPECT_TRUE(meta.shape_only());
  EXPECT_EQ(meta.ToInit().contents_case(), trace::TensorInit::CONTENTS_NOT_SET);
}

TEST(SubscriptTest, IndicesAndSlicesFollowPython) {
  auto r = ResolveIndex({5}, {IndexEntry{false, -1}});
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->start, ElementsAre(4));
  EXPECT_THAT(r->keep, ElementsAre(false));
  IndexEntry slice;
  slice.is_slice = true;
  slice.start = 1;
  slice.stop = 100;  // clamps to the end
  slice.step = 2;
  r = ResolveIndex({5}, {slice});
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->start, ElementsAre(1));
  EXPECT_THAT(r->count, ElementsAre(2));  // 1, 3
  EXPECT_FALSE(ResolveIndex({5}, {IndexEntry{false, 5}}).ok());
  slice.step = 0;
  EXPECT_FALSE(ResolveIndex({5}, {slice}).ok());
}

}  // namespace
}  // namespace pto::ptoc
