#include "models/gm/l2_transfer_cache.h"

#include <random>

#include "gtest/gtest.h"
#include "models/base/chip_config.h"
#include "models/gm/l2_cache.h"
#include "models/gm/l2_test_support.h"

namespace pto {
namespace {

// Exact per-line LRU over the same lines, fully associative.
L2Cache PerLineLru(int64_t lines) { return L2Cache(SmallL2(lines, lines), 1); }

TEST(L2TransferCacheTest, MakeL2ModelPicksByAssociativity) {
  EXPECT_NE(dynamic_cast<L2TransferCache*>(MakeL2Model(SmallL2(64)).get()), nullptr);
  EXPECT_NE(dynamic_cast<L2Cache*>(MakeL2Model(SmallL2(64, 16)).get()), nullptr);
}

TEST(L2TransferCacheTest, AnEntryLosesItsFirstLinesFirst) {
  L2TransferCache l2(SmallL2(8));
  l2.Access(0, 8 * 512, /*is_write=*/true);  // lines 0..7, dirty, one entry
  const L2Access read = l2.Access(100 * 512, 2 * 512);
  EXPECT_EQ(read.miss_lines, 2);
  EXPECT_EQ(read.dirty_evictions, 2);
  EXPECT_FALSE(l2.Contains(0));
  EXPECT_FALSE(l2.Contains(1 * 512));
  EXPECT_TRUE(l2.Contains(2 * 512));
  EXPECT_EQ(l2.resident_lines(), 8);
  EXPECT_EQ(l2.evictions(), 2);
}

TEST(L2TransferCacheTest, AStridedEntryLosesWholeRowsThenPartOfOne) {
  L2TransferCache l2(SmallL2(12));
  int64_t evicted = 0;
  // Four rows of 3 lines, 10 lines apart: lines 0-2, 10-12, 20-22, 30-32.
  l2.AccessRuns(GmRuns{0, 3 * 512, 4, 10 * 512}, false, &evicted);
  l2.Access(1000 * 512, 4 * 512);  // 4 more: row 0 and line 10 go
  EXPECT_FALSE(l2.Contains(2 * 512));
  EXPECT_FALSE(l2.Contains(10 * 512));
  EXPECT_TRUE(l2.Contains(11 * 512));
  EXPECT_TRUE(l2.Contains(20 * 512));
  EXPECT_FALSE(l2.Contains(21 * 512 + 5 * 512));  // between rows
  // Line 11 is now the oldest resident line.
  l2.Access(2000 * 512, 512);
  EXPECT_FALSE(l2.Contains(11 * 512));
  EXPECT_TRUE(l2.Contains(12 * 512));
}

// Line by line, a transfer's first misses push out the oldest lines, which
// here are the ones it would hit next: they miss too.
TEST(L2TransferCacheTest, MissesPushingOutLinesAheadInTheTransferMakeThemMiss) {
  L2TransferCache l2(SmallL2(8));
  L2Cache exact = PerLineLru(8);
  for (L2Model* model : {static_cast<L2Model*>(&l2), static_cast<L2Model*>(&exact)}) {
    model->Access(4 * 512, 4 * 512);   // lines 4..7, the oldest
    model->Access(20 * 512, 4 * 512);  // lines 20..23
  }
  const L2Access a = l2.Access(0, 8 * 512);  // lines 0..7
  const L2Access b = exact.Access(0, 8 * 512);
  EXPECT_EQ(b.miss_lines, 8);
  EXPECT_EQ(a.miss_lines, b.miss_lines);
  EXPECT_FALSE(l2.Contains(20 * 512));
}

// Contiguous working sets that fit, nearly fill or overflow the cache fare
// exactly as under per-line LRU.
TEST(L2TransferCacheTest, ContiguousWorkingSetsMatchPerLineLru) {
  for (const double fraction : {0.5, 0.9, 1.25}) {
    SCOPED_TRACE(fraction);
    const int64_t lines = 8192;
    L2Cache exact = PerLineLru(lines);
    L2TransferCache l2(SmallL2(lines));
    const uint64_t bytes = static_cast<uint64_t>(fraction * lines) * 512;
    for (int pass = 0; pass < 4; ++pass) {
      for (uint64_t at = 0; at < bytes; at += 64 << 10) {
        const uint64_t size = std::min<uint64_t>(64 << 10, bytes - at);
        exact.Access((1 << 24) + at, size, pass % 2 == 1);
        l2.Access((1 << 24) + at, size, pass % 2 == 1);
      }
    }
    EXPECT_EQ(l2.hits(), exact.hits());
    EXPECT_EQ(l2.misses(), exact.misses());
    EXPECT_EQ(l2.dirty_evictions(), exact.dirty_evictions());
  }
}

// Sixteen cores read column bands of a tensor one transfer wrote: every
// band hits, and the entries that record it stay few (host cost).
TEST(L2TransferCacheTest, ColumnBandsOfAWrittenTensorHitAndStayFewEntries) {
  L2TransferCache l2(SmallL2(1 << 16));
  int64_t evicted = 0;
  constexpr uint64_t kRow = 16 * 2048;
  l2.AccessRuns(GmRuns{1 << 20, kRow * 256, 1, 0}, /*is_write=*/true, &evicted);
  EXPECT_EQ(l2.entries(), 1);
  for (uint64_t core = 0; core < 16; ++core) {
    const L2Split band =
        l2.AccessRuns(GmRuns{(1 << 20) + core * 2048, 2048, 256, kRow}, false, &evicted);
    EXPECT_EQ(band.miss_bytes, 0) << core;
    EXPECT_LE(l2.entries(), 4 + static_cast<int64_t>(core)) << core;
  }
  EXPECT_EQ(l2.hits(), 16 * 256 * 4);
  EXPECT_EQ(l2.resident_lines(), 16 * 256 * 4);
}

// Transfers at one stride meet where their offsets in it do, also when a
// row runs past the stride into the next period: the index rules entries
// out by offset, so each case is counted exactly.
TEST(L2TransferCacheTest, RowsAtOneStrideMeetWhereTheirOffsetsDo) {
  constexpr uint64_t kLine = 512;
  constexpr uint64_t kStride = 16 * kLine;
  const auto hit_lines = [&](uint64_t held_offset, uint64_t held_lines, uint64_t offset,
                             uint64_t lines) {
    L2TransferCache l2(SmallL2(1 << 12));
    int64_t evicted = 0;
    l2.AccessRuns(GmRuns{kStride + held_offset * kLine, held_lines * kLine, 8, kStride}, false,
                  &evicted);
    const L2Split split =
        l2.AccessRuns(GmRuns{kStride + offset * kLine, lines * kLine, 8, kStride}, false, &evicted);
    return split.hit_bytes / static_cast<int64_t>(kLine);
  };
  // Held lines 14..17 of each period wrap into the next one's 0 and 1: a
  // row at offset 0 hits in 7 of its 8 rows (the first comes before them).
  EXPECT_EQ(hit_lines(14, 4, 0, 1), 7);
  // A row from offset 3 to 5 reaches the held offset 5: one line a row.
  EXPECT_EQ(hit_lines(5, 2, 3, 3), 8);
  // Held offset 5 over two lines reaches a row at offset 6.
  EXPECT_EQ(hit_lines(5, 2, 6, 1), 8);
  // Offsets 5..6 and 8..9 never meet.
  EXPECT_EQ(hit_lines(5, 2, 8, 2), 0);
  // One offset, other periods of it: the same lines.
  EXPECT_EQ(hit_lines(9, 3, 9, 3), 24);
}

// Random transfers of every shape (contiguous, strided on line boundaries,
// strided off them, overlapping rows, stride 0), reads and writes, over a
// cache they overflow: hits within 0.1 % of per-line LRU (measured:
// 0.002 % fewer), dirty lines written back within 0.5 % (0.3 % more: an
// entry holding lines of both kinds keeps a count, not which ones), before
// and after a clean stream flushes the cache.
TEST(L2TransferCacheTest, RandomTransfersAgreeWithPerLineLru) {
  const int64_t lines = 4096;
  L2Cache exact = PerLineLru(lines);
  L2TransferCache l2(SmallL2(lines));
  std::mt19937 random(3);
  int64_t exact_evicted = 0;
  int64_t evicted = 0;
  L2Split exact_reads;
  L2Split reads;
  for (int i = 0; i < 20000; ++i) {
    GmRuns runs;
    runs.base = (random() % (3 * lines)) * 512 + (random() % 4 == 0 ? random() % 512 : 0);
    runs.rows = 1 + static_cast<int64_t>(random() % 32);
    runs.row_bytes = 1 + random() % 4096;
    switch (random() % 4) {
      case 0:
        runs.stride = runs.row_bytes;
        break;
      case 1:
        runs.stride = (1 + random() % 16) * 512;
        break;
      case 2:
        runs.stride = 1 + random() % 8192;
        break;
      default:
        runs.stride = random() % 8 == 0 ? 0 : runs.row_bytes + random() % 1024;
        break;
    }
    const bool is_write = random() % 3 == 0 && CheckRuns(runs, GmDirection::kWrite).ok();
    const L2Split a = exact.AccessRuns(runs, is_write, &exact_evicted);
    const L2Split b = l2.AccessRuns(runs, is_write, &evicted);
    ASSERT_EQ(a.bytes(), b.bytes());
    if (is_write) continue;
    exact_reads.hit_bytes += a.hit_bytes;
    reads.hit_bytes += b.hit_bytes;
  }
  ASSERT_GT(exact_reads.hit_bytes, 0);
  EXPECT_NEAR(static_cast<double>(reads.hit_bytes) / exact_reads.hit_bytes, 1.0, 0.001);
  EXPECT_NEAR(static_cast<double>(evicted) / exact_evicted, 1.0, 0.005);
  exact.Access(1ull << 40, 2 * lines * 512);
  l2.Access(1ull << 40, 2 * lines * 512);
  EXPECT_NEAR(static_cast<double>(l2.dirty_evictions()) / exact.dirty_evictions(), 1.0, 0.005);
  EXPECT_EQ(l2.resident_lines(), lines);
}

// The decode-like reuse pattern (l2_test_support.h). Hits and dirty
// evictions are those of per-line LRU, fully associative, exactly; per-line
// LRU in 16-way sets (conflict misses) hits within 1 % as often (measured:
// 0.57 % less) and evicts within 0.5 % as many dirty lines (0.03 % fewer).
TEST(L2TransferCacheTest, AReusePatternMatchesPerLineLru) {
  L2Cache exact = PerLineLru(8192);
  L2Cache sets(SmallL2(8192, 16), 1);
  L2TransferCache l2(SmallL2(8192));
  L2Model* const models[] = {&exact, &sets, &l2};
  L2Outcome outcomes[3];
  RunDecodeLikePattern(models, outcomes);
  const L2Outcome& e = outcomes[0];
  const L2Outcome& s = outcomes[1];
  const L2Outcome& t = outcomes[2];
  ASSERT_GT(e.reads.hit_bytes, 0);
  EXPECT_EQ(t.reads.bytes(), e.reads.bytes());
  EXPECT_EQ(t.reads.hit_bytes, e.reads.hit_bytes);
  EXPECT_EQ(t.evicted_bytes, e.evicted_bytes);
  EXPECT_NEAR(static_cast<double>(s.reads.hit_bytes) / t.reads.hit_bytes, 1.0, 0.01);
  EXPECT_NEAR(static_cast<double>(s.evicted_bytes) / t.evicted_bytes, 1.0, 0.005);
}

}  // namespace
}  // namespace pto
