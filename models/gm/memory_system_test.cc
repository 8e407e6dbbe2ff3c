#include "models/gm/memory_system.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/gm/testing/round_memory_params.h"

namespace pto {
namespace {

using ::pto::gm_testing::RoundMemoryParams;
using ::testing::ElementsAre;
using Completion = MemorySystem::Completion;

// Each core is capped at 10 B/ns each way (RoundMemoryParams: HBM 100 B/ns,
// L2 400/200 B/ns, latencies 100 and 500 ns).
constexpr RequesterCaps kCore{/*read_bytes_per_ns=*/10, /*write_bytes_per_ns=*/10};

std::vector<Completion> RunToEnd(MemorySystem& gm) {
  std::vector<Completion> done;
  while (gm.next_flow_end() != kNever) gm.AdvanceTo(gm.next_flow_end(), &done);
  return done;
}

std::vector<TimePs> DoneTimes(const std::vector<Completion>& done) {
  std::vector<TimePs> times;
  for (const Completion& c : done) times.push_back(c.done);
  return times;
}

TEST(MemorySystemTest, ALoneMissRunsAtTheCoreCapAndPaysTheMissLatencyOnce) {
  MemorySystem gm(RoundMemoryParams());
  const auto core = gm.AddRequester(kCore);
  gm.Start(0, core, GmDirection::kRead, L2Split{0, 10'000});
  // 10 000 B at the 10 B/ns cap = 1000 ns, then 500 ns of latency.
  EXPECT_THAT(DoneTimes(RunToEnd(gm)), ElementsAre(Ns(1500)));
  EXPECT_EQ(gm.counters().hbm_read_bytes, 10'000);
  EXPECT_EQ(gm.counters().l2_read_miss_bytes, 10'000);
}

TEST(MemorySystemTest, APartialLineMissMovesTheWholeLineFromHbm) {
  // 1000 B asked of lines that hold 4000 B: the core's 1000 B cross its cap
  // and L2, and HBM moves the whole 4000 B. Twenty such reads at once keep
  // HBM (100 B/ns) busy for 20 x 4000 / 100 = 800 ns, while their core-side
  // bytes alone (20 x 1000 at 10 B/ns each) would take 100 ns; + 500 ns.
  MemorySystem gm(RoundMemoryParams());
  for (int i = 0; i < 20; ++i) gm.AddRequester(kCore);
  for (int i = 0; i < 20; ++i) {
    gm.Start(0, i, GmDirection::kRead, L2Split{0, 1000, /*fill_bytes=*/4000});
  }
  const std::vector<Completion> done = RunToEnd(gm);
  ASSERT_EQ(done.size(), 20u);
  EXPECT_EQ(
      std::max_element(done.begin(), done.end(),
                       [](const Completion& a, const Completion& b) { return a.done < b.done; })
          ->done,
      Ns(800 + 500));
  EXPECT_EQ(gm.counters().hbm_read_bytes, 20 * 4000);
  EXPECT_EQ(gm.counters().l2_read_miss_bytes, 20 * 1000);
}

// N cores each read 10 000 B from HBM at once: each gets min(cap, HBM / N),
// so they end together at 10 000 / min(10, 100 / N) ns; throughput is
// min(N × cap, HBM) whatever N.
TEST(MemorySystemTest, IdenticalStreamsShareHbmFairlyAndEndTogether) {
  for (int n : {1, 5, 10, 11, 24, 48}) {
    MemorySystem gm(RoundMemoryParams());
    for (int i = 0; i < n; ++i) gm.AddRequester(kCore);
    for (int i = 0; i < n; ++i) gm.Start(0, i, GmDirection::kRead, L2Split{0, 10'000});
    const std::vector<Completion> done = RunToEnd(gm);
    ASSERT_EQ(done.size(), static_cast<size_t>(n));
    const double share = std::min(10.0, 100.0 / n);
    const TimePs expected = Ns(500) + static_cast<TimePs>(std::ceil(10'000 / share * 1000));
    for (const Completion& c : done) {
      EXPECT_NEAR(c.done, expected, 1) << "n=" << n;
      EXPECT_EQ(c.done, done.front().done) << "n=" << n;
    }
    const double throughput = 10'000.0 * n / ((expected - Ns(500)) / 1000.0);
    EXPECT_NEAR(throughput, std::min(10.0 * n, 100.0), 0.01) << "n=" << n;
  }
}

TEST(MemorySystemTest, AnL2HitSkipsHbmAndItsLatency) {
  // Ten cores saturate HBM (10 B/ns each); an eleventh reads resident data:
  // the hit takes only its cap and the L2, 10 000 B in 1000 ns + 100 ns.
  MemorySystem gm(RoundMemoryParams());
  for (int i = 0; i < 11; ++i) gm.AddRequester(kCore);
  for (int i = 0; i < 10; ++i) gm.Start(0, i, GmDirection::kRead, L2Split{0, 100'000});
  const auto hit = gm.Start(0, 10, GmDirection::kRead, L2Split{10'000, 0});
  EXPECT_DOUBLE_EQ(gm.rate(hit), 10);
  const std::vector<Completion> done = RunToEnd(gm);
  ASSERT_FALSE(done.empty());
  EXPECT_EQ(done.front().transfer, hit);
  EXPECT_EQ(done.front().done, Ns(1100));
  EXPECT_EQ(gm.counters().l2_read_hit_bytes, 10'000);
  EXPECT_EQ(gm.counters().hbm_read_bytes, 1'000'000);
}

TEST(MemorySystemTest, APartlyResidentReadMovesBothPartsSideBySide) {
  // Alone: the hit and miss parts split the core's 10 B/ns (5 each), so
  // 2000 hit + 6000 miss B: the hit part ends at 400 ns, the miss part has
  // 4000 B left and takes the whole cap: 400 ns more. Done at 800 + 500 ns.
  MemorySystem gm(RoundMemoryParams());
  const auto core = gm.AddRequester(kCore);
  const auto id = gm.Start(0, core, GmDirection::kRead, L2Split{2000, 6000});
  EXPECT_DOUBLE_EQ(gm.rate(id), 10);
  const std::vector<Completion> done = RunToEnd(gm);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].done, Ns(1300));
  EXPECT_EQ(gm.rate(id), 0);
}

TEST(MemorySystemTest, WritesArePostedToL2AndReadNothingFromHbm) {
  MemorySystem gm(RoundMemoryParams());
  const auto core = gm.AddRequester(kCore);
  gm.Start(0, core, GmDirection::kWrite, L2Split{10'000, 0});
  // Accepted when in L2: 1000 ns at the write cap, then the hit latency.
  EXPECT_THAT(DoneTimes(RunToEnd(gm)), ElementsAre(Ns(1100)));
  EXPECT_EQ(gm.counters().hbm_read_bytes, 0);
  EXPECT_EQ(gm.counters().hbm_write_bytes, 0);
  EXPECT_EQ(gm.counters().l2_write_bytes, 10'000);
}

TEST(MemorySystemTest, ACoresLoadsAndStoresOverlap) {
  MemorySystem gm(RoundMemoryParams());
  const auto core = gm.AddRequester(kCore);
  gm.Start(0, core, GmDirection::kRead, L2Split{10'000, 0});
  gm.Start(0, core, GmDirection::kWrite, L2Split{10'000, 0});
  // Separate caps: both run at 10 B/ns.
  EXPECT_THAT(DoneTimes(RunToEnd(gm)), ElementsAre(Ns(1100), Ns(1100)));
}

TEST(MemorySystemTest, EvictionWriteBacksShareHbmWithReads) {
  // HBM 100 B/ns is one pool: a 50 000 B write-back and ten 5000 B reads
  // (caps 10 B/ns) are eleven flows on it, 100/11 B/ns each. The reads end
  // at 5000 / (100/11) = 550 ns (+500 latency); the write-back then has
  // 45 000 B left at the full 100 B/ns, and nobody is told of it.
  MemorySystem gm(RoundMemoryParams());
  for (int i = 0; i < 10; ++i) gm.AddRequester(kCore);
  gm.StartWriteBack(0, 50'000);
  for (int i = 0; i < 10; ++i) gm.Start(0, i, GmDirection::kRead, L2Split{0, 5'000});
  const std::vector<Completion> done = RunToEnd(gm);
  ASSERT_EQ(done.size(), 10u);
  for (const Completion& c : done) EXPECT_NEAR(c.done, Ns(1050), 1);
  EXPECT_EQ(gm.counters().hbm_write_bytes, 50'000);
  EXPECT_EQ(gm.active_transfers(), 0u);
}

TEST(MemorySystemTest, NarrowRowsTakeMoreBandwidthThanTheirBytes) {
  MemorySystem gm(RoundMemoryParams());
  const auto core = gm.AddRequester(kCore);
  gm.Start(0, core, GmDirection::kRead, L2Split{0, 10'000}, /*bandwidth_factor=*/1.25);
  EXPECT_THAT(DoneTimes(RunToEnd(gm)), ElementsAre(Ns(1250 + 500)));
  EXPECT_EQ(gm.counters().hbm_read_bytes, 10'000);  // the bytes, not their cost
}

TEST(MemorySystemTest, ALaterStartSlowsTheFlowsAlreadyMoving) {
  // 20 cores; ten start at 0 and saturate HBM; ten more join at 500 ns and
  // halve everyone's share to 5 B/ns. The first ten have 5000 B left:
  // 1000 ns more, ending at 1500 ns; the second ten move 5000 B meanwhile,
  // then the rest at 10 B/ns: 500 ns more.
  MemorySystem gm(RoundMemoryParams());
  for (int i = 0; i < 20; ++i) gm.AddRequester(kCore);
  for (int i = 0; i < 10; ++i) gm.Start(0, i, GmDirection::kRead, L2Split{0, 10'000});
  std::vector<Completion> done;
  gm.AdvanceTo(Ns(500), &done);
  EXPECT_TRUE(done.empty());
  for (int i = 10; i < 20; ++i) gm.Start(Ns(500), i, GmDirection::kRead, L2Split{0, 10'000});
  done = RunToEnd(gm);
  ASSERT_EQ(done.size(), 20u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(done[i].done, Ns(1500 + 500)) << i;
  for (int i = 10; i < 20; ++i) EXPECT_EQ(done[i].done, Ns(2000 + 500)) << i;
}

TEST(MemorySystemTest, TellsTheListenerEachChangeOfTheHbmRate) {
  MemorySystem gm(RoundMemoryParams());
  std::vector<std::pair<TimePs, double>> rates;
  gm.set_hbm_rate_listener([&](TimePs at, double rate) { rates.emplace_back(at, rate); });
  const auto a = gm.AddRequester(kCore);
  const auto b = gm.AddRequester(kCore);
  gm.Start(0, a, GmDirection::kRead, L2Split{0, 10'000});
  gm.Start(0, b, GmDirection::kRead, L2Split{10'000, 0});  // a hit: HBM unchanged
  gm.StartWriteBack(0, 1000);                              // shares HBM: 10 + 90
  RunToEnd(gm);
  // The write-back's 1000 B at 90 B/ns end at 11 112 ps (rounded up); a's
  // 10 000 B at 10 B/ns at 1000 ns.
  ASSERT_EQ(rates.size(), 4u);
  EXPECT_EQ(rates[0], std::make_pair(TimePs{0}, 10.0));
  EXPECT_EQ(rates[1].first, 0);
  EXPECT_DOUBLE_EQ(rates[1].second, 100.0);
  EXPECT_EQ(rates[2], std::make_pair(TimePs{11'112}, 10.0));
  EXPECT_EQ(rates[3], std::make_pair(Ns(1000), 0.0));
}

TEST(MemorySystemTest, CompletionsDoNotDependOnTheOrderRequestsCameIn) {
  auto run = [](bool reversed) {
    MemorySystem gm(RoundMemoryParams());
    for (int i = 0; i < 6; ++i) gm.AddRequester(kCore);
    const int64_t bytes[] = {1000, 7000, 3000, 12'000, 5000, 9000};
    std::vector<TimePs> by_requester(6);
    for (int k = 0; k < 6; ++k) {
      const int i = reversed ? 5 - k : k;
      gm.Start(0, i, GmDirection::kRead, L2Split{bytes[i] / 3, bytes[i] - bytes[i] / 3});
    }
    for (const Completion& c : RunToEnd(gm)) by_requester[c.requester] = c.done;
    return by_requester;
  };
  EXPECT_EQ(run(false), run(true));
}

}  // namespace
}  // namespace pto
