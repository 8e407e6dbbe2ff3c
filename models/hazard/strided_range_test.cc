#include "models/hazard/strided_range.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace pto {
namespace {

// Byte-by-byte reference over a small address space.
std::vector<bool> Bytes(const StridedRange& r, uint64_t size) {
  std::vector<bool> in(size, false);
  for (int64_t k = 0; k < r.rows(); ++k) {
    const uint64_t start = r.begin + static_cast<uint64_t>(k) * r.stride;
    for (uint64_t b = start; b < start + r.row; ++b) in[b] = true;
  }
  return in;
}

TEST(StridedRangeTest, RowsThatAbutOrRepeatAreContiguous) {
  const StridedRange abut = StridedRange::Rows(100, 4, 16, 16);
  EXPECT_TRUE(abut.contiguous());
  EXPECT_EQ(abut.end, 164u);
  EXPECT_TRUE(StridedRange::Rows(100, 1, 16, 64).contiguous());
  EXPECT_EQ(StridedRange::Rows(100, 5, 16, 0).end, 116u);  // stride 0: one row, again and again
  const StridedRange rows = StridedRange::Rows(100, 4, 16, 64);
  EXPECT_FALSE(rows.contiguous());
  EXPECT_EQ(rows.rows(), 4);
  EXPECT_EQ(rows.end, 100u + 3 * 64 + 16);
}

// Every pair of a family of small ranges against the byte-level reference.
TEST(StridedRangeTest, IntersectAndCoversMatchTheBytes) {
  std::vector<StridedRange> ranges;
  for (uint64_t begin : {0, 3, 8, 16, 21}) {
    for (int64_t rows : {1, 2, 5}) {
      for (uint64_t row : {2, 4, 8}) {
        for (uint64_t stride : {8, 12, 16, 24}) {
          if (stride <= row && rows > 1) continue;
          ranges.push_back(StridedRange::Rows(begin, rows, row, stride));
        }
      }
    }
  }
  constexpr uint64_t kSize = 160;
  int overlapping = 0;
  for (const StridedRange& a : ranges) {
    const std::vector<bool> in_a = Bytes(a, kSize);
    for (const StridedRange& b : ranges) {
      const std::vector<bool> in_b = Bytes(b, kSize);
      uint64_t want_lo = kSize;
      uint64_t want_hi = 0;
      bool covers = true;
      for (uint64_t i = 0; i < kSize; ++i) {
        if (in_a[i] && in_b[i]) {
          want_lo = std::min(want_lo, i);
          want_hi = i + 1;
        }
        if (in_b[i] && !in_a[i]) covers = false;
      }
      uint64_t lo = 0;
      uint64_t hi = 0;
      const bool meet = Intersect(a, b, &lo, &hi);
      ASSERT_EQ(meet, want_hi > 0) << a.begin << "/" << a.row << "/" << a.stride << " vs "
                                   << b.begin << "/" << b.row << "/" << b.stride;
      if (meet) {
        ++overlapping;
        EXPECT_EQ(lo, want_lo);
        EXPECT_EQ(hi, want_hi);
      }
      EXPECT_EQ(Covers(a, b), covers) << a.begin << "/" << a.row << "/" << a.stride << " over "
                                      << b.begin << "/" << b.row << "/" << b.stride;
    }
  }
  EXPECT_GT(overlapping, 100);
}

// Coalesce merges exactly: the merged range holds the union's bytes and
// nothing else, for every pair of the family above that it merges.
TEST(StridedRangeTest, CoalesceIsExactAndMergesTileLoops) {
  std::vector<StridedRange> ranges;
  for (uint64_t begin : {0, 4, 8, 16, 24, 32}) {
    for (int64_t rows : {1, 2, 3}) {
      for (uint64_t row : {4, 8}) {
        for (uint64_t stride : {8, 16}) {
          if (stride <= row && rows > 1) continue;
          ranges.push_back(StridedRange::Rows(begin, rows, row, stride));
        }
      }
    }
  }
  constexpr uint64_t kSize = 160;
  int merged_pairs = 0;
  for (const StridedRange& a : ranges) {
    for (const StridedRange& b : ranges) {
      StridedRange merged;
      if (!Coalesce(a, b, &merged)) continue;
      ++merged_pairs;
      std::vector<bool> both = Bytes(a, kSize);
      const std::vector<bool> in_b = Bytes(b, kSize);
      for (uint64_t i = 0; i < kSize; ++i) both[i] = both[i] || in_b[i];
      EXPECT_EQ(Bytes(merged, kSize), both) << a.begin << "/" << a.row << "/" << a.stride << " + "
                                            << b.begin << "/" << b.row << "/" << b.stride;
    }
  }
  EXPECT_GT(merged_pairs, 100);
  // A K loop's tiles of B: 4 rows each, the next 4 rows after them.
  StridedRange merged;
  ASSERT_TRUE(
      Coalesce(StridedRange::Rows(0, 4, 64, 512), StridedRange::Rows(2048, 4, 64, 512), &merged));
  EXPECT_EQ(merged.rows(), 8);
  EXPECT_EQ(merged.row, 64u);
  // Of A: the next 64 bytes of the same rows.
  ASSERT_TRUE(
      Coalesce(StridedRange::Rows(0, 4, 64, 512), StridedRange::Rows(64, 4, 64, 512), &merged));
  EXPECT_EQ(merged.rows(), 4);
  EXPECT_EQ(merged.row, 128u);
  // Not the same rows: no single range holds exactly both.
  EXPECT_FALSE(
      Coalesce(StridedRange::Rows(0, 4, 64, 512), StridedRange::Rows(64, 3, 64, 512), &merged));
}

TEST(StridedRangeTest, WritesRoundOutToLinesRowByRow) {
  StridedRange rounded;
  ASSERT_TRUE(RoundOutToLines(StridedRange::Rows(70, 3, 10, 128), 64, &rounded));
  EXPECT_EQ(rounded.begin, 64u);
  EXPECT_EQ(rounded.row, 64u);
  EXPECT_EQ(rounded.stride, 128u);
  EXPECT_EQ(rounded.end, 64u + 2 * 128 + 64);
  // Rounded rows that reach each other are one range.
  ASSERT_TRUE(RoundOutToLines(StridedRange::Rows(0, 3, 100, 128), 64, &rounded));
  EXPECT_TRUE(rounded.contiguous());
  EXPECT_EQ(rounded.end, 384u);
  // A stride off the line grid does not round evenly.
  EXPECT_FALSE(RoundOutToLines(StridedRange::Rows(0, 3, 10, 100), 64, &rounded));
}

}  // namespace
}  // namespace pto
