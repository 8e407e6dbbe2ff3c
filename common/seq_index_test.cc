#include "common/seq_index.h"

#include "gtest/gtest.h"

namespace pto {
namespace {

constexpr uint64_t kSlots = SeqIndex<int>::kSlots;

TEST(SeqIndexTest, FindsWhatWasInsertedAndForgetsWhatWasErased) {
  SeqIndex<int> index;
  index.Insert(7, 70);
  index.Insert(8, 80);
  ASSERT_NE(index.Find(7), nullptr);
  EXPECT_EQ(*index.Find(7), 70);
  EXPECT_EQ(*index.Find(8), 80);
  EXPECT_EQ(index.Find(9), nullptr);
  EXPECT_EQ(index.size(), 2u);
  index.Erase(7);
  EXPECT_FALSE(index.contains(7));
  EXPECT_TRUE(index.contains(8));
  EXPECT_EQ(index.size(), 1u);
  index.Erase(7);  // absent: no effect
  EXPECT_EQ(index.size(), 1u);
}

TEST(SeqIndexTest, NumbersSharingASlotAreKeptApart) {
  SeqIndex<int> index;
  index.Insert(3, 1);
  index.Insert(3 + kSlots, 2);      // the slot is taken: overflow
  index.Insert(3 + 2 * kSlots, 3);  // overflow too
  EXPECT_EQ(*index.Find(3), 1);
  EXPECT_EQ(*index.Find(3 + kSlots), 2);
  EXPECT_EQ(*index.Find(3 + 2 * kSlots), 3);
  EXPECT_EQ(index.size(), 3u);
  index.Erase(3);  // frees the slot; the others stay found
  EXPECT_EQ(index.Find(3), nullptr);
  EXPECT_EQ(*index.Find(3 + kSlots), 2);
  index.Insert(3 + 3 * kSlots, 4);  // takes the freed slot
  EXPECT_EQ(*index.Find(3 + 3 * kSlots), 4);
  index.Erase(3 + kSlots);
  EXPECT_EQ(index.Find(3 + kSlots), nullptr);
  EXPECT_EQ(*index.Find(3 + 2 * kSlots), 3);
  EXPECT_EQ(index.size(), 2u);
}

TEST(SeqIndexTest, NarrowKeysWorkUpToTheReservedAllOnes) {
  SeqIndex<uint32_t, uint32_t> index(/*slots=*/16);
  // The largest keys below the reserved all-ones, and ones sharing a slot.
  const uint32_t top = UINT32_MAX - 1;
  index.Insert(top, 1);
  index.Insert(top - 16, 2);
  index.Insert(14, 3);  // top's slot too (top & 15 == 14)
  EXPECT_EQ(*index.Find(top), 1u);
  EXPECT_EQ(*index.Find(top - 16), 2u);
  EXPECT_EQ(*index.Find(14), 3u);
  index.Erase(top);
  EXPECT_EQ(index.Find(top), nullptr);
  EXPECT_EQ(*index.Find(14), 3u);
  EXPECT_EQ(index.size(), 2u);
}

TEST(SeqIndexTest, GrowsWhenLiveNumbersSpreadPastItsSlots) {
  SeqIndex<uint64_t> index(/*slots=*/16);
  // 200 live numbers 3 apart span 600: far more than 16 slots.
  for (uint64_t seq = 0; seq < 600; seq += 3) index.Insert(seq, seq * 7);
  EXPECT_GE(index.slots(), 256u);  // grew until at most a quarter overflows
  EXPECT_EQ(index.size(), 200u);
  for (uint64_t seq = 0; seq < 600; ++seq) {
    if (seq % 3 == 0) {
      ASSERT_NE(index.Find(seq), nullptr) << seq;
      EXPECT_EQ(*index.Find(seq), seq * 7);
    } else {
      EXPECT_EQ(index.Find(seq), nullptr) << seq;
    }
  }
  for (uint64_t seq = 0; seq < 300; seq += 3) index.Erase(seq);
  EXPECT_EQ(index.size(), 100u);
  EXPECT_EQ(index.Find(297), nullptr);
  EXPECT_EQ(*index.Find(300), 2100u);
}

TEST(SeqIndexTest, AWindowOfLiveNumbersNeedsNoGrowth) {
  SeqIndex<int> index(/*slots=*/64);
  // A sliding window of 50 live numbers over a long run.
  for (uint64_t seq = 0; seq < 100000; ++seq) {
    index.Insert(seq, 1);
    if (seq >= 50) index.Erase(seq - 50);
  }
  EXPECT_EQ(index.slots(), 64u);
  EXPECT_EQ(index.size(), 50u);
}

TEST(SeqIndexTest, ValuesCanBeChangedInPlace) {
  SeqIndex<int> index;
  index.Insert(5, 1);
  *index.Find(5) = 9;
  EXPECT_EQ(*index.Find(5), 9);
}

}  // namespace
}  // namespace pto
