#include "models/gm/data_cache.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/gm/line_backend.h"
#include "models/gm/memory_image.h"
#include "models/gm/memory_image_backend.h"

namespace pto {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint64_t kBase = 0x10000;
constexpr int64_t kLine = 64;

// Global memory with one FP32 tensor of `floats` elements at kBase, and the
// caches of several cores in front of it.
class DataCacheTest : public ::testing::Test {
 protected:
  explicit DataCacheTest(uint64_t floats = 64) {
    image_.AddRegion(kBase, floats * 4, "x", /*allocate=*/true);
  }

  float GmFloat(int index) const {
    float value;
    EXPECT_TRUE(image_.Read(kBase + 4 * index, &value, 4).ok());
    return value;
  }
  void SetGmFloat(int index, float value) {
    ASSERT_TRUE(image_.Write(kBase + 4 * index, &value, 4).ok());
  }
  static float ReadFloat(DataCache& cache, int index) {
    float value;
    cache.Read(kBase + 4 * index, &value, 4);
    return value;
  }
  static void WriteFloat(DataCache& cache, int index, float value) {
    cache.Write(kBase + 4 * index, &value, 4);
  }

  MemoryImage image_;
  MemoryImageLineBackend backend_{&image_};
  DataCache core0_{&backend_, kLine};
  DataCache core1_{&backend_, kLine};
};

TEST_F(DataCacheTest, LoadsFillWholeLinesAndHitUntilInvalidated) {
  SetGmFloat(0, 1.0f);
  SetGmFloat(15, 2.0f);
  EXPECT_EQ(ReadFloat(core0_, 0), 1.0f);
  EXPECT_EQ(ReadFloat(core0_, 15), 2.0f);  // same line: a hit
  const DataCacheCounters& counters = core0_.counters();
  EXPECT_EQ(counters.read_misses, 1);
  EXPECT_EQ(counters.read_hits, 1);
  EXPECT_EQ(counters.lines_filled, 1);
  EXPECT_EQ(counters.bytes_filled, kLine);
  EXPECT_TRUE(core0_.IsCached(kBase + 60));
  EXPECT_FALSE(core0_.IsCached(kBase + 64));
}

TEST_F(DataCacheTest, StoresStayInTheCoresDirtyLineUntilWrittenBack) {
  WriteFloat(core0_, 3, 7.0f);
  EXPECT_TRUE(core0_.IsDirty(kBase));
  EXPECT_EQ(GmFloat(3), 0.0f);            // not in GM yet
  EXPECT_EQ(ReadFloat(core1_, 3), 0.0f);  // another core cannot see it
  EXPECT_EQ(ReadFloat(core0_, 3), 7.0f);  // its own core can
  core0_.WriteBackAll();
  EXPECT_EQ(GmFloat(3), 7.0f);
  EXPECT_FALSE(core0_.IsDirty(kBase));
  EXPECT_TRUE(core0_.IsCached(kBase));  // write-back keeps the line
  EXPECT_THAT(core0_.write_backs(), ElementsAre(kBase));
}

TEST_F(DataCacheTest, WriteAllocateFetchesTheLineSoUntouchedBytesKeepGmValues) {
  SetGmFloat(1, 5.0f);
  WriteFloat(core0_, 0, 9.0f);
  EXPECT_EQ(core0_.counters().write_misses, 1);
  EXPECT_EQ(core0_.counters().lines_filled, 1);
  core0_.CleanInvalidateAll();
  EXPECT_EQ(GmFloat(0), 9.0f);
  EXPECT_EQ(GmFloat(1), 5.0f);
}

TEST_F(DataCacheTest, FalseSharingLosesTheFirstWriteBack) {
  // Two SPMD blocks on two cores write alternate FP32 elements of one line.
  for (int i = 0; i < 16; ++i) WriteFloat(i % 2 == 0 ? core0_ : core1_, i, 100.0f + i);
  core0_.OnTaskEnd();
  core1_.OnTaskEnd();  // last write-back wins: core 1's whole line
  int lost = 0;
  for (int i = 0; i < 16; ++i) {
    if (i % 2 == 1) {
      EXPECT_EQ(GmFloat(i), 100.0f + i);
    } else {
      lost += GmFloat(i) != 100.0f + i;
    }
  }
  EXPECT_EQ(lost, 8);  // every element core 0 wrote
}

TEST_F(DataCacheTest, StaleReadAfterAnotherCoresWriteBackUntilCleanInvalidateAll) {
  SetGmFloat(4, 1.0f);
  EXPECT_EQ(ReadFloat(core0_, 4), 1.0f);  // core 0 caches the line
  WriteFloat(core1_, 4, 2.0f);
  core1_.CleanInvalidateAll();  // core 1 publishes
  EXPECT_EQ(GmFloat(4), 2.0f);
  EXPECT_EQ(ReadFloat(core0_, 4), 1.0f);  // stale: no invalidate on core 0
  core0_.CleanInvalidateAll();
  EXPECT_EQ(ReadFloat(core0_, 4), 2.0f);
  EXPECT_EQ(core0_.counters().maintenance_ops, 1);
  EXPECT_EQ(core0_.counters().lines_invalidated, 1);
}

TEST_F(DataCacheTest, RegionOverloadOnTheWriterPublishesOnlyTheFirstLine) {
  // Block 0 hands 32 floats (two lines) to block 1; it cleans with the region
  // overload, which takes only the line holding the view's base.
  for (int i = 0; i < 32; ++i) WriteFloat(core0_, i, 1.0f + i);
  core0_.CleanInvalidateLine(kBase);
  EXPECT_EQ(core0_.write_backs().size(), 1u);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(ReadFloat(core1_, i), i < 16 ? 1.0f + i : 0.0f) << i;
}

TEST_F(DataCacheTest, RegionOverloadOnTheReaderRefreshesOnlyTheFirstLine) {
  for (int i = 0; i < 32; ++i) EXPECT_EQ(ReadFloat(core1_, i), 0.0f);  // reader caches both
  for (int i = 0; i < 32; ++i) WriteFloat(core0_, i, 1.0f + i);
  core0_.CleanInvalidateAll();
  core1_.CleanInvalidateLine(kBase + 8);  // any address inside the first line
  for (int i = 0; i < 32; ++i) EXPECT_EQ(ReadFloat(core1_, i), i < 16 ? 1.0f + i : 0.0f) << i;
  core1_.CleanInvalidateAll();
  for (int i = 0; i < 32; ++i) EXPECT_EQ(ReadFloat(core1_, i), 1.0f + i) << i;
}

TEST_F(DataCacheTest, TaskBoundaryProtocolKeepsDependentTasksCoherentOnAnyCore) {
  // Task A on core 0 reads x; task B on core 1 writes x; task C on core 0
  // reads x again: the pickup invalidate makes C see B's value.
  core0_.OnTaskPickup();
  EXPECT_EQ(ReadFloat(core0_, 0), 0.0f);
  core0_.OnTaskEnd();
  core1_.OnTaskPickup();
  WriteFloat(core1_, 0, 3.0f);
  core1_.OnTaskEnd();
  core0_.OnTaskPickup();
  EXPECT_EQ(ReadFloat(core0_, 0), 3.0f);
  // The pickup dcci is the runtime's (its cost is in core.setup_ns), not the
  // kernel's maintenance.
  EXPECT_EQ(core0_.counters().maintenance_ops, 0);
  EXPECT_EQ(core0_.counters().lines_invalidated, 1);
}

TEST_F(DataCacheTest, AtomicAddsBypassTheCache) {
  const float one = 1.0f;
  for (int task = 0; task < 4; ++task) {
    DataCache& core = task % 2 == 0 ? core0_ : core1_;
    core.OnTaskPickup();
    for (int i = 0; i < 16; ++i) core.AtomicAdd(kBase + 4 * i, trace::FP32, &one, 1);
    core.OnTaskEnd();
  }
  for (int i = 0; i < 16; ++i) EXPECT_EQ(GmFloat(i), 4.0f);
  EXPECT_EQ(core0_.cached_lines(), 0);
  EXPECT_EQ(core0_.counters().atomic_ops, 32);
  EXPECT_EQ(core0_.counters().lines_written_back, 0);
}

TEST_F(DataCacheTest, CountersAreTakenAndResetAndWriteBacksCleared) {
  WriteFloat(core0_, 0, 1.0f);
  WriteFloat(core0_, 16, 1.0f);
  core0_.CleanInvalidateAll();
  const DataCacheCounters taken = core0_.TakeCounters();
  EXPECT_EQ(taken.lines_written_back, 2);
  EXPECT_EQ(taken.bytes_written_back, 2 * kLine);
  EXPECT_EQ(taken.maintenance_ops, 1);
  EXPECT_EQ(core0_.counters().lines_written_back, 0);
  EXPECT_THAT(core0_.write_backs(), ElementsAre(kBase, kBase + 64));
  core0_.ClearWriteBacks();
  EXPECT_TRUE(core0_.write_backs().empty());
  EXPECT_EQ(core0_.cached_lines(), 0);
}

TEST_F(DataCacheTest, StrayAccessTouchesNothingAndIsReported) {
  float value = 5.0f;
  core0_.Write(kBase + 250, &value, 8);  // runs past the 256-byte tensor
  EXPECT_EQ(core0_.cached_lines(), 0);
  ASSERT_FALSE(core0_.status().ok());
  EXPECT_THAT(std::string(core0_.status().message()), HasSubstr("outside every tensor"));
}

// Counts backend calls: fills and write-backs of consecutive lines are one
// call each.
struct CountingPort : GmPort {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(1 << 16, 0);
  std::vector<std::pair<uint64_t, size_t>> reads, writes;
  void Read(uint64_t addr, void* dst, size_t size) override {
    reads.emplace_back(addr, size);
    std::memcpy(dst, bytes.data() + addr, size);
  }
  void Write(uint64_t addr, const void* src, size_t size) override {
    writes.emplace_back(addr, size);
    std::memcpy(bytes.data() + addr, src, size);
  }
  void AtomicAdd(uint64_t, DType, const void*, size_t) override {}
};

TEST(DataCachePageTest, TransfersAcrossPageBoundariesKeepEveryByte) {
  CountingPort port;
  for (size_t i = 0; i < port.bytes.size(); ++i) port.bytes[i] = static_cast<uint8_t>(i * 7);
  GmPortLineBackend backend(&port);
  DataCache cache(&backend, kLine);
  // 8 KiB from the middle of one 4 KiB page of lines to the middle of a third.
  std::vector<uint8_t> data(8192);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(255 - i % 251);
  cache.Write(2048 + 32, data.data(), data.size());
  EXPECT_EQ(cache.dirty_lines(), 129);  // 8192 bytes at offset 32 straddle 129 lines
  std::vector<uint8_t> back(data.size());
  cache.Read(2048 + 32, back.data(), back.size());
  EXPECT_EQ(back, data);
  cache.CleanInvalidateAll();
  EXPECT_EQ(cache.counters().lines_written_back, 129);
  ASSERT_EQ(cache.write_backs().size(), 129u);
  EXPECT_EQ(cache.write_backs().front(), 2048u);
  EXPECT_EQ(cache.write_backs().back(), 2048u + 128 * 64);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), port.bytes.begin() + 2048 + 32));
  EXPECT_EQ(port.bytes[2048], static_cast<uint8_t>(2048 * 7));  // untouched head of the line
  EXPECT_EQ(cache.cached_lines(), 0);
}

TEST(DataCachePageTest, ConsecutiveLinesMoveInOneBackendCall) {
  CountingPort port;
  GmPortLineBackend backend(&port);
  DataCache cache(&backend, kLine);
  std::vector<uint8_t> data(1024);
  cache.Read(0, data.data(), data.size());
  ASSERT_EQ(port.reads.size(), 1u);
  EXPECT_EQ(port.reads[0], std::make_pair(uint64_t{0}, size_t{1024}));
  cache.CleanInvalidateLine(5 * 64);  // a hole in the middle
  EXPECT_TRUE(cache.IsCached(4 * 64));
  EXPECT_FALSE(cache.IsCached(5 * 64));
  EXPECT_TRUE(cache.IsCached(6 * 64));
  cache.Read(0, data.data(), data.size());
  ASSERT_EQ(port.reads.size(), 2u);
  EXPECT_EQ(port.reads[1], std::make_pair(uint64_t{5 * 64}, size_t{64}));
  EXPECT_EQ(cache.counters().read_hits, 15);
  EXPECT_EQ(cache.counters().read_misses, 17);
  cache.Write(64, data.data(), 128);  // lines 1-2
  cache.Write(256, data.data(), 64);  // line 4
  cache.WriteBackAll();
  ASSERT_EQ(port.writes.size(), 2u);
  EXPECT_EQ(port.writes[0], std::make_pair(uint64_t{64}, size_t{128}));
  EXPECT_EQ(port.writes[1], std::make_pair(uint64_t{256}, size_t{64}));
  EXPECT_THAT(cache.write_backs(), ElementsAre(64, 128, 256));
}

TEST(DataCacheClipTest, LinesRunningPastATensorEndClipAtIt) {
  MemoryImage image;
  image.AddRegion(kBase, 40, "short", /*allocate=*/true);  // 10 floats, less than a line
  MemoryImageLineBackend backend(&image);
  DataCache cache(&backend, kLine);
  const float value = 4.0f;
  cache.Write(kBase + 36, &value, 4);
  cache.CleanInvalidateAll();
  float back = 0;
  ASSERT_TRUE(image.Read(kBase + 36, &back, 4).ok());
  EXPECT_EQ(back, 4.0f);
  EXPECT_TRUE(cache.status().ok());
}

TEST(DataCacheGmPortTest, RunsOverAnyGmPortThroughTheAdapter) {
  struct Recorder : GmPort {
    std::vector<uint8_t> bytes = std::vector<uint8_t>(256, 0);
    int reads = 0, writes = 0;
    void Read(uint64_t addr, void* dst, size_t size) override {
      ++reads;
      std::memcpy(dst, bytes.data() + addr, size);
    }
    void Write(uint64_t addr, const void* src, size_t size) override {
      ++writes;
      std::memcpy(bytes.data() + addr, src, size);
    }
    void AtomicAdd(uint64_t, DType, const void*, size_t) override {}
  } port;
  GmPortLineBackend backend(&port);
  DataCache cache(&backend, kLine);
  const uint8_t byte = 9;
  cache.Write(70, &byte, 1);
  EXPECT_EQ(port.reads, 1);  // one line fill of [64, 128)
  EXPECT_EQ(port.writes, 0);
  cache.OnTaskEnd();
  EXPECT_EQ(port.writes, 1);
  EXPECT_EQ(port.bytes[70], 9);
}

// A cache without data (timing-only runs) sees the same hits, misses,
// fills and write-backs as one with data, in the same order.
TEST(DataCacheWithoutDataTest, KeepsTheLineStateAndTrafficOfACacheWithData) {
  MemoryImage image;
  image.AddRegion(kBase, 64 * 1024, "x", /*allocate=*/true);
  MemoryImageLineBackend backend(&image);
  DataCache with(&backend, kLine), without(&backend, kLine);
  without.set_keeps_data(false);
  EXPECT_FALSE(without.keeps_data());
  std::vector<uint8_t> buffer(9000);
  for (DataCache* cache : {&with, &without}) {
    cache->Read(kBase + 100, buffer.data(), 9000);  // spans three 4 KiB pages
    cache->Write(kBase + 4000, buffer.data(), 300);
    cache->Read(kBase + 4100, buffer.data(), 64);  // hits the written lines
    cache->CleanInvalidateLine(kBase + 4000);
    cache->OnTaskEnd();
  }
  const DataCacheCounters& a = with.counters();
  const DataCacheCounters& b = without.counters();
  EXPECT_GT(a.read_misses, 0);
  EXPECT_GT(a.write_hits + a.read_hits, 0);
  EXPECT_EQ(a.read_hits, b.read_hits);
  EXPECT_EQ(a.read_misses, b.read_misses);
  EXPECT_EQ(a.write_hits, b.write_hits);
  EXPECT_EQ(a.write_misses, b.write_misses);
  EXPECT_EQ(a.lines_filled, b.lines_filled);
  EXPECT_EQ(a.lines_written_back, b.lines_written_back);
  EXPECT_EQ(a.lines_invalidated, b.lines_invalidated);
  EXPECT_EQ(with.cached_lines(), without.cached_lines());
  EXPECT_EQ(with.dirty_lines(), without.dirty_lines());
  EXPECT_THAT(without.write_backs(), ::testing::ElementsAreArray(with.write_backs()));
}

}  // namespace
}  // namespace pto
