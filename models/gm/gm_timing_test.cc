#include "models/gm/gm_timing.h"

#include <algorithm>
#include <vector>

#include "gtest/gtest.h"
#include "models/base/chip_config.h"

namespace pto {
namespace {

// 1 byte/ps HBM, 100 ns hit and 400 ns miss latency, 1 MiB of L2.
GmParams Params() {
  GmParams params;
  params.hbm_bandwidth_bytes_per_s = 2e12;
  params.hbm_efficiency = 0.5;
  params.l2_capacity_bytes = 1 << 20;
  params.l2_hit_latency_ns = 100;
  params.l2_miss_latency_ns = 400;
  return params;
}

TEST(GmTimingTest, AColdReadStreamsFromHbmAndARepeatedReadHitsL2) {
  GmTiming gm(Params());
  const GmTransfer cold = gm.Transfer(0, 0x10000, 64 << 10, /*is_write=*/false, 512);
  EXPECT_EQ(cold.l2.miss_lines, 128);
  EXPECT_EQ(cold.done_ps, (64 << 10) + 400'000);
  const GmTransfer warm = gm.Transfer(cold.done_ps, 0x10000, 64 << 10, false, 512);
  EXPECT_EQ(warm.l2.hit_lines, 128);
  EXPECT_EQ(warm.done_ps, cold.done_ps + 100'000);
}

TEST(GmTimingTest, NarrowRowsPayThePenaltyOnTheHbmPart) {
  GmTiming gm(Params());
  EXPECT_EQ(gm.Transfer(0, 0, 102'400, false, 128).done_ps, 122'880 + 400'000);
}

TEST(GmTimingTest, WritesArePostedAndTheirEvictionTakesBandwidthLater) {
  GmTiming gm(Params());
  // Fill all of L2 with written lines, then read 1 MiB of new data: every
  // line the read brings in evicts a dirty one, whose write-back competes.
  EXPECT_EQ(gm.Transfer(0, 0, 1 << 20, /*is_write=*/true, 512).done_ps, 100'000);
  const GmTransfer read = gm.Transfer(0, 1 << 20, 1 << 20, false, 512);
  EXPECT_EQ(read.l2.dirty_evictions, 2048);
  EXPECT_EQ(read.done_ps, 2 * (1 << 20) + 400'000);  // 1 MiB written back, 1 MiB read
}

// The makespan of c = a + b over 8 MiB per tensor, in 32 KiB chunks dealt to
// `cores` cores that each load a and b, then store c.
int64_t AddKernelMakespan(GmTiming& gm, int cores) {
  const uint64_t chunk = 32 << 10;
  const int64_t chunks = (8 << 20) / chunk / cores;
  std::vector<int64_t> now(cores, 0);
  for (int64_t c = 0; c < chunks; ++c) {
    for (int core = 0; core < cores; ++core) {
      const uint64_t offset = (c * cores + core) * chunk;
      const int64_t a = gm.Transfer(now[core], 0x10000000 + offset, chunk, false, 512).done_ps;
      const int64_t b = gm.Transfer(now[core], 0x20000000 + offset, chunk, false, 512).done_ps;
      now[core] = gm.Transfer(std::max(a, b), 0x30000000 + offset, chunk, true, 512).done_ps;
    }
  }
  return *std::max_element(now.begin(), now.end());
}

TEST(GmTimingTest, ABandwidthBoundKernelScalesWithBytesNotCores) {
  GmParams params = Params();
  params.l2_hit_latency_ns = 0;  // bandwidth alone
  params.l2_miss_latency_ns = 0;
  GmTiming four_cores(params);
  GmTiming eight_cores(params);
  const int64_t four = AddKernelMakespan(four_cores, 4);
  const int64_t eight = AddKernelMakespan(eight_cores, 8);
  // 16 MiB read, and most of the 8 MiB written evicted from the 1 MiB L2.
  const int64_t hbm_bytes = (16 << 20) + four_cores.l2().dirty_evictions() * 512;
  EXPECT_GE(four, 16 << 20);
  EXPECT_LE(four, hbm_bytes + (1 << 20));
  EXPECT_GT(eight, four * 9 / 10);  // twice the cores, about the same time
}

}  // namespace
}  // namespace pto
