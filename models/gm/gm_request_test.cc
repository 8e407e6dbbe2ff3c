#include "models/gm/gm_request.h"

#include <algorithm>
#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;

TEST(GmRunsTest, BytesEndAndContiguousRun) {
  const GmRuns tile{/*base=*/0x1000, /*row_bytes=*/256, /*rows=*/4, /*stride=*/1024};
  EXPECT_EQ(tile.bytes(), 1024u);
  EXPECT_EQ(tile.end(), 0x1000u + 3 * 1024 + 256);
  EXPECT_EQ(tile.contiguous_run_bytes(), 256u);
  // Abutting rows are one run.
  EXPECT_EQ((GmRuns{0, 256, 4, 256}.contiguous_run_bytes()), 1024u);
  EXPECT_EQ((GmRuns{0, 256, 1, 0}.contiguous_run_bytes()), 256u);
}

TEST(GmRunsTest, AcceptsTileViewsAndOverlappingReads) {
  EXPECT_TRUE(CheckRuns({0x1000, 256, 4, 1024}, GmDirection::kWrite).ok());
  EXPECT_TRUE(CheckRuns({0x1000, 256, 4, 256}, GmDirection::kWrite).ok());
  // Reading a row twice (a broadcast view) is harmless.
  EXPECT_TRUE(CheckRuns({0x1000, 256, 4, 0}, GmDirection::kRead).ok());
}

TEST(GmRunsTest, RefusesZeroRowsAndEmptyRows) {
  const absl::Status rows = CheckRuns({0x1000, 256, 0, 256}, GmDirection::kRead);
  EXPECT_EQ(rows.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(rows.message(), HasSubstr("rows is 0; expected >= 1"));
  EXPECT_THAT(CheckRuns({0x1000, 0, 4, 256}, GmDirection::kRead).message(),
              HasSubstr("row_bytes is 0"));
}

TEST(GmRunsTest, RefusesAWriteWhoseRowsOverlap) {
  const absl::Status status = CheckRuns({0x1000, 256, 4, 128}, GmDirection::kWrite);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("GM write at 0x1000: rows of 256 bytes are 128 bytes "
                                          "apart, so they overlap"));
  // One row cannot overlap itself, whatever its stride says.
  EXPECT_TRUE(CheckRuns({0x1000, 256, 1, 0}, GmDirection::kWrite).ok());
}

TEST(GmRunsTest, RefusesRunsPastTheAddressSpace) {
  EXPECT_THAT(CheckRuns({~uint64_t{0} - 100, 256, 1, 0}, GmDirection::kRead).message(),
              HasSubstr("past the 64-bit address space"));
  EXPECT_THAT(CheckRuns({0, 256, 4, uint64_t{1} << 63}, GmDirection::kRead).message(),
              HasSubstr("past the 64-bit address space"));
}

TEST(RunsOverlapTest, ColumnTilesOfOneMatrixDoNotMeet) {
  // Two 64x128-byte column tiles side by side in rows of 256 bytes: their
  // spans interleave but no byte is shared; the next column tile over does.
  const GmRuns left{0, 128, 64, 256};
  const GmRuns right{128, 128, 64, 256};
  const GmRuns shifted{64, 128, 64, 256};
  EXPECT_FALSE(RunsOverlap(left, right));
  EXPECT_TRUE(RunsOverlap(left, shifted));
  EXPECT_TRUE(RunsOverlap(right, shifted));
  // A contiguous range inside the gap of row 3 only, and one that reaches row 4.
  EXPECT_FALSE(RunsOverlap(left, GmRuns{3 * 256 + 128, 128, 1, 0}));
  EXPECT_TRUE(RunsOverlap(left, GmRuns{3 * 256 + 128, 129, 1, 0}));
  // Past the last row.
  EXPECT_FALSE(RunsOverlap(left, GmRuns{63 * 256 + 128, 4096, 1, 0}));
}

// Every geometry of a small space against the byte sets it stands for.
TEST(RunsOverlapTest, AgreesWithByteSets) {
  auto bytes = [](const GmRuns& r) {
    std::set<uint64_t> set;
    for (int64_t row = 0; row < r.rows; ++row) {
      for (uint64_t b = 0; b < r.row_bytes; ++b) set.insert(r.base + row * r.stride + b);
    }
    return set;
  };
  std::vector<GmRuns> shapes;
  for (uint64_t base = 0; base < 12; ++base) {
    for (uint64_t row = 1; row <= 5; ++row) {
      for (int64_t rows = 1; rows <= 4; ++rows) {
        for (uint64_t stride : {0, 3, 5, 6, 8}) {
          if ((rows > 1) != (stride > 0)) continue;
          shapes.push_back(GmRuns{base, row, rows, stride});
        }
      }
    }
  }
  std::vector<std::set<uint64_t>> sets;
  for (const GmRuns& shape : shapes) sets.push_back(bytes(shape));
  int checked = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const GmRuns& a = shapes[i];
    const std::set<uint64_t>& in_a = sets[i];
    for (size_t j = 0; j < shapes.size(); ++j) {
      const GmRuns& b = shapes[j];
      const std::set<uint64_t>& in_b = sets[j];
      const bool share =
          std::any_of(in_a.begin(), in_a.end(), [&](uint64_t x) { return in_b.count(x) > 0; });
      ASSERT_EQ(RunsOverlap(a, b), share)
          << "a " << a.base << "+" << a.row_bytes << "x" << a.rows << "/" << a.stride << " b "
          << b.base << "+" << b.row_bytes << "x" << b.rows << "/" << b.stride;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100000);
}

}  // namespace
}  // namespace pto
