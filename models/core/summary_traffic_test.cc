#include "models/core/summary_traffic.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

BoundArg Tensor(uint64_t addr, uint64_t bytes, trace::ArgDirection direction) {
  TensorBinding t;
  t.gm_addr = addr;
  t.dtype = trace::FP32;
  t.rank = 1;
  t.shape[0] = static_cast<int64_t>(bytes / 4);
  t.strides[0] = 1;
  t.direction = direction;
  t.footprint_bytes = bytes;
  return BoundArg::Tensor(t);
}

MATCHER_P2(IsSpan, base, bytes, "") { return arg.base == base && arg.bytes == bytes; }
MATCHER_P3(IsRun, base, row_bytes, rows, "") {
  return arg.base == base && arg.row_bytes == row_bytes && arg.rows == rows &&
         arg.stride == (rows == 1 ? row_bytes : 0);
}

TEST(SummaryTrafficTest, ReadsComeFromInputsAndWritesGoToOutputsInArgumentOrder) {
  const std::vector<BoundArg> args = {
      Tensor(0x1000, 64, trace::INPUT),
      BoundArg::Int(7),
      Tensor(0x2000, 32, trace::OUTPUT),
      Tensor(0x3000, 128, trace::INOUT),
      Tensor(0x4000, 0, trace::INPUT),  // an empty view moves nothing
      Tensor(0x5000, 16, trace::OUTPUT_EXISTING),
      Tensor(0x6000, 8, trace::NO_DEP)};
  std::vector<GmSpan> spans;
  SummarySpans(args, GmDirection::kRead, &spans);
  EXPECT_THAT(spans, testing::ElementsAre(IsSpan(0x1000u, 64u), IsSpan(0x3000u, 128u),
                                          IsSpan(0x6000u, 8u)));
  SummarySpans(args, GmDirection::kWrite, &spans);  // replaces what it held
  EXPECT_THAT(spans, testing::ElementsAre(IsSpan(0x2000u, 32u), IsSpan(0x3000u, 128u),
                                          IsSpan(0x5000u, 16u)));
}

TEST(SummaryTrafficTest, BytesAreSharedOverBlocksThenPhasesThenLanesWithRemaindersLast) {
  // 1000 bytes over 3 blocks: 333, 333, 334.
  ByteSlice s = SummarySlice(1000, {/*block=*/2, /*blocks=*/3, 0, 1, 0, 1});
  EXPECT_EQ(s.offset, 666u);
  EXPECT_EQ(s.bytes, 334u);
  // Block 2's 334 over 2 phases (167 each), phase 1's over 3 lanes: 55, 55, 57.
  s = SummarySlice(1000, {2, 3, /*phase=*/1, /*phases=*/2, /*lane=*/2, /*lanes=*/3});
  EXPECT_EQ(s.offset, 666u + 167u + 110u);
  EXPECT_EQ(s.bytes, 57u);
  s = SummarySlice(1000, {2, 3, 1, 2, /*lane=*/0, 3});
  EXPECT_EQ(s.offset, 666u + 167u);
  EXPECT_EQ(s.bytes, 55u);
}

TEST(SummaryTrafficTest, ASliceBecomesARunPerSpanItCrosses) {
  const std::vector<GmSpan> spans = {{0x1000, 100}, {0x5000, 50}};
  std::vector<GmRuns> runs;
  AppendStreamRuns(spans, {80, 40}, &runs);
  EXPECT_THAT(runs, testing::ElementsAre(IsRun(0x1000u + 80, 20u, 1), IsRun(0x5000u, 20u, 1)));
  // Past the end, the stream starts over.
  runs.clear();
  AppendStreamRuns(spans, {140, 30}, &runs);
  EXPECT_THAT(runs, testing::ElementsAre(IsRun(0x5000u + 40, 10u, 1), IsRun(0x1000u, 20u, 1)));
  runs.clear();
  AppendStreamRuns(spans, {300 + 10, 20}, &runs);  // offsets wrap too
  EXPECT_THAT(runs, testing::ElementsAre(IsRun(0x1000u + 10, 20u, 1)));
}

TEST(SummaryTrafficTest, WholePassesOverTheStreamAreRepeatedRows) {
  const std::vector<GmSpan> spans = {{0x1000, 100}, {0x5000, 50}};
  std::vector<GmRuns> runs;
  // 2 passes of 150 bytes, then 20 more from offset 0.
  AppendStreamRuns(spans, {0, 320}, &runs);
  EXPECT_THAT(runs, testing::ElementsAre(IsRun(0x1000u, 100u, 2), IsRun(0x5000u, 50u, 2),
                                         IsRun(0x1000u, 20u, 1)));
  uint64_t bytes = 0;
  for (const GmRuns& r : runs) bytes += r.bytes();
  EXPECT_EQ(bytes, 320u);
  // A billion passes are still three runs.
  runs.clear();
  AppendStreamRuns(spans, {0, 150'000'000'000}, &runs);
  EXPECT_THAT(runs, testing::ElementsAre(IsRun(0x1000u, 100u, 1'000'000'000),
                                         IsRun(0x5000u, 50u, 1'000'000'000)));
}

TEST(SummaryTrafficTest, NoSpansOrNoBytesMakeNoRuns) {
  std::vector<GmRuns> runs;
  AppendStreamRuns({}, {0, 100}, &runs);
  AppendStreamRuns(std::vector<GmSpan>{{0x1000, 100}}, {0, 0}, &runs);
  EXPECT_TRUE(runs.empty());
}

}  // namespace
}  // namespace pto
