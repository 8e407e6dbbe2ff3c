#include "models/ffts/barrier.h"

#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kClusters = 4;  // AIC 0..3, AIV 4..11

TEST(HardBarrierTest, ParticipantsAreEveryPhysicalCoreOfTheType) {
  EXPECT_EQ(HardBarrier(BarrierCoreType::kAiv, 24, 0).participants(), 48);
  EXPECT_EQ(HardBarrier(BarrierCoreType::kAic, 24, 0).participants(), 24);
  EXPECT_EQ(HardBarrier(BarrierCoreType::kMix, 24, 0).participants(), 72);
  HardBarrier aiv(BarrierCoreType::kAiv, kClusters, 0);
  EXPECT_FALSE(aiv.IsParticipant(3));
  EXPECT_TRUE(aiv.IsParticipant(4));
  EXPECT_TRUE(aiv.IsParticipant(11));
}

TEST(HardBarrierTest, ReleasesAtTheLastArrivalPlusTheLatency) {
  HardBarrier barrier(BarrierCoreType::kAic, kClusters, /*release_latency_ps=*/100'000);
  EXPECT_EQ(*barrier.Arrive(2, 5'000), std::nullopt);
  EXPECT_EQ(*barrier.Arrive(0, 9'000), std::nullopt);
  EXPECT_EQ(*barrier.Arrive(3, 1'000), std::nullopt);
  const absl::StatusOr<std::optional<int64_t>> release = barrier.Arrive(1, 7'000);
  ASSERT_TRUE(release.ok());
  EXPECT_EQ(*release, std::optional<int64_t>(109'000));
  EXPECT_EQ(barrier.generation(), 1);
  EXPECT_EQ(barrier.arrived(), 0);  // re-armed for the next syncall
  EXPECT_EQ(*barrier.Arrive(0, 200'000), std::nullopt);
}

TEST(HardBarrierTest, APartialLaunchNamesExactlyTheMissingCores) {
  // 4 AIV blocks on an 8-AIV chip: cores 4..7 arrive, 8..11 never do.
  HardBarrier barrier(BarrierCoreType::kAiv, kClusters, 0);
  for (int core = 4; core < 8; ++core) ASSERT_EQ(*barrier.Arrive(core, 1'000), std::nullopt);
  EXPECT_THAT(barrier.Waiting(), ElementsAre(4, 5, 6, 7));
  EXPECT_THAT(barrier.Missing(), ElementsAre(8, 9, 10, 11));
  const std::string report = barrier.Report("phased_add");
  EXPECT_THAT(report, HasSubstr("507018-style barrier deadlock"));
  EXPECT_THAT(report, HasSubstr("'phased_add'"));
  EXPECT_THAT(report, HasSubstr("all 8 physical cores"));
  EXPECT_THAT(report, HasSubstr("4 arrived and wait (aiv0 [core 4], aiv1 [core 5], aiv2 [core "
                                "6], aiv3 [core 7])"));
  EXPECT_THAT(report, HasSubstr("4 never arrived (aiv4 [core 8], aiv5 [core 9], aiv6 [core "
                                "10], aiv7 [core 11])"));
  EXPECT_THAT(report, HasSubstr("sync_start=True"));
  EXPECT_THAT(report, HasSubstr("available_aiv_count()"));
  EXPECT_THAT(report, HasSubstr("SOFT"));
}

TEST(HardBarrierTest, LongCoreListsAreShortened) {
  HardBarrier barrier(BarrierCoreType::kMix, 24, 0);
  ASSERT_TRUE(barrier.Arrive(0, 0).ok());
  const std::string report = barrier.Report("k");
  EXPECT_THAT(report, HasSubstr("71 never arrived (aic1 [core 1]"));
  EXPECT_THAT(report, HasSubstr("(55 more)"));
  EXPECT_THAT(report, HasSubstr("available_cluster_count()"));
  EXPECT_THAT(report, Not(HasSubstr("aiv47")));
}

TEST(HardBarrierTest, RefusesOutsidersAndDoubleArrivals) {
  HardBarrier barrier(BarrierCoreType::kAiv, kClusters, 0);
  const auto outsider = barrier.Arrive(0, 0);
  ASSERT_FALSE(outsider.ok());
  EXPECT_THAT(std::string(outsider.status().message()),
              HasSubstr("core 0 is not a participant of a hard syncall with core_type AIV"));
  ASSERT_TRUE(barrier.Arrive(5, 0).ok());
  const auto twice = barrier.Arrive(5, 10);
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(std::string(twice.status().message()), HasSubstr("aiv1 [core 5] arrived twice"));
}

}  // namespace
}  // namespace pto
