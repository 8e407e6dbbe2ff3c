#include "models/ffts/soft_barrier.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

TEST(SoftSyncallTest, PollsUntilTheLastAddLands) {
  int64_t polls = 0;
  // Already complete: one poll.
  EXPECT_EQ(SoftSyncallExitPs(1'000, 500, 300, &polls), 1'300);
  EXPECT_EQ(polls, 1);
  // The last add lands 1000 ps later: polls start at 1000, 1300, 1600,
  // 1900, 2200; the one starting at 2200 sees it and ends at 2500.
  EXPECT_EQ(SoftSyncallExitPs(1'000, 2'000, 300, &polls), 2'500);
  EXPECT_EQ(polls, 5);
}

TEST(SoftBarrierTest, WorksAtPartialOccupancyAndReleasesEveryPoller) {
  // 4 blocks of a 48-AIV chip: only the four participants matter.
  SoftBarrier barrier(/*used_cores=*/4, /*poll_ps=*/300);
  EXPECT_THAT(*barrier.Arrive(30, 1'000), IsEmpty());
  EXPECT_THAT(*barrier.Arrive(24, 1'500), IsEmpty());
  EXPECT_THAT(*barrier.Arrive(27, 1'100), IsEmpty());
  EXPECT_THAT(barrier.Waiting(), ElementsAre(24, 27, 30));
  const std::vector<SoftBarrier::Release> releases = *barrier.Arrive(25, 2'000);
  ASSERT_THAT(releases, SizeIs(4));
  EXPECT_EQ(releases[0].core, 30);
  EXPECT_EQ(releases[0].exit_ps, 2'500);  // polls at 1000..2200, sees it at the 5th
  EXPECT_EQ(releases[0].polls, 5);
  EXPECT_EQ(releases[3].core, 25);
  EXPECT_EQ(releases[3].exit_ps, 2'300);  // the last one needs a single poll
  EXPECT_EQ(releases[3].polls, 1);
  for (const SoftBarrier::Release& release : releases) EXPECT_GE(release.exit_ps, 2'000);
  EXPECT_EQ(barrier.total_polls(), 5 + 3 + 4 + 1);  // cores 30, 24, 27, 25
  EXPECT_EQ(barrier.generation(), 1);
  EXPECT_THAT(barrier.Waiting(), IsEmpty());  // re-armed
}

TEST(SoftBarrierTest, AMissingParticipantIsReportedAndDoubleArrivalRefused) {
  SoftBarrier barrier(8, 300);
  for (int core = 24; core < 28; ++core) ASSERT_TRUE(barrier.Arrive(core, 0).ok());
  const auto twice = barrier.Arrive(24, 10);
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(std::string(twice.status().message()), HasSubstr("core 24 arrived twice"));
  const std::string report = barrier.Report("phased_add");
  EXPECT_THAT(report, HasSubstr("soft syncall in task 'phased_add' waits for used_cores=8 "
                                "participants; 4 arrived and poll (cores 24, 25, 26, 27), 4 "
                                "never arrived"));
}

}  // namespace
}  // namespace pto
