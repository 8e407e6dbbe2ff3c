#include "models/gm/gm_request.h"

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

}  // namespace
}  // namespace pto
