#include "models/aicpu/tensor_map.h"

#include <vector>

#include "gtest/gtest.h"

namespace pto {
namespace {

constexpr uint64_t kOut = 0x100000;
constexpr uint64_t kOther = 0x200000;

// Row band [row, row + rows) of a 256x128 FP32 buffer at `base`.
TensorView Rows(int64_t row, int64_t rows, uint64_t base = kOut) {
  TensorView view;
  view.base_addr = base;
  view.dtype = trace::FP32;
  view.ndims = 2;
  view.start_offset = row * 128;
  view.shape[0] = rows;
  view.shape[1] = 128;
  view.strides[0] = 128;
  view.strides[1] = 1;
  return view;
}

std::vector<TaskSeq> Producers(const std::vector<TensorMapMatch>& matches) {
  std::vector<TaskSeq> producers;
  for (const TensorMapMatch& m : matches) producers.push_back(m.producer);
  return producers;
}

TEST(TensorMapTest, EmptyMapProbesNothing) {
  TensorMap map;
  std::vector<TensorMapMatch> matches = {{0, 9, Overlap::kOther}};
  EXPECT_EQ(map.Lookup(Rows(0, 256), &matches), 0);
  EXPECT_TRUE(matches.empty());
}

TEST(TensorMapTest, LookupReturnsOverlappingEntriesNewestFirstAndCountsProbes) {
  TensorMap map;
  map.Insert(Rows(0, 64), 1);
  map.Insert(Rows(64, 64), 2);
  map.Insert(Rows(0, 64, kOther), 3);  // another buffer: not probed
  map.Insert(Rows(32, 64), 4);
  std::vector<TensorMapMatch> matches;
  EXPECT_EQ(map.Lookup(Rows(0, 128), &matches), 3);
  EXPECT_EQ(Producers(matches), (std::vector<TaskSeq>{4, 2, 1}));
  for (const TensorMapMatch& m : matches) EXPECT_EQ(m.overlap, Overlap::kCovered);
  EXPECT_EQ(map.view(matches[0].entry).start_offset, 32 * 128);

  EXPECT_EQ(map.Lookup(Rows(100, 10), &matches), 3);
  ASSERT_EQ(Producers(matches), (std::vector<TaskSeq>{2}));
  EXPECT_EQ(matches[0].overlap, Overlap::kOther);
}

TEST(TensorMapTest, RemoveDropsOnlyThatEntry) {
  TensorMap map;
  map.Insert(Rows(0, 64), 1);
  map.Insert(Rows(0, 64), 2);
  map.Insert(Rows(0, 64), 3);
  std::vector<TensorMapMatch> matches;
  map.Lookup(Rows(0, 64), &matches);
  ASSERT_EQ(matches.size(), 3u);
  map.Remove(matches[1].entry);  // producer 2, the middle of the chain
  EXPECT_EQ(map.size(), 2u);
  EXPECT_EQ(map.Lookup(Rows(0, 64), &matches), 2);
  EXPECT_EQ(Producers(matches), (std::vector<TaskSeq>{3, 1}));
  EXPECT_EQ(map.producer_count(), 2u);
}

TEST(TensorMapTest, EraseProducerForgetsAllItsEntriesAcrossBuffers) {
  TensorMap map;
  map.Insert(Rows(0, 64), 1);
  map.Insert(Rows(64, 64), 1);
  map.Insert(Rows(0, 64, kOther), 1);
  map.Insert(Rows(128, 64), 2);
  EXPECT_EQ(map.size(), 4u);
  EXPECT_EQ(map.buffer_count(), 2u);

  map.EraseProducer(1);
  EXPECT_EQ(map.size(), 1u);
  EXPECT_EQ(map.buffer_count(), 1u);
  EXPECT_EQ(map.producer_count(), 1u);
  std::vector<TensorMapMatch> matches;
  EXPECT_EQ(map.Lookup(Rows(0, 256), &matches), 1);
  EXPECT_EQ(Producers(matches), (std::vector<TaskSeq>{2}));
  EXPECT_EQ(map.Lookup(Rows(0, 256, kOther), &matches), 0);

  map.EraseProducer(1);  // already gone: no effect
  map.EraseProducer(99);
  EXPECT_EQ(map.size(), 1u);
}

TEST(TensorMapTest, RetiringAWindowKeepsTheMapBoundedAndReusesEntries) {
  TensorMap map;
  constexpr int kWindow = 8;
  for (TaskSeq t = 0; t < 1000; ++t) {
    map.Insert(Rows((t % 4) * 64, 64), t);
    map.Insert(Rows(0, 64, kOther + (t % 3) * 0x100000), t);
    if (t >= kWindow) map.EraseProducer(t - kWindow);
    EXPECT_LE(map.size(), 2u * kWindow);
  }
  EXPECT_EQ(map.size(), 2u * kWindow);
  EXPECT_EQ(map.producer_count(), static_cast<size_t>(kWindow));
  std::vector<TensorMapMatch> matches;
  map.Lookup(Rows(0, 256), &matches);
  for (const TensorMapMatch& m : matches) EXPECT_GE(m.producer, 1000u - kWindow);
  EXPECT_EQ(matches.size(), static_cast<size_t>(kWindow));
}

TEST(TensorMapTest, ClearForgetsEverything) {
  TensorMap map;
  map.Insert(Rows(0, 64), 1);
  map.Clear();
  std::vector<TensorMapMatch> matches;
  EXPECT_EQ(map.Lookup(Rows(0, 256), &matches), 0);
  EXPECT_EQ(map.size(), 0u);
  map.Insert(Rows(0, 64), 2);
  EXPECT_EQ(map.Lookup(Rows(0, 256), &matches), 1);
}

// The indexed map finds what the chain walk finds, in the same order, while
// entries come and go (inserts, INOUT removals, retirements).
TEST(TensorMapTest, TheIndexedMapMatchesTheChainWalk) {
  TensorMap chain;
  TensorMap indexed(/*indexed=*/true);
  std::vector<TensorMapMatch> a;
  std::vector<TensorMapMatch> b;
  int probed_less = 0;
  int long_lookups = 0;
  for (TaskSeq seq = 1; seq <= 400; ++seq) {
    const int64_t row = static_cast<int64_t>((seq * 37) % 250);
    const int64_t rows = 1 + static_cast<int64_t>(seq % 6);
    const uint64_t base = seq % 5 == 0 ? kOther : kOut;
    const TensorView view = Rows(row, rows, base);
    const int walked = chain.Lookup(view, &a);
    const int visited = indexed.Lookup(view, &b);
    ASSERT_EQ(Producers(a), Producers(b)) << seq;
    for (size_t m = 0; m < a.size(); ++m) EXPECT_EQ(a[m].overlap, b[m].overlap) << seq;
    if (walked >= static_cast<int>(TensorMap::kIndexFrom)) {  // indexed
      ++long_lookups;
      probed_less += visited < walked;
    }
    if (seq % 3 == 0 && !a.empty()) {  // an INOUT covering the newest match
      chain.Remove(a[0].entry);
      indexed.Remove(b[0].entry);
    }
    chain.Insert(view, seq);
    indexed.Insert(view, seq);
    if (seq > 50 && seq % 2 == 0) {  // retirements
      chain.EraseProducer(seq - 50);
      indexed.EraseProducer(seq - 50);
    }
    ASSERT_EQ(chain.size(), indexed.size());
  }
  // The index of a long chain visits only nearby entries.
  EXPECT_GT(long_lookups, 250);
  EXPECT_GT(probed_less, long_lookups * 9 / 10);
}

// A buffer's index exists only while its chain is long: it is built from the
// chain at kIndexFrom entries and dropped below kIndexUntil, and lookups find
// the same matches on either side of both thresholds.
TEST(TensorMapTest, TheIndexComesAndGoesWithTheChainLength) {
  TensorMap chain;
  TensorMap indexed(/*indexed=*/true);
  std::vector<TensorMapMatch> a;
  std::vector<TensorMapMatch> b;
  const auto same_matches = [&](const TensorView& view) {
    const int walked = chain.Lookup(view, &a);
    const int visited = indexed.Lookup(view, &b);
    EXPECT_EQ(Producers(a), Producers(b));
    return std::make_pair(walked, visited);
  };
  constexpr int64_t kEntries = 2 * TensorMap::kIndexFrom;
  for (TaskSeq seq = 1; seq <= kEntries; ++seq) {  // one row each
    chain.Insert(Rows(seq - 1, 1), seq);
    indexed.Insert(Rows(seq - 1, 1), seq);
    const auto [walked, visited] = same_matches(Rows(0, 1));
    EXPECT_EQ(walked, static_cast<int>(seq));
    // A short chain is walked; a long one is indexed and the lookup of row
    // 0 visits only the entries from there.
    EXPECT_EQ(visited, seq < TensorMap::kIndexFrom ? static_cast<int>(seq) : 1) << seq;
  }
  // Retire all but the last few: below kIndexUntil the chain is walked again.
  for (TaskSeq seq = 1; seq <= kEntries - 3; ++seq) {
    chain.EraseProducer(seq);
    indexed.EraseProducer(seq);
    const auto [walked, visited] = same_matches(Rows(0, kEntries));
    const int left = static_cast<int>(kEntries - seq);
    EXPECT_EQ(walked, left);
    EXPECT_EQ(visited, left) << seq;  // every one left overlaps the whole buffer
  }
  EXPECT_EQ(indexed.size(), 3u);
  // And back up past the threshold.
  for (TaskSeq seq = kEntries + 1; seq <= 2 * kEntries; ++seq) {
    chain.Insert(Rows(seq % 200, 2), seq);
    indexed.Insert(Rows(seq % 200, 2), seq);
    same_matches(Rows((seq * 7) % 200, 3));
  }
  const auto [walked, visited] = same_matches(Rows(100, 1));
  EXPECT_LT(visited, walked);
}

// Entries keep a layout (dtype, shape, strides) once per distinct value, and
// give back exactly the view they registered.
TEST(TensorMapTest, EntriesShareLayoutsAndReturnTheirViews) {
  TensorMap map;
  for (TaskSeq seq = 1; seq <= 100; ++seq) {  // one layout, 100 buffers
    map.Insert(Rows(static_cast<int64_t>(seq % 7), 4, 0x10000000 + seq * 0x100000), seq);
  }
  EXPECT_EQ(map.layout_count(), 1u);
  TensorView odd = Rows(3, 5, kOther);  // another shape, another dtype
  odd.dtype = trace::BF16;
  odd.tensor_id = 9;
  map.Insert(odd, 101);
  EXPECT_EQ(map.layout_count(), 2u);
  std::vector<TensorMapMatch> matches;
  ASSERT_EQ(map.Lookup(odd, &matches), 1);
  ASSERT_EQ(matches.size(), 1u);
  const TensorView back = map.view(matches[0].entry);
  EXPECT_EQ(back.tensor_id, 9u);
  EXPECT_EQ(back.base_addr, kOther);
  EXPECT_EQ(back.dtype, trace::BF16);
  EXPECT_EQ(back.ndims, 2);
  EXPECT_EQ(back.start_offset, 3 * 128);
  EXPECT_EQ(back.shape[0], 5);
  EXPECT_EQ(back.shape[1], 128);
  EXPECT_EQ(back.strides[0], 128);
  EXPECT_EQ(back.strides[1], 1);
  for (TaskSeq seq = 1; seq <= 100; ++seq) map.EraseProducer(seq);
  EXPECT_EQ(map.layout_count(), 1u);  // released with its last entry
  EXPECT_EQ(map.buffer_count(), 1u);
  map.EraseProducer(101);
  EXPECT_EQ(map.layout_count(), 0u);
  EXPECT_EQ(map.buffer_count(), 0u);
  map.Insert(Rows(0, 1), 102);  // a freed layout slot serves the next one
  EXPECT_EQ(map.layout_count(), 1u);
  ASSERT_EQ(map.Lookup(Rows(0, 256), &matches), 1);
  EXPECT_EQ(map.view(matches[0].entry).shape[0], 1);
}

// A buffer whose last entry goes keeps its slot for the next writer, but the
// emptied slots are dropped once they outnumber the live ones: a run that
// writes ever new buffers holds slots for the live ones only.
TEST(TensorMapTest, EmptiedBufferSlotsStayBounded) {
  TensorMap map;
  map.Insert(Rows(0, 1), 1);  // one buffer live throughout
  for (TaskSeq seq = 2; seq < 2000; ++seq) {
    map.Insert(Rows(0, 1, 0x10000000 + seq * 0x100000), seq);
    map.EraseProducer(seq);
    EXPECT_LE(map.buffer_slots(), 2 * map.buffer_count() + 64 + 1) << seq;
  }
  EXPECT_EQ(map.buffer_count(), 1u);
  // An INOUT rewrite empties and refills one buffer: its slot is reused.
  std::vector<TensorMapMatch> matches;
  map.Lookup(Rows(0, 1), &matches);
  ASSERT_EQ(matches.size(), 1u);
  map.Remove(matches[0].entry);
  EXPECT_EQ(map.buffer_count(), 0u);
  map.Insert(Rows(0, 1), 3000);
  EXPECT_EQ(map.buffer_count(), 1u);
  ASSERT_EQ(map.Lookup(Rows(0, 1), &matches), 1);
  EXPECT_EQ(matches[0].producer, 3000u);
}

}  // namespace
}  // namespace pto
