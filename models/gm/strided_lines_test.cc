#include "models/gm/strided_lines.h"

#include <random>
#include <set>

#include "gtest/gtest.h"

namespace pto {
namespace {

std::set<uint64_t> LinesOf(const StridedLines& set) {
  std::set<uint64_t> lines;
  for (int64_t r = 0; r < set.rows; ++r) {
    for (uint64_t l = 0; l < set.length; ++l) lines.insert(set.row_first(r) + l);
  }
  return lines;
}

StridedLines RandomSet(std::mt19937& random) {
  StridedLines set;
  set.first = random() % 200;
  set.length = 1 + random() % 8;
  set.rows = 1 + static_cast<int64_t>(random() % 6);
  set.stride = set.rows == 1 ? 0 : set.length + 1 + random() % 10;
  return set;
}

TEST(StridedLinesTest, RowsAndMembership) {
  const StridedLines set{10, 3, 8, 4};  // 10-12, 18-20, 26-28, 34-36
  EXPECT_EQ(set.lines(), 12u);
  EXPECT_EQ(set.end(), 37u);
  EXPECT_TRUE(set.Contains(20));
  EXPECT_FALSE(set.Contains(21));
  EXPECT_FALSE(set.Contains(37));
  EXPECT_EQ(set.Rows(1, 3), (StridedLines{18, 3, 8, 2}));
}

TEST(StridedLinesTest, CountInRangeClipsTheEndRows) {
  const StridedLines set{10, 3, 8, 4};
  EXPECT_EQ(CountInRange(set, 0, 100), 12u);
  EXPECT_EQ(CountInRange(set, 11, 35), 2u + 3u + 3u + 1u);
  EXPECT_EQ(CountInRange(set, 13, 18), 0u);  // between two rows
  EXPECT_EQ(CountInRange(set, 19, 20), 1u);  // inside one row
}

// Closed forms and row walks agree with counting the lines one by one, for
// shared and different strides, single rows and disjoint spans alike.
TEST(StridedLinesTest, CountsAndDifferencesMatchLineByLine) {
  std::mt19937 random(11);
  for (int trial = 0; trial < 20000; ++trial) {
    const StridedLines a = RandomSet(random);
    StridedLines b = RandomSet(random);
    if (trial % 3 == 0 && b.rows > 1 && a.rows > 1) {
      b.stride = a.stride;  // tiles of one tensor
      b.length = std::min(b.length, a.stride - 1);
    }
    const std::set<uint64_t> la = LinesOf(a);
    const std::set<uint64_t> lb = LinesOf(b);
    std::set<uint64_t> common;
    std::set<uint64_t> only_a;
    for (const uint64_t l : la) (lb.count(l) ? common : only_a).insert(l);
    ASSERT_EQ(CountCommon(a, b), common.size()) << trial;
    ASSERT_EQ(CountCommon(b, a), common.size()) << trial;
    const uint64_t lo = random() % 250;
    const uint64_t hi = lo + random() % 60;
    uint64_t in_range = 0;
    for (const uint64_t l : la) in_range += l >= lo && l < hi;
    ASSERT_EQ(CountInRange(a, lo, hi), in_range) << trial;

    StridedLinesBuilder builder;
    AddDifference(a, b, &builder);
    std::set<uint64_t> got;
    uint64_t lines = 0;
    for (const StridedLines& piece : builder.Take()) {
      ASSERT_GE(piece.rows, 1);
      ASSERT_TRUE(piece.rows == 1 || piece.stride > piece.length) << trial;
      lines += piece.lines();
      for (const uint64_t l : LinesOf(piece)) got.insert(l);
    }
    ASSERT_EQ(got, only_a) << trial;
    ASSERT_EQ(lines, only_a.size()) << trial;  // disjoint
  }
}

TEST(StridedLinesTest, BuilderMergesRunsOfOneShape) {
  StridedLinesBuilder builder;
  builder.AddRun(0, 4);
  builder.AddRun(4, 4);  // abuts: one row of 8
  builder.AddRun(20, 8);
  builder.AddRun(40, 8);  // same gap: three rows, 20 apart
  builder.AddRun(50, 2);  // another shape
  builder.AddRun(60, 8);  // the first set's next row
  const std::vector<StridedLines>& sets = builder.Take();
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0], (StridedLines{0, 8, 20, 4}));
  EXPECT_EQ(sets[1], (StridedLines{50, 2, 0, 1}));
  builder.AddRun(7, 1);  // a new batch after Take
  EXPECT_EQ(builder.Take().size(), 1u);
}

// Removing one core's column band from a tensor's rows leaves the other
// bands as one strided set, whatever the row count.
TEST(StridedLinesTest, ABandCutFromRowsLeavesFewSets) {
  const StridedLines rows{1000, 64, 68, 512};
  const StridedLines band{1000 + 16, 4, 68, 512};
  StridedLinesBuilder builder;
  AddDifference(rows, band, &builder);
  const std::vector<StridedLines>& sets = builder.Take();
  EXPECT_EQ(sets.size(), 2u);  // the columns left and right of the band
  uint64_t lines = 0;
  for (const StridedLines& s : sets) lines += s.lines();
  EXPECT_EQ(lines, rows.lines() - band.lines());
}

}  // namespace
}  // namespace pto
