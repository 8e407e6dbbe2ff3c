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
  for (TaskSeq seq = 0; seq < 5; ++seq) detector.EndTask(seq);
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

TEST(HazardDetectorTest, AtomicAddsOfUnorderedTasksDoNotConflict) {
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

TEST(HazardDetectorTest, TransitivePathsOrderTasks) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "produce");
  detector.AddAccess(0, GmAccessKind::kWrite, kOut, 4096);
  detector.AddTask(1, "middle");
  detector.AddDependency(0, 1);
  detector.AddTask(2, "consume");
  detector.AddDependency(1, 2);
  EXPECT_TRUE(detector.Reaches(0, 2));
  EXPECT_FALSE(detector.Reaches(2, 0));
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
  detector.EndTask(1);  // waits for task 0
  EXPECT_THAT(detector.TakeReports(), IsEmpty());
  detector.AddAccess(0, GmAccessKind::kWrite, kScratch, 256);
  detector.EndTask(0);
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
  // Eight named, the other 92 counted.
  ASSERT_THAT(reports[0].others, SizeIs(HazardDetector::kMaxOthers));
  EXPECT_EQ(reports[0].more_others, 92);
  for (const HazardTask& other : reports[0].others) EXPECT_EQ(other.seq % 2, 1u);
  EXPECT_THAT(reports[0].detail, HasSubstr("'writer' (#15) and 92 more write,"));
}

TEST(HazardDetectorTest, AnEdgeAddedLaterOverridesAnEarlierNoPathAnswer) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "a");
  detector.AddTask(1, "b");
  EXPECT_FALSE(detector.Reaches(0, 1));
  detector.AddDependency(0, 1);
  EXPECT_TRUE(detector.Reaches(0, 1));
}

TEST(HazardDetectorTest, MemoryIsBoundedByTheTaskWindow) {
  // Unordered readers of one input and writers of their own rows, in ring 0
  // with a window of 8: a task is retired once task local + 7 is checked.
  HazardDetector::Options options;
  options.task_window = {8, 8, 8, 8};
  HazardDetector detector(options, Resolve);
  for (TaskSeq seq = 0; seq < 10'000; ++seq) {
    detector.AddTask(seq, "row", /*ring=*/0, /*local=*/static_cast<uint32_t>(seq));
    detector.AddAccess(seq, GmAccessKind::kRead, kA, 4096);
    detector.AddAccess(seq, GmAccessKind::kWrite, kOut + (seq % 512) * 64, 64);
    detector.EndTask(seq);
    EXPECT_LE(detector.live_tasks(), 8);
  }
  detector.Flush();
  EXPECT_THAT(detector.TakeReports(), IsEmpty());
  EXPECT_EQ(detector.peak_live_tasks(), 8);
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
    detector.EndTask(seq);
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

// The gated case: an SPMD writer of y, a gate, and a predicated
// task with deps=[gate] that reads and rewrites y. Whichever order the
// cores finish them in, the reports are the same.
std::vector<std::string> GatedCaseLines(const std::vector<TaskSeq>& end_order) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "write_y");
  detector.AddTask(1, "gate");
  detector.AddTask(2, "update_y");
  detector.AddDependency(1, 2);
  detector.AddPredicateRead(2, kA, 4);
  for (TaskSeq seq : end_order) {
    if (seq == 0) detector.AddAccess(0, GmAccessKind::kWrite, kOut, 4096);
    if (seq == 1) detector.AddAccess(1, GmAccessKind::kWrite, kA, 4);
    if (seq == 2) {
      detector.AddAccess(2, GmAccessKind::kRead, kOut, 4096);
      detector.AddAccess(2, GmAccessKind::kWrite, kOut, 4096);
    }
    detector.EndTask(seq);
  }
  detector.Flush();
  std::vector<std::string> lines;
  for (const HazardReport& report : detector.TakeReports()) lines.push_back(FormatHazard(report));
  return lines;
}

TEST(HazardDetectorTest, ReportsDoNotDependOnTheOrderTasksFinish) {
  const std::vector<std::string> in_order = GatedCaseLines({0, 1, 2});
  ASSERT_THAT(in_order, SizeIs(2));
  EXPECT_THAT(in_order[0], HasSubstr("hazard: RAW on out bytes [0, 4096): 'update_y' (#2) reads "
                                     "bytes that 'write_y' (#0) writes"));
  EXPECT_THAT(in_order[1], HasSubstr("hazard: WAW on out bytes [0, 4096)"));
  EXPECT_EQ(GatedCaseLines({2, 1, 0}), in_order);
  EXPECT_EQ(GatedCaseLines({1, 2, 0}), in_order);
}

// Ring 0 with a task window of 4: local id L is admitted only once local
// L - 3 retired.
HazardDetector WindowDetector() {
  HazardDetector::Options options;
  options.task_window = {4, 4, 4, 4};
  return HazardDetector(options, Resolve);
}

TEST(HazardDetectorTest, TheWindowOrdersATaskBeforeTheOneWMinusOneSlotsLater) {
  for (uint32_t reader_local : {2u, 3u}) {
    HazardDetector detector = WindowDetector();
    detector.AddTask(0, "writer", 0, 0);
    detector.AddAccess(0, GmAccessKind::kWrite, kOut, 64);
    for (uint32_t local = 1; local <= reader_local; ++local) {
      detector.AddTask(local, local == reader_local ? "reader" : "other", 0, local);
    }
    detector.AddAccess(reader_local, GmAccessKind::kRead, kOut, 4);
    detector.Flush();
    // Local 3 = 0 + W - 1 could only be submitted after local 0 retired.
    EXPECT_THAT(detector.TakeReports(), SizeIs(reader_local == 3 ? 0 : 1)) << reader_local;
  }
}

TEST(HazardDetectorTest, TheWindowOrdersEveryLaterSubmissionAndTheRetiredTasksAncestors) {
  // A ring-1 writer, a ring-0 task depending on it, and ring-0 tasks that
  // push the window past that task: everything submitted afterwards, in
  // any ring, is ordered after both.
  HazardDetector detector = WindowDetector();
  detector.AddTask(0, "inner_writer", 1, 0);
  detector.AddAccess(0, GmAccessKind::kWrite, kOut, 64);
  detector.AddTask(1, "outer_consumer", 0, 0);
  detector.AddDependency(0, 1);
  for (uint32_t local = 1; local <= 3; ++local) detector.AddTask(1 + local, "outer", 0, local);
  detector.AddTask(5, "inner_reader", 1, 1);
  detector.AddAccess(5, GmAccessKind::kRead, kOut, 4);
  detector.Flush();
  EXPECT_THAT(detector.TakeReports(), IsEmpty());
}

TEST(HazardDetectorTest, AScopeEndOrdersNothing) {
  // Ring 1 holds an inner scope's tasks; after the scope ends, ring-0 tasks
  // follow. Neither the scope's end nor ring 1's window (whose later slots
  // are never used) orders the inner writer before the outer reader.
  HazardDetector detector = WindowDetector();
  detector.AddTask(0, "inner_writer", 1, 0);
  detector.AddAccess(0, GmAccessKind::kWrite, kOut, 64);
  for (uint32_t local = 0; local < 2; ++local) detector.AddTask(1 + local, "outer", 0, local);
  detector.AddAccess(2, GmAccessKind::kRead, kOut, 4);
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_EQ(reports[0].kind, HazardKind::kRaw);
  EXPECT_THAT(Seqs(reports[0].others), ElementsAre(0));
}

TEST(HazardDetectorTest, AtomicAddsConflictWithPlainReadsAndWrites) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "accumulate");
  detector.AddAccess(0, GmAccessKind::kAtomicAdd, kOut, 64);
  detector.AddTask(1, "accumulate");
  detector.AddAccess(1, GmAccessKind::kAtomicAdd, kOut, 64);  // commutes with #0
  detector.AddTask(2, "peek");
  detector.AddAccess(2, GmAccessKind::kRead, kOut, 4);  // RAW with both
  detector.AddTask(3, "reset");
  detector.AddAccess(3, GmAccessKind::kWrite, kOut, 64);  // WAW with both, WAR with #2
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(3));
  EXPECT_EQ(reports[0].kind, HazardKind::kRaw);
  EXPECT_THAT(Seqs(reports[0].others), ElementsAre(0, 1));
  EXPECT_EQ(reports[1].kind, HazardKind::kWaw);
  EXPECT_THAT(Seqs(reports[1].others), ElementsAre(0, 1));
  EXPECT_EQ(reports[2].kind, HazardKind::kWar);
  EXPECT_THAT(Seqs(reports[2].others), ElementsAre(2));
}

// An atomic add over two index buckets that a later write covers (and is
// reported against) is dropped from both: a reader ordered after the write
// is not told about the atomic again.
TEST(HazardDetectorTest, AnAtomicAcrossBucketsIsSupersededLikeAWrite) {
  const uint64_t kTwoBuckets = 2 * HazardDetector::Options().index_granule_bytes;
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "accumulate");
  detector.AddAccess(0, GmAccessKind::kAtomicAdd, kScratch, kTwoBuckets);
  detector.AddTask(1, "reset");  // unordered with #0: WAW, reported
  detector.AddAccess(1, GmAccessKind::kWrite, kScratch, kTwoBuckets);
  detector.AddTask(2, "read_after_reset");
  detector.AddDependency(1, 2);
  detector.AddAccess(2, GmAccessKind::kRead, kScratch, kTwoBuckets);
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_EQ(reports[0].kind, HazardKind::kWaw);
  EXPECT_EQ(reports[0].task.seq, 1u);
}

// A read's scan of a level below its own probes each chunk when it spans a
// few and walks the buckets there are when it spans many: either way it
// finds every unordered writer inside it and none outside.
TEST(HazardDetectorTest, ANarrowAndAWideScanFindTheSameWriters) {
  // Writers of 64 bytes, one per two level-0 chunks; reads of 4, 16 and 128
  // chunks, all inside `scratch` (128 KiB).
  const uint64_t kGap = 2 * HazardDetector::Options().index_granule_bytes;
  ASSERT_EQ(64 * kGap, kTensorBytes);
  for (const int writers_inside : {2, 8, 64}) {
    HazardDetector detector = MakeDetector();
    for (TaskSeq w = 0; w < 80; ++w) {
      detector.AddTask(w, "scatter");
      detector.AddAccess(w, GmAccessKind::kWrite, kScratch + w * kGap, 64);
    }
    detector.AddTask(80, "gather");
    detector.AddAccess(80, GmAccessKind::kRead, kScratch, writers_inside * kGap);
    detector.Flush();
    const std::vector<HazardReport> reports = detector.TakeReports();
    ASSERT_THAT(reports, SizeIs(1)) << writers_inside;
    EXPECT_EQ(reports[0].kind, HazardKind::kRaw);
    const int named = static_cast<int>(reports[0].others.size());
    EXPECT_EQ(named + reports[0].more_others, writers_inside);
    EXPECT_EQ(reports[0].others.front().seq, 0u);
    EXPECT_EQ(reports[0].region_begin, kScratch);
    EXPECT_EQ(reports[0].region_end, kScratch + (writers_inside - 1) * kGap + 64);
  }
}

// A task's producers in one call: repeats, itself and unknown tasks are
// skipped, and the edges order exactly what one call per edge orders.
TEST(HazardDetectorTest, ProducersAddedTogetherOrderWhatEachEdgeOrders) {
  HazardDetector together = MakeDetector();
  HazardDetector one_by_one = MakeDetector();
  for (HazardDetector* detector : {&together, &one_by_one}) {
    for (TaskSeq t = 0; t < 6; ++t) detector->AddTask(t, "t");
  }
  const std::vector<TaskSeq> producers = {3, 1, 3, 5, 99, 4};  // 5 is the task itself
  together.AddDependencies(producers, 5);
  for (TaskSeq p : producers) one_by_one.AddDependency(p, 5);
  one_by_one.AddDependency(0, 1);
  together.AddDependencies(std::vector<TaskSeq>{0}, 1);
  for (TaskSeq from = 0; from < 5; ++from) {
    EXPECT_EQ(together.Reaches(from, 5), one_by_one.Reaches(from, 5)) << from;
  }
  EXPECT_TRUE(together.Reaches(0, 5));  // through 1
  EXPECT_TRUE(together.Reaches(4, 5));  // the task just before: the chain fast path
  EXPECT_FALSE(together.Reaches(2, 5));
}

// A few rows far apart (kept row by row) conflict only where their rows
// are: a write between them is no hazard, one onto a row is.
TEST(HazardDetectorTest, AFewFarRowsConflictOnlyOnTheirRows) {
  constexpr uint64_t kApart = 1 << 20;
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "spmd_reader");  // four blocks' 64-byte rows, 1 MiB apart
  detector.AddRowsAccess(0, GmAccessKind::kRead, kScratch, 4, 64, kApart);
  detector.AddTask(1, "between");
  detector.AddAccess(1, GmAccessKind::kWrite, kScratch + 2 * kApart + 4096, 64);
  detector.AddTask(2, "onto_row_3");
  detector.AddAccess(2, GmAccessKind::kWrite, kScratch + 3 * kApart, 32);
  detector.AddTask(3, "late_reader");  // after the writer, not after the reader
  detector.AddDependency(2, 3);
  detector.AddRowsAccess(3, GmAccessKind::kRead, kScratch + kApart, 3, 64, kApart);
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_EQ(reports[0].kind, HazardKind::kWar);
  EXPECT_EQ(reports[0].task.seq, 2u);
  EXPECT_THAT(Seqs(reports[0].others), ElementsAre(0));
  EXPECT_EQ(reports[0].region_begin, kScratch + 3 * kApart);
  EXPECT_EQ(reports[0].region_end, kScratch + 3 * kApart + 64);  // the write's whole line
}

TEST(HazardDetectorTest, AHostReadOrdersWhatItWaitedForAndItsAncestorsBeforeLaterTasks) {
  for (bool host_read : {false, true}) {
    HazardDetector detector = MakeDetector();
    detector.AddTask(0, "feed");
    detector.AddAccess(0, GmAccessKind::kWrite, kA, 64);
    detector.AddTask(1, "produce");
    detector.AddDependency(0, 1);
    detector.AddAccess(1, GmAccessKind::kWrite, kOut, 64);
    if (host_read) {
      const TaskSeq waited[] = {1};
      detector.AddHostRead(kOut, 4, waited, "kernel.py:12");
    }
    detector.AddTask(2, "overwrite");
    detector.AddAccess(2, GmAccessKind::kWrite, kA, 64);
    detector.AddAccess(2, GmAccessKind::kWrite, kOut, 64);
    detector.Flush();
    // Without the read: #2 races with #0 on a and with #1 on out.
    EXPECT_THAT(detector.TakeReports(), SizeIs(host_read ? 0 : 2)) << host_read;
  }
}

TEST(HazardDetectorTest, AHostReadOfAnElementAnUnwaitedTaskWritesIsStale) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(0, "registered");
  detector.AddAccess(0, GmAccessKind::kWrite, kOut, 64);
  detector.AddTask(1, "unregistered");
  detector.AddAccess(1, GmAccessKind::kWrite, kOut, 64);
  detector.AddDependency(0, 1);
  detector.AddTask(2, "elsewhere");
  detector.AddAccess(2, GmAccessKind::kWrite, kA, 64);
  const TaskSeq waited[] = {0};
  detector.AddHostRead(kOut + 8, 4, waited, "kernel.py:20");
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_EQ(reports[0].kind, HazardKind::kStaleRead);
  EXPECT_THAT(Seqs(reports[0].others), ElementsAre(1));
  EXPECT_THAT(FormatHazard(reports[0]),
              HasSubstr("hazard: stale host read on out bytes [8, 12): the orchestration's read "
                        "at kernel.py:20 reads an element that 'unregistered' (#1) writes"));
}

TEST(HazardDetectorTest, ThousandsOfUnorderedWritersGiveLinearReports) {
  // Each writer's WAW names only the latest earlier one: a covering write
  // drops what it was reported against.
  HazardDetector detector = MakeDetector();
  for (TaskSeq seq = 0; seq < 3000; ++seq) {
    detector.AddTask(seq, "tile_writer");
    detector.AddAccess(seq, GmAccessKind::kWrite, kOut, 4096);
    detector.EndTask(seq);
  }
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(2999));
  for (const HazardReport& report : reports) {
    ASSERT_THAT(report.others, SizeIs(1));
    EXPECT_EQ(report.others[0].seq + 1, report.task.seq);
  }
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

// An index entry spans less than 512 MiB: a longer access is indexed in
// pieces, and a conflict anywhere in it is still found -- at either end of a
// 3 GiB write, and in the last rows of a strided read spanning 2 GiB.
TEST(HazardDetectorTest, AccessesLongerThanAnIndexEntryAreCheckedWhole) {
  constexpr uint64_t kBase = uint64_t{1} << 40;
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  HazardDetector detector = MakeDetector();
  detector.AddTask(7, "big_write");
  detector.AddAccess(7, GmAccessKind::kWrite, kBase, 3 * kGiB);
  detector.AddTask(8, "reads_the_end");
  detector.AddAccess(8, GmAccessKind::kRead, kBase + 3 * kGiB - 64, 64);
  detector.AddTask(9, "reads_the_start");
  detector.AddAccess(9, GmAccessKind::kRead, kBase, 4);
  // Rows of 4 KiB every 1 MiB over 2 GiB, past the big write: the last row
  // meets task 11's write.
  detector.AddTask(10, "strided_read");
  detector.AddRowsAccess(10, GmAccessKind::kRead, kBase + 4 * kGiB, 2048, 4096, 1 << 20);
  detector.AddTask(11, "writes_the_last_row");
  detector.AddAccess(11, GmAccessKind::kWrite, kBase + 4 * kGiB + 2047 * (1 << 20), 64);
  detector.AddTask(12, "writes_between_rows");
  detector.AddAccess(12, GmAccessKind::kWrite, kBase + 4 * kGiB + 2046 * (1 << 20) + 8192, 64);
  for (TaskSeq seq = 7; seq <= 12; ++seq) detector.EndTask(seq);
  detector.Flush();
  std::vector<std::pair<TaskSeq, HazardKind>> found;
  for (const HazardReport& report : detector.TakeReports()) {
    found.emplace_back(report.task.seq, report.kind);
  }
  EXPECT_THAT(found, ElementsAre(std::make_pair(TaskSeq{8}, HazardKind::kRaw),
                                 std::make_pair(TaskSeq{9}, HazardKind::kRaw),
                                 std::make_pair(TaskSeq{11}, HazardKind::kWar)));
}

// A node names its task by a 32-bit offset from the launch's first (the
// all-ones offset is reserved): a task 2^32 - 1 or more past it is not
// followed, and is counted, never mistaken for another.
TEST(HazardDetectorTest, TasksPastTwoToTheThirtyTwoAreCountedNotChecked) {
  HazardDetector detector = MakeDetector();
  detector.AddTask(5, "writer");
  detector.AddAccess(5, GmAccessKind::kWrite, kScratch, kBand);
  detector.AddTask(6, "unordered_reader");
  detector.AddAccess(6, GmAccessKind::kRead, kScratch, kBand);
  const TaskSeq far = 5 + (TaskSeq{1} << 32);        // its offset would alias task 5's
  const TaskSeq reserved = TaskSeq{5} + UINT32_MAX;  // the all-ones offset
  const TaskSeq last = reserved - 1;                 // the last task followed
  detector.AddTask(last, "last_reader");             // followed: unordered after the writer
  detector.AddAccess(last, GmAccessKind::kRead, kScratch, kBand);
  for (TaskSeq seq : {reserved, far}) {
    detector.AddTask(seq, "far_reader");
    detector.AddDependency(5, seq);
    detector.AddAccess(seq, GmAccessKind::kRead, kScratch, kBand);
  }
  for (TaskSeq seq : {TaskSeq{5}, TaskSeq{6}, last, reserved, far}) detector.EndTask(seq);
  detector.Flush();
  const std::vector<HazardReport> reports = detector.TakeReports();
  ASSERT_THAT(reports, SizeIs(2));
  EXPECT_EQ(reports[0].task.seq, 6u);
  EXPECT_EQ(reports[0].kind, HazardKind::kRaw);
  EXPECT_EQ(reports[1].task.seq, last);
  EXPECT_EQ(reports[1].kind, HazardKind::kRaw);
  EXPECT_EQ(detector.unchecked_tasks(), 2);
  EXPECT_EQ(detector.live_tasks(), 3);
}

}  // namespace
}  // namespace pto
