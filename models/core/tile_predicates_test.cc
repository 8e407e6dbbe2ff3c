#include "models/core/tile_predicates.h"

#include <vector>

#include "gtest/gtest.h"

namespace pto {
namespace {

using trace::Op;

TEST(TilePredicatesTest, ComparesByEveryMode) {
  EXPECT_TRUE(Compare(Op::CMP_EQ, 2, 2));
  EXPECT_TRUE(Compare(Op::CMP_NE, 2, 3));
  EXPECT_TRUE(Compare(Op::CMP_LT, 2, 3));
  EXPECT_FALSE(Compare(Op::CMP_LT, 3, 3));
  EXPECT_TRUE(Compare(Op::CMP_LE, 3, 3));
  EXPECT_TRUE(Compare(Op::CMP_GT, 4, 3));
  EXPECT_TRUE(Compare(Op::CMP_GE, 3, 3));
  EXPECT_FALSE(Compare(Op::CMP_GE, 2, 3));
}

TEST(TilePredicatesTest, PacksColumnsLsbFirstAndZeroesTheRest) {
  // One row of 10 columns against 0: columns 0, 2, 9 are positive.
  const std::vector<float> a = {1, -1, 2, 0, -3, -4, -5, -6, -7, 8};
  const MaskShape shape{trace::UINT8, 1, 4};
  std::vector<double> mask(4, 99);
  PackCompare<float>(Op::CMP_GT, a.data(), nullptr, 0.0, 1, 10, shape, mask.data());
  EXPECT_EQ(mask[0], 0b00000101);
  EXPECT_EQ(mask[1], 0b00000010);
  EXPECT_EQ(mask[2], 0);
  EXPECT_EQ(mask[3], 0);
  for (int c = 0; c < 10; ++c) EXPECT_EQ(MaskBit(mask.data(), shape, 0, c), a[c] > 0) << c;
}

TEST(TilePredicatesTest, TileAgainstTileRowByRow) {
  const std::vector<double> a = {1, 2, 3, 4};
  const std::vector<double> b = {1, 0, 3, 5};
  const MaskShape shape{trace::UINT8, 2, 1};
  std::vector<double> mask(2);
  PackCompare<double>(Op::CMP_EQ, a.data(), b.data(), 0.0, 2, 2, shape, mask.data());
  EXPECT_EQ(mask[0], 0b01);  // 1 == 1, 2 != 0
  EXPECT_EQ(mask[1], 0b01);  // 3 == 3, 4 != 5
}

TEST(TilePredicatesTest, WiderMasksReadTheirBytesLittleEndian) {
  // 0xAAAA as INT16 (-21846): the odd columns, as upstream's test_sels loads.
  const std::vector<double> mask = {-21846, -21846};
  const MaskShape shape{trace::INT16, 1, 2};
  for (int c = 0; c < 32; ++c) EXPECT_EQ(MaskBit(mask.data(), shape, 0, c), c % 2 == 1) << c;
  // A signed INT8 mask packs to the same bytes: 0xAA is -86.
  const std::vector<float> a = {0, 1, 0, 1, 0, 1, 0, 1};
  std::vector<double> packed(1);
  PackCompare<float>(Op::CMP_GT, a.data(), nullptr, 0.5, 1, 8, MaskShape{trace::INT8, 1, 1},
                     packed.data());
  EXPECT_EQ(packed[0], -86);
}

TEST(TilePredicatesTest, IntegerScalarsWrapToTheirWidth) {
  EXPECT_EQ(WrapScalar(trace::UINT32, -3), 4294967293.0);
  EXPECT_EQ(WrapScalar(trace::UINT16, 0x18007), 0x8007);
  EXPECT_EQ(WrapScalar(trace::INT16, 0x8007), -32761);
  EXPECT_EQ(WrapScalar(trace::INT32, -11), -11);
  EXPECT_EQ(WrapScalar(trace::FP32, -3.5), -3.5);
}

TEST(TilePredicatesTest, TrianglesFollowTheDiagonal) {
  std::vector<double> lower(9, -1), upper(9, -1);
  FillTriangle<double>(0, /*upper=*/false, 3, 3, 3, lower.data());
  FillTriangle<double>(1, /*upper=*/true, 3, 3, 3, upper.data());
  EXPECT_EQ(lower, (std::vector<double>{1, 0, 0, 1, 1, 0, 1, 1, 1}));
  EXPECT_EQ(upper, (std::vector<double>{0, 1, 1, 0, 0, 1, 0, 0, 0}));
  // Only the region is written.
  std::vector<float> part(6, 7);
  FillTriangle<float>(-1, /*upper=*/false, 2, 2, 3, part.data());
  EXPECT_EQ(part, (std::vector<float>{0, 0, 7, 1, 0, 7}));
}

}  // namespace
}  // namespace pto
