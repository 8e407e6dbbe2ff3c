#include "models/hazard/hazard_detector.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// GM of the dependency kernels (hw-native-sys/pypto@e2d0f78a
// docs/en/user/performance/03-dependencies.md): a, scratch and
// out are [256, 128] FP32; bands of 64 rows are 32 KiB.
constexpr uint64_t kA = 0x100000;
constexpr uint64_t kScratch = 0x200000;
constexpr uint64_t kOut = 0x300000;
constexpr uint64_t kTensorBytes = 256 * 128 * 4;
constexpr uint64_t kBand = 64 * 128 * 4;

bool Resolve(uint64_t addr, HazardTensor* tensor) {
  const struct {
    uint64_t base;
    const char* name;
  } tensors[] = {{kA, "a"}, {kScratch, "scratch"}, {kOut, "out"}};
  for (int id = 0; id < 3; ++id) {
    if (addr >= tensors[id].base && addr < tensors[id].base + kTensorBytes) {
      *tensor = {id, tensors[id].name, tensors[id].base};
      return true;
    }
  }
  return false;
}

HazardDetector MakeDetector() { return HazardDetector(HazardDetector::Options(), Resolve); }

std::vector<TaskSeq> Seqs(const std::vector<HazardTask>& tasks) {
  std::vector<TaskSeq> seqs;
  for (const HazardTask& task : tasks) seqs.push_back(task.seq);
  return seqs;
}

// tensor_claim: four writers store bands of `scratch` (manual_dep, so no
// inferred edges); copy_out reads all of it.
void SubmitTensorClaim(HazardDetector& detector, bool with_deps) {
  for (TaskSeq w = 0; w < 4; ++w) {
    detector.AddTask(w, "tensor_claim.writer");
    detector.AddAccess(w, GmAccessKind::kRead, kA + w * kBand, kBand);
    detector.AddAccess(w, GmAccessKind::kWrite, kScratch + w * kBand, kBand);
  }
  detector.AddTask(4, "tensor_claim.copy_out");
  if (with_deps) {
    for (TaskSeq w = 0; w < 4; ++w) detector.AddDependency(w, 4);
  }
  for (uint64_t band = 0; band < 4; ++band) {
    detector.AddAccess(4, GmAccessKind::kRead, kScratch + band * kBand, kBand);
    detector.AddAccess(4, GmAccessKind::kWrite, kOut + band * kBand, kBand);
  }
  for (TaskSeq seq = 0; seq < 5; ++seq) detector.RetireTask(seq);
}

TEST(HazardDetectorTest, TensorClaimWithoutDepsIsARawNamingTheWritersAndScratch) {
  HazardDetector detector = MakeDetector();
  SubmitTensorClaim(detector, /*with_deps=*/false);
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));
  const HazardReport& raw = reports[0];
  EXPECT_EQ(raw.kind, HazardKind::kRaw);
  EXPECT_EQ(raw.task.seq, 4u);
  EXPECT_EQ(raw.task.name, "tensor_claim.copy_out");
  EXPECT_THAT(Seqs(raw.others), ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(raw.tensor.name, "scratch");
  EXPECT_EQ(raw.region_begin, kScratch);
  EXPECT_EQ(raw.region_end, kScratch + kTensorBytes);
  EXPECT_THAT(raw.fix, HasSubstr("add deps=['tensor_claim.writer' (#0), "));
  EXPECT_THAT(raw.fix, HasSubstr("on 'tensor_claim.copy_out' (#4)"));
  EXPECT_EQ(FormatHazard(raw),
            "hazard: RAW on scratch bytes [0, 131072): 'tensor_claim.copy_out' (#4) reads bytes "
            "that 'tensor_claim.writer' (#0), 'tensor_claim.writer' (#1), 'tensor_claim.writer' "
            "(#2), 'tensor_claim.writer' (#3) write, and no dependency path orders them; fix: "
            "add deps=['tensor_claim.writer' (#0), 'tensor_claim.writer' (#1), "
            "'tensor_claim.writer' (#2), 'tensor_claim.writer' (#3)] on "
            "'tensor_claim.copy_out' (#4)");
  EXPECT_EQ(detector.live_tasks(), 0);
}

TEST(HazardDetectorTest, TensorClaimWithDepsIsClean) {
  HazardDetector detector = MakeDetector();
  SubmitTensorClaim(detector, /*with_deps=*/true);
  EXPECT_THAT(detector.TakeReports(), IsEmpty());
}

TEST(HazardDetectorTest, DisjointBandsOfOneTensorAreNotAHazard) {
  // narrow_claim / region_claim / sliced: four unordered writers of bands.
  HazardDetector detector = MakeDetector();
  for (TaskSeq w = 0; w < 4; ++w) {
    detector.AddTask(w, "band");
    detector.AddAccess(w, GmAccessKind::kRead, kA + w * kBand, kBand);
    detector.AddAccess(w, GmAccessKind::kWrite, kOut + w * kBand, kBand);
  }
  detector.Flush();
  EXPECT_THAT(detector.TakeReports(), IsEmpty());
}

TEST(HazardDetectorTest, AtomicAddTasksAreNeverReported) {
  HazardDetector detector = MakeDetector();
  for (TaskSeq t = 0; t < 4; ++t) {
    detector.AddTask(t, "accumulate");
    detector.AddAccess(t, GmAccessKind::kAtomicAdd, kOut, 64);
  }
  detector.Flush();
  EXPECT_THAT(detector.TakeReports(), IsEmpty());
}

TEST(HazardDetectorTest, WritesClaimWholeLinesSoSharedLinesAreAWaw) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "left");
  detector.AddAccess(0, GmAccessKind::kWrite, kOut, 32);
  detector.AddTask(1, "right");
  detector.AddAccess(1, GmAccessKind::kWrite, kOut + 32, 32);
  detector.AddTask(2, "next_line");
  detector.AddAccess(2, GmAccessKind::kWrite, kOut + 64, 64);
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_EQ(reports[0].kind, HazardKind::kWaw);
  EXPECT_EQ(reports[0].task.seq, 1u);
  EXPECT_THAT(Seqs(reports[0].others), ElementsAre(0));
  EXPECT_EQ(reports[0].region_begin, kOut);
  EXPECT_EQ(reports[0].region_end, kOut + 64);
}

TEST(HazardDetectorTest, AnUnorderedOverwriteOfAReadIsAWarWithTheSeedsFix) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "reader");
  detector.AddAccess(0, GmAccessKind::kRead, kA, 1024);
  detector.AddTask(1, "overwriter");
  detector.AddAccess(1, GmAccessKind::kWrite, kA + 512, 1024);
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_EQ(reports[0].kind, HazardKind::kWar);
  EXPECT_EQ(reports[0].region_begin, kA + 512);
  EXPECT_EQ(reports[0].region_end, kA + 1024);
  EXPECT_THAT(reports[0].fix, HasSubstr("add deps=['reader' (#0)] on 'overwriter' (#1)"));
  EXPECT_THAT(reports[0].fix, HasSubstr("keep the reader INPUT"));
}

TEST(HazardDetectorTest, TransitivePathsOrderTasksEvenThroughRetiredOnes) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "produce");
  detector.AddAccess(0, GmAccessKind::kWrite, kOut, 4096);
  detector.AddTask(1, "middle");
  detector.AddDependency(0, 1);
  detector.AddTask(2, "consume");
  detector.AddDependency(1, 2);
  EXPECT_TRUE(detector.Reaches(0, 2));
  EXPECT_FALSE(detector.Reaches(2, 0));
  detector.RetireTask(1);  // out of order: its edges are spliced
  EXPECT_TRUE(detector.Reaches(0, 2));
  detector.AddAccess(2, GmAccessKind::kRead, kOut, 4096);
  detector.Flush();
  EXPECT_THAT(detector.TakeReports(), IsEmpty());
}

TEST(HazardDetectorTest, AccessesReportedInAnyOrderAreCompared) {
  // The later task runs (and reports) first: the race is still found.
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "early_writer");
  detector.AddTask(1, "late_reader");
  detector.AddAccess(1, GmAccessKind::kRead, kScratch, 256);
  detector.AddAccess(0, GmAccessKind::kWrite, kScratch, 256);
  detector.RetireTask(0);
  EXPECT_THAT(detector.TakeReports(), IsEmpty());  // reported with the later side
  detector.RetireTask(1);
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_EQ(reports[0].kind, HazardKind::kRaw);
  EXPECT_EQ(reports[0].task.seq, 1u);
}

TEST(HazardDetectorTest, APredicateWhoseProducerIsNotADependencyIsReported) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "set_flag");
  detector.AddAccess(0, GmAccessKind::kWrite, kA, 4);
  detector.AddTask(1, "unrelated");
  detector.AddDependency(0, 1);
  detector.AddTask(2, "gated");
  detector.AddPredicateRead(2, kA, 4);
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_EQ(reports[0].kind, HazardKind::kPredicate);
  EXPECT_EQ(reports[0].task.seq, 2u);
  EXPECT_THAT(Seqs(reports[0].others), ElementsAre(0));
  EXPECT_THAT(FormatHazard(reports[0]),
              HasSubstr("hazard: predicate read on a bytes [0, 4): the predicate of 'gated' (#2) "
                        "reads an element that 'set_flag' (#0) writes"));
  EXPECT_THAT(reports[0].fix, HasSubstr("add deps=['set_flag' (#0)] on 'gated' (#2)"));
}

TEST(HazardDetectorTest, APredicateOrderedThroughATransitiveDependencyIsClean) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "set_flag");
  detector.AddAccess(0, GmAccessKind::kWrite, kA, 4);
  detector.AddTask(1, "middle");
  detector.AddDependency(0, 1);
  detector.AddTask(2, "gated");
  detector.AddDependency(1, 2);
  detector.AddPredicateRead(2, kA, 4);
  detector.Flush();
  EXPECT_THAT(detector.TakeReports(), IsEmpty());
}

TEST(HazardDetectorTest, TheChainFastPathCoversOnlyTheChain) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "outsider");
  detector.AddTask(1, "chain_head");
  detector.AddTask(2, "chain_next");
  detector.AddDependency(1, 2);
  detector.AddTask(3, "chain_tail");
  detector.AddDependency(2, 3);
  EXPECT_TRUE(detector.Reaches(1, 3));
  EXPECT_TRUE(detector.Reaches(2, 3));
  EXPECT_FALSE(detector.Reaches(0, 3));
  detector.AddTask(4, "joins_outsider");
  detector.AddDependency(0, 4);  // not the previous task: no fast path
  EXPECT_TRUE(detector.Reaches(0, 4));
  EXPECT_FALSE(detector.Reaches(3, 4));
  EXPECT_FALSE(detector.Reaches(1, 4));
}

TEST(HazardDetectorTest, TasksAddedOutOfOrderStillGetCorrectAnswers) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(5, "late");
  detector.AddTask(3, "early");
  detector.AddTask(4, "middle");
  detector.AddDependency(3, 4);
  EXPECT_TRUE(detector.Reaches(3, 4));
  EXPECT_FALSE(detector.Reaches(4, 5));
  EXPECT_FALSE(detector.Reaches(3, 5));
}

TEST(HazardDetectorTest, OneWalkAnswersEveryQuestionAboutAFanIn) {
  // A consumer of 200 producers, half of them declared: the unordered half
  // is reported, the declared half not.
  HazardDetector detector = MakeDetector();
  for (TaskSeq w = 0; w < 200; ++w) {
    detector.AddTask(w, "writer");
    detector.AddAccess(w, GmAccessKind::kWrite, kScratch + w * 64, 64);
  }
  detector.AddTask(200, "reduce");
  for (TaskSeq w = 0; w < 200; w += 2) detector.AddDependency(w, 200);
  detector.AddAccess(200, GmAccessKind::kRead, kScratch, 200 * 64);
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));
  ASSERT_THAT(reports[0].others, SizeIs(100));
  for (const HazardTask& other : reports[0].others) EXPECT_EQ(other.seq % 2, 1u);
}

TEST(HazardDetectorTest, AnEdgeAddedLaterOverridesAnEarlierNoPathAnswer) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "a");
  detector.AddTask(1, "b");
  EXPECT_FALSE(detector.Reaches(0, 1));
  detector.AddDependency(0, 1);
  EXPECT_TRUE(detector.Reaches(0, 1));
}

TEST(HazardDetectorTest, MemoryIsBoundedByTheLiveWindow) {
  HazardDetector detector = MakeDetector();
  for (TaskSeq seq = 0; seq < 10'000; ++seq) {
    detector.AddTask(seq, "chain");
    if (seq > 0) detector.AddDependency(seq - 1, seq);
    detector.AddAccess(seq, GmAccessKind::kRead, kOut, 4096);
    detector.AddAccess(seq, GmAccessKind::kWrite, kOut, 4096);
    if (seq >= 8) detector.RetireTask(seq - 8);
    EXPECT_LE(detector.live_tasks(), 9);
  }
  detector.Flush();
  EXPECT_THAT(detector.TakeReports(), IsEmpty());
}

TEST(HazardDetectorTest, StridedViewsAreReportedAsTheirContiguousRuns) {
  // Two column halves of `out` ([256, 128] FP32): rows of 64 elements that
  // interleave but never share a 64-byte line (256 B per half-row).
  HazardDetector detector = MakeDetector();
  const int64_t shape[] = {256, 64};
  const int64_t strides[] = {128, 1};
  detector.AddTask(0, "left_half");
  detector.AddViewAccess(0, GmAccessKind::kWrite, kOut, 4, shape, strides);
  detector.AddTask(1, "right_half");
  detector.AddViewAccess(1, GmAccessKind::kWrite, kOut + 64 * 4, 4, shape, strides);
  detector.AddTask(2, "one_column");
  const int64_t column_shape[] = {256, 1};
  detector.AddViewAccess(2, GmAccessKind::kRead, kOut + 4, 4, column_shape, strides);
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  // Only the column read overlaps, and only the left half.
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_EQ(reports[0].kind, HazardKind::kRaw);
  EXPECT_THAT(Seqs(reports[0].others), ElementsAre(0));
  EXPECT_EQ(reports[0].region_begin, kOut + 4);
  EXPECT_EQ(reports[0].region_end, kOut + 255 * 512 + 8);
}

TEST(HazardDetectorTest, AViewOfManyRowsIsOneExactStridedRange) {
  // Even and odd 64-byte lines of `a`, 8192 rows each: they interleave, so
  // only their bounds overlap, and nothing is reported.
  HazardDetector detector = MakeDetector();
  const int64_t shape[] = {8192, 16};
  const int64_t strides[] = {32, 1};  // FP32: 64 B rows, 128 B apart
  detector.AddTask(0, "even_lines");
  detector.AddViewAccess(0, GmAccessKind::kWrite, kA, 4, shape, strides);
  detector.AddTask(1, "odd_lines");
  detector.AddViewAccess(1, GmAccessKind::kRead, kA + 64, 4, shape, strides);
  detector.AddTask(2, "last_even_line");
  detector.AddAccess(2, GmAccessKind::kRead, kA + 8191 * 128, 4);
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_EQ(reports[0].task.seq, 2u);
  EXPECT_EQ(reports[0].kind, HazardKind::kRaw);
  EXPECT_EQ(reports[0].region_begin, kA + 8191 * 128);
  EXPECT_EQ(reports[0].region_end, kA + 8191 * 128 + 4);
}

TEST(HazardDetectorTest, ViewsWithTooManyRunsFallBackToTheirBoundingRange) {
  HazardDetector detector = MakeDetector();
  // 8192 × 2 single FP32 elements, every other one: 8192 strided ranges of
  // 2 rows, more than kMaxViewRuns, so the view counts as its bounds.
  const int64_t shape[] = {8192, 2, 1};
  const int64_t strides[] = {4, 2, 1};
  detector.AddTask(0, "even");
  detector.AddViewAccess(0, GmAccessKind::kRead, kA, 4, shape, strides);
  detector.AddTask(1, "odd_writer");
  detector.AddAccess(1, GmAccessKind::kWrite, kA + 4 * 8192 * 4 - 64, 64);
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));  // the bounding range reaches the last line
  EXPECT_EQ(reports[0].kind, HazardKind::kWar);
}

// A tile transfer's rows as one strided range find what the same rows one
// by one find: the same reports, regions and superseding.
TEST(HazardDetectorTest, RowsAtOnceReportWhatRowByRowReports) {
  const auto run = [](bool at_once) {
    HazardDetector detector = MakeDetector();
    const auto rows = [&](TaskSeq task, GmAccessKind kind, uint64_t addr, int64_t n, uint64_t row,
                          uint64_t stride) {
      if (at_once) {
        detector.AddRowsAccess(task, kind, addr, n, row, stride);
      } else {
        for (int64_t r = 0; r < n; ++r) detector.AddAccess(task, kind, addr + r * stride, row);
      }
    };
    // Column tiles of `scratch` ([256, 128] FP32 rows of 512 B): writers of
    // 128 B column pieces, a reader across two of them, one ordered rewrite.
    for (TaskSeq w = 0; w < 4; ++w) {
      detector.AddTask(w, "column_writer");
      rows(w, GmAccessKind::kWrite, kScratch + w * 128, 256, 128, 512);
    }
    detector.AddTask(4, "rewrite");
    detector.AddDependency(0, 4);
    rows(4, GmAccessKind::kWrite, kScratch, 256, 128, 512);
    detector.AddTask(5, "reader");
    rows(5, GmAccessKind::kRead, kScratch + 64 + 512 * 10, 100, 128, 512);
    detector.Flush();
    return detector.TakeReports();
  };
  const std::vector<HazardReport> at_once = run(true);
  const std::vector<HazardReport> by_row = run(false);
  ASSERT_THAT(at_once, SizeIs(by_row.size()));
  // The reader's rows straddle columns 0 and 1: one RAW naming column 1's
  // writer and the rewrite, which superseded column 0's writer.
  ASSERT_THAT(at_once, SizeIs(1));
  EXPECT_EQ(at_once[0].kind, HazardKind::kRaw);
  EXPECT_THAT(Seqs(at_once[0].others), ElementsAre(1, 4));
  EXPECT_EQ(at_once[0].region_begin, kScratch + 512 * 10 + 64);
  EXPECT_EQ(at_once[0].region_end, kScratch + 512 * 109 + 192);
  for (size_t i = 0; i < at_once.size(); ++i) {
    EXPECT_EQ(at_once[i].kind, by_row[i].kind);
    EXPECT_EQ(at_once[i].task.seq, by_row[i].task.seq);
    EXPECT_EQ(Seqs(at_once[i].others), Seqs(by_row[i].others));
    EXPECT_EQ(at_once[i].region_begin, by_row[i].region_begin);
    EXPECT_EQ(at_once[i].region_end, by_row[i].region_end);
  }
}

TEST(HazardDetectorTest, AnOrderedCoveringWriteSupersedesOlderAccesses) {
  // 0 writes, 1 (after 0) rewrites the same lines; 2 reads them unordered
  // with both: one RAW naming the latest writer, 1.
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "first");
  detector.AddAccess(0, GmAccessKind::kWrite, kOut, 256);
  detector.AddTask(1, "second");
  detector.AddDependency(0, 1);
  detector.AddAccess(1, GmAccessKind::kWrite, kOut, 256);
  detector.AddTask(2, "outsider");
  detector.AddAccess(2, GmAccessKind::kRead, kOut + 64, 4);
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_THAT(Seqs(reports[0].others), ElementsAre(1));
}

TEST(HazardDetectorTest, RowByRowRewritesSupersedeRowByRowAndKeepReportOrder) {
  // A chain of 8 tasks rewrites the 128 rows of `out` one 512 B row at a
  // time (rows superseded in place, compacted as they pile up), then two
  // outsiders read rows of it unordered: each report names only the last
  // writer, and reports keep their order (the first-read row's tensor first).
  constexpr uint64_t kRow = 512;
  HazardDetector detector = MakeDetector();
  for (TaskSeq seq = 0; seq < 8; ++seq) {
    detector.AddTask(seq, "writer");
    if (seq > 0) detector.AddDependency(seq - 1, seq);
    for (uint64_t row = 0; row < 128; ++row) {
      detector.AddAccess(seq, GmAccessKind::kWrite, kOut + row * kRow, kRow);
    }
    if (seq >= 2) detector.RetireTask(seq - 2);  // retirement sweeps dead rows too
  }
  detector.AddTask(8, "outsider");
  detector.AddAccess(8, GmAccessKind::kRead, kA, 4);  // clean
  detector.AddAccess(8, GmAccessKind::kRead, kOut + 5 * kRow + 8, 4);
  detector.AddAccess(8, GmAccessKind::kRead, kOut + 100 * kRow, 2 * kRow);
  detector.AddTask(9, "late");
  detector.AddDependency(7, 9);
  detector.AddAccess(9, GmAccessKind::kWrite, kOut, 128 * kRow);  // WAR with 8 only
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(2));
  EXPECT_EQ(reports[0].kind, HazardKind::kRaw);
  EXPECT_EQ(reports[0].task.seq, 8u);
  EXPECT_THAT(Seqs(reports[0].others), ElementsAre(7));
  EXPECT_EQ(reports[0].region_begin, kOut + 5 * kRow + 8);
  EXPECT_EQ(reports[0].region_end, kOut + 102 * kRow);
  EXPECT_EQ(reports[1].kind, HazardKind::kWar);
  EXPECT_EQ(reports[1].task.seq, 9u);
  EXPECT_THAT(Seqs(reports[1].others), ElementsAre(8));
  EXPECT_EQ(detector.live_tasks(), 4);  // 6..9
}

TEST(HazardDetectorTest, APartialOverwriteKeepsTheOlderWriterVisible) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "whole");
  detector.AddAccess(0, GmAccessKind::kWrite, kOut, 256);
  detector.AddTask(1, "part");
  detector.AddDependency(0, 1);
  detector.AddAccess(1, GmAccessKind::kWrite, kOut, 64);
  detector.AddTask(2, "outsider");
  detector.AddAccess(2, GmAccessKind::kRead, kOut + 128, 4);
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_THAT(Seqs(reports[0].others), ElementsAre(0));
}

TEST(HazardDetectorTest, UnknownAddressesAreNamedAsSuch) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "w");
  detector.AddAccess(0, GmAccessKind::kWrite, 0x40, 64);
  detector.AddTask(1, "r");
  detector.AddAccess(1, GmAccessKind::kRead, 0x40, 4);
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_THAT(FormatHazard(reports[0]), HasSubstr("on <unknown tensor> at GM [0x40, 0x44)"));
}

}  // namespace
}  // namespace pto
