#include "models/hazard/block_handoff.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/hazard/hazard_detector.h"

namespace pto {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

constexpr uint64_t kOut = 0x300000;
constexpr uint64_t kBand = 256;  // four 64-byte lines per block
constexpr int kBlocks = 4;
constexpr int kFirstCore = 24;  // aiv0 on a 24-cluster chip

bool Resolve(uint64_t addr, HazardTensor* tensor) {
  if (addr < kOut || addr >= kOut + kBlocks * kBand) return false;
  *tensor = {7, "out", kOut};
  return true;
}

enum class Clean { kNone, kAll, kRegion };

struct Protocol {
  Clean writer_clean = Clean::kAll;
  bool writer_fence = true;
  bool syncall = true;
  Clean reader_invalidate = Clean::kAll;
};

// The soft-barrier kernel with a hand-off: each block writes its band of
// `out`, (publishes,) syncs, (invalidates,) then reads its neighbour's band.
std::vector<HazardReport> RunPhasedKernel(const Protocol& protocol) {
  HazardDetector detector(HazardDetector::Options(), Resolve);
  const TaskSeq task = 3;
  detector.AddTask(task, "phased_add");
  for (int block = 0; block < kBlocks; ++block) {
    const int core = kFirstCore + block;
    const uint64_t own = kOut + block * kBand;
    const uint64_t neighbour = kOut + ((block + 1) % kBlocks) * kBand;
    detector.AddBlockAccess(task, block, core, GmAccessKind::kWrite, own, kBand);
    if (protocol.writer_clean == Clean::kAll) {
      detector.AddBlockEvent(task, block, core, BlockEventKind::kCacheInvalidAll);
    } else if (protocol.writer_clean == Clean::kRegion) {
      detector.AddBlockEvent(task, block, core, BlockEventKind::kCacheInvalidLine, own);
    }
    if (protocol.writer_fence) detector.AddBlockEvent(task, block, core, BlockEventKind::kFence);
    if (protocol.syncall) detector.AddBlockEvent(task, block, core, BlockEventKind::kSyncall);
    if (protocol.reader_invalidate == Clean::kAll) {
      detector.AddBlockEvent(task, block, core, BlockEventKind::kCacheInvalidAll);
    } else if (protocol.reader_invalidate == Clean::kRegion) {
      detector.AddBlockEvent(task, block, core, BlockEventKind::kCacheInvalidLine, neighbour);
    }
    detector.AddBlockAccess(task, block, core, GmAccessKind::kRead, neighbour, kBand);
  }
  detector.EndTask(task);
  return detector.TakeReports();
}

// Column strips of `out` ([4, 64] FP32 rows of 256 B): block b writes
// `width` bytes of each row at column offset b * width, syncs (without the
// protocol), then reads its neighbour's strip; logged as one rows entry per
// transfer or row by row.
std::vector<HazardReport> RunColumnStrips(uint64_t width, bool as_rows) {
  HazardDetector detector(HazardDetector::Options(), Resolve);
  const TaskSeq task = 5;
  detector.AddTask(task, "strips");
  const auto access = [&](int block, GmAccessKind kind, uint64_t base) {
    if (as_rows) {
      detector.AddBlockRowsAccess(task, block, kFirstCore + block, kind, base, 4, width, kBand);
    } else {
      for (uint64_t r = 0; r < 4; ++r) {
        detector.AddBlockAccess(task, block, kFirstCore + block, kind, base + r * kBand, width);
      }
    }
  };
  for (int block = 0; block < kBlocks; ++block) {
    access(block, GmAccessKind::kWrite, kOut + block * width);
    detector.AddBlockEvent(task, block, kFirstCore + block, BlockEventKind::kSyncall);
    access(block, GmAccessKind::kRead, kOut + ((block + 1) % kBlocks) * width);
  }
  detector.EndTask(task);
  return detector.TakeReports();
}

TEST(BlockHandoffTest, ATransfersRowsInOneEntryReportWhatTheRowsDo) {
  // 64 B strips: whole lines, so only the unpublished hand-offs; 16 B
  // strips: every block writes into one line of each row, false sharing too.
  for (const uint64_t width : {64, 16}) {
    SCOPED_TRACE(width);
    const std::vector<HazardReport> rows = RunColumnStrips(width, true);
    const std::vector<HazardReport> by_row = RunColumnStrips(width, false);
    ASSERT_THAT(rows, SizeIs(by_row.size()));
    EXPECT_THAT(rows, SizeIs(width == 64 ? kBlocks : kBlocks + 6));
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].kind, by_row[i].kind);
      EXPECT_EQ(rows[i].blocks[0].block, by_row[i].blocks[0].block);
      EXPECT_EQ(rows[i].blocks[1].block, by_row[i].blocks[1].block);
      EXPECT_EQ(rows[i].region_begin, by_row[i].region_begin);
      EXPECT_EQ(rows[i].region_end, by_row[i].region_end);
      EXPECT_EQ(rows[i].detail, by_row[i].detail);
    }
  }
}

TEST(BlockHandoffTest, ThePrescribedPublishProtocolIsClean) {
  EXPECT_THAT(RunPhasedKernel(Protocol()), IsEmpty());
}

TEST(BlockHandoffTest, AHandOffWithoutCacheinvalidAndFenceIsUnpublished) {
  Protocol protocol;
  protocol.writer_clean = Clean::kNone;
  protocol.writer_fence = false;
  protocol.reader_invalidate = Clean::kNone;
  const std::vector<HazardReport> reports = RunPhasedKernel(protocol);
  ASSERT_THAT(reports, SizeIs(kBlocks));   // one per (writer, reader) pair
  const HazardReport& first = reports[0];  // block 0 reads block 1's band
  EXPECT_EQ(first.kind, HazardKind::kUnpublished);
  EXPECT_EQ(first.task.seq, 3u);
  ASSERT_THAT(first.blocks, SizeIs(2));
  EXPECT_EQ(first.blocks[0].block, 1);
  EXPECT_EQ(first.blocks[0].core, kFirstCore + 1);
  EXPECT_EQ(first.blocks[1].block, 0);
  EXPECT_EQ(first.tensor.name, "out");
  EXPECT_EQ(first.region_begin, kOut + kBand);
  EXPECT_EQ(first.region_end, kOut + 2 * kBand);
  EXPECT_THAT(first.fix, HasSubstr("pl.system.cacheinvalid() + pl.system.fence() before the "
                                   "syncall in the writer"));
  EXPECT_THAT(first.fix, HasSubstr("pl.system.cacheinvalid() after the syncall in the reader"));
  EXPECT_THAT(FormatHazard(first),
              HasSubstr("hazard: unpublished hand-off in task 'phased_add' (#3) on out bytes "
                        "[256, 512): block 0 (core 24) reads bytes block 1 (core 25) wrote "
                        "before a syncall, without the publish protocol"));
}

TEST(BlockHandoffTest, TheRegionOverloadInTheWriterPublishesOnlyTheFirstLine) {
  Protocol protocol;
  protocol.writer_clean = Clean::kRegion;
  const std::vector<HazardReport> reports = RunPhasedKernel(protocol);
  ASSERT_THAT(reports, SizeIs(kBlocks));
  const HazardReport& first = reports[0];
  // The first line of block 1's band arrived; the other three did not.
  EXPECT_EQ(first.region_begin, kOut + kBand + 64);
  EXPECT_EQ(first.region_end, kOut + 2 * kBand);
  EXPECT_THAT(first.detail, HasSubstr("writes back only the line holding the view's base "
                                      "address: 1 of 4 lines of the hand-off arrive"));
  EXPECT_THAT(first.fix, HasSubstr("whole-GM pl.system.cacheinvalid() (not the region overload)"));
  EXPECT_THAT(first.fix, Not(HasSubstr("in the reader")));
}

TEST(BlockHandoffTest, TheRegionOverloadInTheReaderRefreshesOnlyOneLine) {
  Protocol protocol;
  protocol.reader_invalidate = Clean::kRegion;
  const std::vector<HazardReport> reports = RunPhasedKernel(protocol);
  ASSERT_THAT(reports, SizeIs(kBlocks));
  EXPECT_EQ(reports[0].region_begin, kOut + kBand + 64);
  EXPECT_THAT(reports[0].fix, HasSubstr("whole-GM pl.system.cacheinvalid() after the syncall in "
                                        "the reader"));
}

TEST(BlockHandoffTest, AMissingFenceIsNamed) {
  Protocol protocol;
  protocol.writer_fence = false;
  const std::vector<HazardReport> reports = RunPhasedKernel(protocol);
  ASSERT_THAT(reports, SizeIs(kBlocks));
  EXPECT_EQ(reports[0].fix,
            "pl.system.fence() after cacheinvalid() and before the syncall in the writer");
}

TEST(BlockHandoffTest, WithoutASyncallTheReadIsUnordered) {
  Protocol protocol;
  protocol.syncall = false;
  const std::vector<HazardReport> reports = RunPhasedKernel(protocol);
  ASSERT_THAT(reports, SizeIs(kBlocks));
  EXPECT_THAT(reports[0].detail, HasSubstr("with no syncall between them"));
  EXPECT_THAT(reports[0].fix, HasSubstr("put a pl.system.syncall() between them"));
}

std::vector<HazardReport> Check(const std::vector<BlockLogEntry>& log) {
  std::vector<HazardReport> reports;
  CheckBlockHandoffs(log, 64, {5, "spmd"}, Resolve, &reports);
  return reports;
}

BlockLogEntry Access(int block, GmAccessKind kind, uint64_t addr, uint64_t size) {
  BlockLogEntry entry;
  entry.block = block;
  entry.core = kFirstCore + block;
  entry.access = kind;
  entry.begin = addr;
  entry.end = addr + size;
  return entry;
}

BlockLogEntry Event(int block, BlockEventKind event) {
  BlockLogEntry entry;
  entry.block = block;
  entry.core = kFirstCore + block;
  entry.is_event = true;
  entry.event = event;
  return entry;
}

TEST(BlockHandoffTest, TwoBlocksWritingAlternateElementsOfALineAreFalseSharing) {
  std::vector<BlockLogEntry> log;
  for (int i = 0; i < 16; ++i) log.push_back(Access(i % 2, GmAccessKind::kWrite, kOut + 4 * i, 4));
  const std::vector<HazardReport> reports = Check(log);
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_EQ(reports[0].kind, HazardKind::kFalseSharing);
  ASSERT_THAT(reports[0].blocks, SizeIs(2));
  EXPECT_EQ(reports[0].blocks[0].block, 0);
  EXPECT_EQ(reports[0].blocks[1].block, 1);
  EXPECT_EQ(reports[0].blocks[1].core, kFirstCore + 1);
  EXPECT_EQ(reports[0].region_begin, kOut);
  EXPECT_EQ(reports[0].region_end, kOut + 64);
  EXPECT_THAT(FormatHazard(reports[0]),
              HasSubstr("hazard: false sharing in task 'spmd' (#5) on out bytes [0, 64): block 0 "
                        "(core 24) and block 1 (core 25) write the same cache line(s)"));
  EXPECT_THAT(reports[0].fix, HasSubstr("whole 64-byte lines"));
}

TEST(BlockHandoffTest, TheTwoVectorLanesOfOneMixBlockCanShareALine) {
  // Block 0 of a MIX task: AIV0 (core 24) and AIV1 (core 25) split a row.
  std::vector<BlockLogEntry> log;
  for (int lane = 0; lane < 2; ++lane) {
    BlockLogEntry entry = Access(0, GmAccessKind::kWrite, kOut + 32 * lane, 32);
    entry.core = kFirstCore + lane;
    log.push_back(entry);
  }
  const std::vector<HazardReport> reports = Check(log);
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_EQ(reports[0].kind, HazardKind::kFalseSharing);
  EXPECT_EQ(reports[0].blocks[0].core, kFirstCore);
  EXPECT_EQ(reports[0].blocks[1].core, kFirstCore + 1);
}

TEST(BlockHandoffTest, BlocksOwningWholeLinesDoNotShare) {
  std::vector<BlockLogEntry> log;
  for (int block = 0; block < 4; ++block) {
    log.push_back(Access(block, GmAccessKind::kWrite, kOut + 64 * block, 64));
  }
  EXPECT_THAT(Check(log), IsEmpty());
}

TEST(BlockHandoffTest, AtomicAddsIntoOneLineAreExempt) {
  std::vector<BlockLogEntry> log;
  for (int block = 0; block < 4; ++block) {
    log.push_back(Access(block, GmAccessKind::kAtomicAdd, kOut, 64));
    log.push_back(Access(block, GmAccessKind::kRead, kOut + 64 * block, 64));
  }
  EXPECT_THAT(Check(log), IsEmpty());
}

TEST(BlockHandoffTest, ABlockReadingItsOwnWritesNeedsNoProtocol) {
  std::vector<BlockLogEntry> log = {
      Access(0, GmAccessKind::kWrite, kOut, 256), Access(1, GmAccessKind::kWrite, kOut + 256, 256),
      Access(0, GmAccessKind::kRead, kOut, 256), Access(1, GmAccessKind::kRead, kOut + 256, 256)};
  EXPECT_THAT(Check(log), IsEmpty());
}

TEST(BlockHandoffTest, AReadBeforeTheWritersPhaseIsOrderedByTheBarrier) {
  // Block 1 reads in phase 0; block 0 overwrites those bytes in phase 1.
  std::vector<BlockLogEntry> log = {
      Access(1, GmAccessKind::kRead, kOut, 64), Event(1, BlockEventKind::kSyncall),
      Event(0, BlockEventKind::kSyncall), Access(0, GmAccessKind::kWrite, kOut, 64)};
  EXPECT_THAT(Check(log), IsEmpty());
}

TEST(BlockHandoffTest, ALineWrittenInTurnIsSafeOnlyWithTheProtocol) {
  const std::vector<BlockLogEntry> published = {Access(0, GmAccessKind::kWrite, kOut, 4),
                                                Event(0, BlockEventKind::kCacheInvalidAll),
                                                Event(0, BlockEventKind::kFence),
                                                Event(0, BlockEventKind::kSyncall),
                                                Event(1, BlockEventKind::kSyncall),
                                                Event(1, BlockEventKind::kCacheInvalidAll),
                                                Access(1, GmAccessKind::kWrite, kOut + 4, 4)};
  EXPECT_THAT(Check(published), IsEmpty());
  const std::vector<BlockLogEntry> unpublished = {
      Access(0, GmAccessKind::kWrite, kOut, 4), Event(0, BlockEventKind::kSyncall),
      Event(1, BlockEventKind::kSyncall), Access(1, GmAccessKind::kWrite, kOut + 4, 4)};
  const std::vector<HazardReport> reports = Check(unpublished);
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_EQ(reports[0].kind, HazardKind::kFalseSharing);
  EXPECT_THAT(reports[0].fix, HasSubstr("before the syncall in the writer"));
}

TEST(BlockHandoffTest, ADirtyingWriteAfterTheCleanIsNotPublished) {
  const std::vector<BlockLogEntry> log = {
      Access(0, GmAccessKind::kWrite, kOut, 64), Event(0, BlockEventKind::kCacheInvalidAll),
      Access(0, GmAccessKind::kWrite, kOut, 64),  // dirties the line again
      Event(0, BlockEventKind::kFence),          Event(0, BlockEventKind::kSyncall),
      Event(1, BlockEventKind::kSyncall),        Event(1, BlockEventKind::kCacheInvalidAll),
      Access(1, GmAccessKind::kRead, kOut, 64)};
  const std::vector<HazardReport> reports = Check(log);
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_THAT(reports[0].detail, HasSubstr("never cacheinvalid()s the line after writing it"));
}

TEST(BlockHandoffTest, AnInvalidateBeforeTheSyncallDoesNotCountForTheReader) {
  // The reader drops its lines too early: it may cache the line again (a
  // prefetch, an earlier read) before the writer's data lands.
  const std::vector<BlockLogEntry> log = {
      Access(0, GmAccessKind::kWrite, kOut, 64),  Event(0, BlockEventKind::kCacheInvalidAll),
      Event(0, BlockEventKind::kFence),           Event(0, BlockEventKind::kSyncall),
      Event(1, BlockEventKind::kCacheInvalidAll), Event(1, BlockEventKind::kSyncall),
      Access(1, GmAccessKind::kRead, kOut, 64)};
  const std::vector<HazardReport> reports = Check(log);
  ASSERT_THAT(reports, SizeIs(1));
  EXPECT_EQ(reports[0].fix,
            "pl.system.cacheinvalid() after the syncall in the reader, before the read");
}

TEST(BlockHandoffTest, ASingleBlockTaskIsNeverChecked) {
  const std::vector<BlockLogEntry> log = {Access(0, GmAccessKind::kWrite, kOut, 4),
                                          Access(0, GmAccessKind::kRead, kOut, 4)};
  EXPECT_THAT(Check(log), IsEmpty());
}

}  // namespace
}  // namespace pto
