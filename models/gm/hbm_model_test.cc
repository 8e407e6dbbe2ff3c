#include "models/gm/hbm_model.h"

#include <algorithm>
#include <cstdint>

#include "gtest/gtest.h"
#include "models/base/chip_config.h"

namespace pto {
namespace {

// 1 byte/ps effective (1 TB/s): times below are byte counts.
GmParams OneBytePerPs() {
  GmParams params;
  params.hbm_bandwidth_bytes_per_s = 2e12;
  params.hbm_efficiency = 0.5;
  return params;
}

TEST(HbmModelTest, ALoneTransferRunsAtPeakTimesEfficiency) {
  HbmModel hbm(OneBytePerPs());
  EXPECT_EQ(hbm.Transfer(1'000, 64 << 10, 512), 1'000 + (64 << 10));
  EXPECT_EQ(hbm.UncontendedPs(1 << 20), 1 << 20);
  EXPECT_EQ(hbm.bytes_transferred(), 64 << 10);
}

// The default efficiency is calibrated so that 48 AIV streaming 301.99 MB
// into UB take the measured 215.82 us (docs/calibration.md): 1.4 TB/s of the
// 1.6 TB/s peak.
TEST(HbmModelTest, DefaultEffectiveRateIsPeakTimesEfficiencyAboutOnePointFourTerabytesPerSecond) {
  const GmParams params;
  HbmModel hbm{params};
  EXPECT_DOUBLE_EQ(hbm.bytes_per_ps(),
                   params.hbm_bandwidth_bytes_per_s * params.hbm_efficiency * 1e-12);
  EXPECT_GT(hbm.bytes_per_ps(), 1.35);
  EXPECT_LT(hbm.bytes_per_ps(), 1.45);
}

TEST(HbmModelTest, TimeScalesWithBytesOverBandwidth) {
  HbmModel hbm(OneBytePerPs());
  const int64_t small = hbm.Transfer(0, 100'000, 512);
  HbmModel fresh(OneBytePerPs());
  const int64_t large = fresh.Transfer(0, 400'000, 512);
  EXPECT_EQ(large, 4 * small);
}

// The makespan of `streams` cores each moving `chunks` chunks back to back.
int64_t Makespan(int streams, int chunks, int64_t chunk_bytes) {
  HbmModel hbm(OneBytePerPs());
  std::vector<int64_t> ready(streams, 0);
  for (int c = 0; c < chunks; ++c) {
    for (int s = 0; s < streams; ++s) ready[s] = hbm.Transfer(ready[s], chunk_bytes, 512);
  }
  return *std::max_element(ready.begin(), ready.end());
}

TEST(HbmModelTest, DoublingBandwidthBoundCoresDoesNotHalveTheTime) {
  // The same 8 MiB split over 4 cores and over 8 cores.
  const int64_t total = 8 << 20;
  const int64_t four = Makespan(4, 16, total / 4 / 16);
  const int64_t eight = Makespan(8, 16, total / 8 / 16);
  EXPECT_NEAR(static_cast<double>(four), static_cast<double>(total), total * 0.01);
  EXPECT_NEAR(static_cast<double>(eight), static_cast<double>(four), four * 0.01);
}

TEST(HbmModelTest, ConcurrentStreamsShareTheBandwidth) {
  HbmModel hbm(OneBytePerPs());
  const int64_t a = hbm.Transfer(0, 1'000'000, 512);
  const int64_t b = hbm.Transfer(0, 1'000'000, 512);
  EXPECT_EQ(a, 1'000'000);
  EXPECT_EQ(b, 2'000'000);  // the second waits for the capacity the first took
}

TEST(HbmModelTest, AnEarlierTransferArrivingLateUsesTheIdleCapacityBeforeTheLaterOne) {
  HbmModel hbm(OneBytePerPs());
  // Temporal decoupling: a core ahead in time asks first.
  EXPECT_EQ(hbm.Transfer(10'000'000, 50'000, 512), 10'050'000);
  // One stamped earlier still finishes at its own uncontended time.
  EXPECT_EQ(hbm.Transfer(0, 50'000, 512), 50'000);
}

TEST(HbmModelTest, NarrowRowsCostThePenalty) {
  GmParams params = OneBytePerPs();
  EXPECT_DOUBLE_EQ(NarrowRowFactor(128, params), 1.2);
  EXPECT_DOUBLE_EQ(NarrowRowFactor(512, params), 1.0);
  params.narrow_row_bytes = 128;  // a5's GM access granularity
  EXPECT_DOUBLE_EQ(NarrowRowFactor(128, params), 1.0);
  EXPECT_DOUBLE_EQ(NarrowRowFactor(64, params), 1.2);
  params.narrow_row_bytes = 512;
  HbmModel hbm(params);
  EXPECT_EQ(hbm.Transfer(0, 1'000'000, 128), 1'200'000);
}

TEST(HbmModelTest, ContiguousRunsFoldContiguousInnerDimensions) {
  const int64_t rows[] = {64, 32};
  const int64_t row_major[] = {128, 1};  // 32 of 128 columns: 128-byte rows
  EXPECT_EQ(ContiguousRunBytes(4, rows, row_major), 128);
  const int64_t packed[] = {32, 1};  // whole rows: one run
  EXPECT_EQ(ContiguousRunBytes(4, rows, packed), 64 * 32 * 4);
  const int64_t column[] = {64, 1};
  const int64_t column_strides[] = {128, 1};
  EXPECT_EQ(ContiguousRunBytes(2, column, column_strides), 2);
  EXPECT_DOUBLE_EQ(NarrowRowFactor(ContiguousRunBytes(4, rows, row_major), GmParams()), 1.2);
}

TEST(HbmModelTest, TheWindowSlidesOverLongRuns) {
  HbmModel hbm(OneBytePerPs(), /*bin_ps=*/1'000, /*window_bins=*/16);
  EXPECT_EQ(hbm.Transfer(0, 8'000, 512), 8'000);
  // Far in the future: the window moves; the bins there are empty.
  EXPECT_EQ(hbm.Transfer(1'000'000'000, 8'000, 512), 1'000'008'000);
  // Older than the window: treated as starting at the window's beginning.
  EXPECT_GE(hbm.Transfer(0, 1'000, 512), 1'000'000'000 - 16'000);
}

}  // namespace
}  // namespace pto
