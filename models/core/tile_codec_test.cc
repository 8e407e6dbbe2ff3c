#include "models/core/tile_codec.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "common/dtype.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(TileCodecTest, FloatDtypesComputeInFloatOthersInDouble) {
  EXPECT_TRUE(ComputesInFloat(trace::FP32));
  EXPECT_TRUE(ComputesInFloat(trace::FP16));
  EXPECT_TRUE(ComputesInFloat(trace::BF16));
  EXPECT_FALSE(ComputesInFloat(trace::INT32));
  EXPECT_FALSE(ComputesInFloat(trace::INT8));
}

TEST(TileCodecTest, Fp16RoundTripsThroughBytes) {
  const std::vector<float> values = {1.0f, -2.5f, 65504.0f, 0.000061035156f};
  std::vector<uint8_t> bytes(values.size() * 2);
  EncodeElements<float>(trace::FP16, values.data(), bytes.data(), 4);
  uint16_t h;
  std::memcpy(&h, bytes.data(), 2);
  EXPECT_EQ(h, 0x3C00);  // 1.0 in IEEE half
  std::vector<float> back(4);
  DecodeElements<float>(trace::FP16, bytes.data(), back.data(), 4);
  EXPECT_EQ(back, values);
}

TEST(TileCodecTest, RoundingMatchesTheDtype) {
  float f16[] = {1.0f + 1.0f / 4096};  // below half's resolution at 1.0 (2^-10)
  RoundToDType<float>(trace::FP16, f16, 1);
  EXPECT_EQ(f16[0], 1.0f);
  float bf[] = {1.0f + 1.0f / 256};  // bf16 keeps 7 mantissa bits (2^-7)
  RoundToDType<float>(trace::BF16, bf, 1);
  EXPECT_EQ(bf[0], 1.0f);
  double ints[] = {2.9, -2.9, 3e9, -3e9, std::numeric_limits<double>::quiet_NaN()};
  RoundToDType<double>(trace::INT32, ints, 5);
  EXPECT_EQ(ints[0], 2);
  EXPECT_EQ(ints[1], -2);
  EXPECT_EQ(ints[2], 2147483647.0);
  EXPECT_EQ(ints[3], -2147483648.0);
  EXPECT_EQ(ints[4], 0);
  double i8[] = {300, -300};
  RoundToDType<double>(trace::INT8, i8, 2);
  EXPECT_EQ(i8[0], 127);
  EXPECT_EQ(i8[1], -128);
}

TEST(TileCodecTest, IntegersDecodeExactlyAndEncodeSaturated) {
  const int32_t src[] = {-7, 2147483647};
  std::vector<double> d(2);
  DecodeElements<double>(trace::INT32, reinterpret_cast<const uint8_t*>(src), d.data(), 2);
  EXPECT_EQ(d[0], -7);
  EXPECT_EQ(d[1], 2147483647.0);
  const double wide[] = {1e12, -5};
  int16_t out[2];
  EncodeElements<double>(trace::INT16, wide, reinterpret_cast<uint8_t*>(out), 2);
  EXPECT_EQ(out[0], 32767);
  EXPECT_EQ(out[1], -5);
}

// The modes of a CAST, as CANN's AscendC RoundMode defines them: to an
// integer, and between the two neighbours of a value in FP16 and BF16.
TEST(TileCodecTest, CastModesRoundToIntegersAsNamed) {
  using trace::Op;
  struct Case {
    Op::CastMode mode;
    double plus_2_5, minus_2_5, plus_3_5;
  };
  const Case cases[] = {
      {Op::CAST_NONE, 2, -2, 4},  {Op::CAST_RINT, 2, -2, 4}, {Op::CAST_ROUND, 3, -3, 4},
      {Op::CAST_FLOOR, 2, -3, 3}, {Op::CAST_CEIL, 3, -2, 4}, {Op::CAST_TRUNC, 2, -2, 3},
      {Op::CAST_ODD, 3, -3, 3},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(Op::CastMode_Name(c.mode));
    EXPECT_EQ(CastElement(2.5, trace::INT32, c.mode), c.plus_2_5);
    EXPECT_EQ(CastElement(-2.5, trace::INT32, c.mode), c.minus_2_5);
    EXPECT_EQ(CastElement(3.5, trace::INT32, c.mode), c.plus_3_5);
    EXPECT_EQ(CastElement(7.0, trace::INT32, c.mode), 7);  // exact stays exact
    EXPECT_EQ(CastElement(std::nan(""), trace::INT32, c.mode), 0);
    EXPECT_EQ(CastElement(3e9, trace::INT32, c.mode), 2147483647);
  }
}

TEST(TileCodecTest, CastModesPickANeighbourInFp16AndBf16) {
  using trace::Op;
  for (const trace::DType dt : {trace::BF16, trace::FP16}) {
    SCOPED_TRACE(trace::DType_Name(dt));
    // At 1 the format's spacing is 2^-7 (BF16) or 2^-10 (FP16).
    const double ulp = dt == trace::BF16 ? std::ldexp(1.0, -7) : std::ldexp(1.0, -10);
    const double tie = 1 + ulp / 2;
    EXPECT_EQ(CastElement(tie, dt, Op::CAST_RINT), 1);  // the even neighbour
    EXPECT_EQ(CastElement(tie, dt, Op::CAST_NONE), 1);
    EXPECT_EQ(CastElement(tie, dt, Op::CAST_ROUND), 1 + ulp);  // ties away
    EXPECT_EQ(CastElement(tie, dt, Op::CAST_FLOOR), 1);
    EXPECT_EQ(CastElement(tie, dt, Op::CAST_CEIL), 1 + ulp);
    EXPECT_EQ(CastElement(tie, dt, Op::CAST_TRUNC), 1);
    EXPECT_EQ(CastElement(tie, dt, Op::CAST_ODD), 1 + ulp);  // odd last bit
    EXPECT_EQ(CastElement(-tie, dt, Op::CAST_FLOOR), -(1 + ulp));
    EXPECT_EQ(CastElement(-tie, dt, Op::CAST_CEIL), -1);
    EXPECT_EQ(CastElement(-tie, dt, Op::CAST_ROUND), -(1 + ulp));
    // Off a tie, ROUND and RINT agree; ODD still picks the odd neighbour.
    const double near_up = 1 + 0.75 * ulp;
    EXPECT_EQ(CastElement(near_up, dt, Op::CAST_ROUND), 1 + ulp);
    EXPECT_EQ(CastElement(near_up, dt, Op::CAST_RINT), 1 + ulp);
    EXPECT_EQ(CastElement(1 + 2.25 * ulp, dt, Op::CAST_ODD), 1 + 3 * ulp);
    EXPECT_EQ(CastElement(1 + 2.25 * ulp, dt, Op::CAST_TRUNC), 1 + 2 * ulp);
    EXPECT_EQ(CastElement(1 + ulp, dt, Op::CAST_FLOOR), 1 + ulp);  // representable
  }
}

}  // namespace
}  // namespace pto
