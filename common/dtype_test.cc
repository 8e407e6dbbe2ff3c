#include "common/dtype.h"

#include <cmath>
#include <cstdint>

#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(DTypeTest, SizesMatchTheRuntime) {
  EXPECT_EQ(DTypeSize(trace::FP32), 4u);
  EXPECT_EQ(DTypeSize(trace::BF16), 2u);
  EXPECT_EQ(DTypeSize(trace::INT8), 1u);
  EXPECT_EQ(DTypeSize(trace::INT64), 8u);
  EXPECT_EQ(DTypeSize(trace::DTYPE_UNSPECIFIED), 0u);
}

TEST(DTypeTest, HalfRoundTripsExactValues) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 0.000061035156f, 5.9604645e-08f}) {
    EXPECT_EQ(HalfToFloat(FloatToHalf(f)), f) << f;
  }
  EXPECT_TRUE(std::isinf(HalfToFloat(FloatToHalf(1e6f))));
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(NAN))));
}

TEST(DTypeTest, HalfRoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0).
  EXPECT_EQ(HalfToFloat(FloatToHalf(1.0f + 0.00048828125f)), 1.0f);
  EXPECT_EQ(HalfToFloat(FloatToHalf(1.0f + 3 * 0.00048828125f)), 1.0f + 4 * 0.00048828125f);
}

TEST(DTypeTest, Bf16KeepsTheFloatExponent) {
  EXPECT_EQ(Bf16ToFloat(FloatToBf16(3.0f)), 3.0f);
  EXPECT_NEAR(Bf16ToFloat(FloatToBf16(3.14159f)), 3.14159f, 0.01f);
  EXPECT_EQ(Bf16ToFloat(FloatToBf16(1e30f)), Bf16ToFloat(FloatToBf16(1e30f)));
}

TEST(DTypeTest, IntegerLoadsSignExtend) {
  const int8_t minus_three = -3;
  EXPECT_EQ(LoadAsInt64(trace::INT8, &minus_three), -3);
  const uint8_t big = 0xfd;
  EXPECT_EQ(LoadAsInt64(trace::UINT8, &big), 253);
}

TEST(DTypeTest, StoresSaturateIntegers) {
  int8_t out = 0;
  StoreFromDouble(trace::INT8, 1000.0, &out);
  EXPECT_EQ(out, 127);
  StoreFromDouble(trace::INT8, -2.7, &out);
  EXPECT_EQ(out, -2);
}

}  // namespace
}  // namespace pto
