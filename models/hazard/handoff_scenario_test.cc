// The soft-barrier hand-off of issue #6 end to end on the pure logic: four
// blocks on four cores run through their own DataCache (so the data really
// goes stale) while the same accesses and events feed the HazardDetector (so
// the hazard explains it). This is the wiring the chip model repeats.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/gm/data_cache.h"
#include "models/gm/memory_image.h"
#include "models/gm/memory_image_backend.h"
#include "models/hazard/hazard_detector.h"

namespace pto {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr int kBlocks = 4;
constexpr int kBandFloats = 64;  // 256 B: four 64-byte lines per band
constexpr uint64_t kBandBytes = kBandFloats * 4;
constexpr uint64_t kA = 0x10000;
constexpr uint64_t kOut = 0x20000;
constexpr uint64_t kResult = 0x30000;
constexpr TaskSeq kTask = 9;

enum class Clean { kNone, kAll, kRegion };

// One block on its core: every GM access and publish event goes to both the
// cache (data) and the detector (ordering).
class Block {
 public:
  Block(int block, LineBackend* backend, HazardDetector* detector)
      : block_(block), core_(24 + block), cache_(backend, 64), detector_(detector) {}

  void Read(uint64_t addr, float* dst, int count) {
    cache_.Read(addr, dst, 4 * count);
    detector_->AddBlockAccess(kTask, block_, core_, GmAccessKind::kRead, addr, 4 * count);
  }
  void Write(uint64_t addr, const float* src, int count) {
    cache_.Write(addr, src, 4 * count);
    detector_->AddBlockAccess(kTask, block_, core_, GmAccessKind::kWrite, addr, 4 * count);
  }
  void CacheInvalid(Clean clean, uint64_t view_base) {
    if (clean == Clean::kAll) {
      cache_.CleanInvalidateAll();
      detector_->AddBlockEvent(kTask, block_, core_, BlockEventKind::kCacheInvalidAll);
    } else if (clean == Clean::kRegion) {
      cache_.CleanInvalidateLine(view_base);
      detector_->AddBlockEvent(kTask, block_, core_, BlockEventKind::kCacheInvalidLine, view_base);
    }
  }
  void Event(BlockEventKind event) { detector_->AddBlockEvent(kTask, block_, core_, event); }
  DataCache& cache() { return cache_; }

 private:
  int block_;
  int core_;
  DataCache cache_;
  HazardDetector* detector_;
};

struct Outcome {
  std::vector<float> result;  // what each block computed from its neighbour's band
  std::vector<HazardReport> hazards;
};

// Phase 1: out[band b] = 2 * a[band b]. Syncall. Phase 2: result[band b] =
// out[band b+1] + 1. The writer publishes with `writer_clean` (+ fence), the
// reader refreshes with `reader_clean`.
Outcome RunHandOff(Clean writer_clean, Clean reader_clean) {
  MemoryImage image;
  image.AddRegion(kA, kBlocks * kBandBytes, "a", true);
  image.AddRegion(kOut, kBlocks * kBandBytes, "out", true);
  image.AddRegion(kResult, kBlocks * kBandBytes, "result", true);
  for (int i = 0; i < kBlocks * kBandFloats; ++i) {
    const float value = static_cast<float>(i + 1);  // no zeros: a stale 0 never matches
    EXPECT_TRUE(image.Write(kA + 4 * i, &value, 4).ok());
  }
  MemoryImageLineBackend backend(&image);
  HazardDetector detector(HazardDetector::Options(), [](uint64_t addr, HazardTensor* tensor) {
    const uint64_t base = addr & ~uint64_t{0xffff};
    *tensor = {static_cast<int64_t>(base >> 16), base == kOut ? "out" : "other", base};
    return true;
  });
  detector.AddTask(kTask, "phased_add");
  std::vector<Block> blocks;
  for (int b = 0; b < kBlocks; ++b) blocks.emplace_back(b, &backend, &detector);
  float band[kBandFloats];
  for (int b = 0; b < kBlocks; ++b) {  // phase 1, every block up to the barrier
    Block& block = blocks[b];
    block.cache().OnTaskPickup();
    block.Read(kA + b * kBandBytes, band, kBandFloats);
    for (float& value : band) value *= 2;
    block.Write(kOut + b * kBandBytes, band, kBandFloats);
    block.CacheInvalid(writer_clean, kOut + b * kBandBytes);
    if (writer_clean != Clean::kNone) block.Event(BlockEventKind::kFence);
    block.Event(BlockEventKind::kSyncall);
  }
  for (int b = 0; b < kBlocks; ++b) {  // phase 2, after everyone arrived
    Block& block = blocks[b];
    const uint64_t neighbour = kOut + ((b + 1) % kBlocks) * kBandBytes;
    block.CacheInvalid(reader_clean, neighbour);
    block.Read(neighbour, band, kBandFloats);
    for (float& value : band) value += 1;
    block.Write(kResult + b * kBandBytes, band, kBandFloats);
  }
  // The blocks end (and write back) only after every block has read: block
  // 3's read must not see block 0's task-end write-back.
  for (Block& block : blocks) block.cache().OnTaskEnd();
  detector.EndTask(kTask);
  Outcome outcome;
  outcome.result.resize(kBlocks * kBandFloats);
  EXPECT_TRUE(image.Read(kResult, outcome.result.data(), kBlocks * kBandBytes).ok());
  outcome.hazards = detector.TakeReports();
  return outcome;
}

float Expected(int i) {
  const int b = i / kBandFloats;
  const int neighbour_element = ((b + 1) % kBlocks) * kBandFloats + i % kBandFloats;
  return 2.0f * static_cast<float>(neighbour_element + 1) + 1.0f;
}

TEST(HandOffScenarioTest, WithCacheinvalidAndFenceAsTheSeedPrescribesItIsCorrectAndClean) {
  const Outcome outcome = RunHandOff(Clean::kAll, Clean::kAll);
  for (int i = 0; i < kBlocks * kBandFloats; ++i) EXPECT_EQ(outcome.result[i], Expected(i)) << i;
  EXPECT_THAT(outcome.hazards, IsEmpty());
}

TEST(HandOffScenarioTest, WithoutThemTheResultIsWrongAndTheHazardExplainsIt) {
  const Outcome outcome = RunHandOff(Clean::kNone, Clean::kNone);
  int wrong = 0;
  for (int i = 0; i < kBlocks * kBandFloats; ++i) wrong += outcome.result[i] != Expected(i);
  EXPECT_EQ(wrong, kBlocks * kBandFloats);  // every neighbour band was still in its writer's cache
  ASSERT_THAT(outcome.hazards, SizeIs(kBlocks));
  EXPECT_THAT(FormatHazard(outcome.hazards[0]),
              HasSubstr("hazard: unpublished hand-off in task 'phased_add' (#9) on out bytes "
                        "[256, 512): block 0 (core 24) reads bytes block 1 (core 25) wrote"));
}

// The kernel uses cacheinvalid(tensor, shapes, offsets) on both sides. (With
// a whole-GM invalidate on the reader side each block would also write back
// its own leftover dirty lines after the syncall, and whether the neighbour
// sees them becomes a race; the detector reports that case too.)
TEST(HandOffScenarioTest, TheRegionOverloadOnAMultiLineHandOffDeliversOnlyTheFirstLine) {
  const Outcome outcome = RunHandOff(Clean::kRegion, Clean::kRegion);
  for (int i = 0; i < kBlocks * kBandFloats; ++i) {
    const bool first_line = i % kBandFloats < 16;
    EXPECT_EQ(outcome.result[i] == Expected(i), first_line) << i;
  }
  ASSERT_THAT(outcome.hazards, SizeIs(kBlocks));
  EXPECT_THAT(outcome.hazards[0].detail, HasSubstr("1 of 4 lines of the hand-off arrive"));
}

}  // namespace
}  // namespace pto
