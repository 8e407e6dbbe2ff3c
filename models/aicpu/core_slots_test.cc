#include "models/aicpu/core_slots.h"

#include <vector>

#include "gtest/gtest.h"

namespace pto {
namespace {

using Unit = CoreSlots::Unit;

// Cluster 0 complete (AIC 0, AIVs 10 and 11), cluster 1 with one AIV only;
// given out of order.
CoreSlots TwoClusters() {
  return CoreSlots({{10, TaskShape::kAiv, 0},
                    {0, TaskShape::kAic, 0},
                    {11, TaskShape::kAiv, 0},
                    {1, TaskShape::kAic, 1},
                    {12, TaskShape::kAiv, 1}});
}

// One AIC core (local 0), nothing else.
CoreSlots OneCore() { return CoreSlots({{0, TaskShape::kAic, 0}}); }

std::vector<std::vector<int>> Members(const std::vector<Unit>& units) {
  std::vector<std::vector<int>> members;
  for (const Unit& unit : units) members.emplace_back(unit.members, unit.members + unit.count);
  return members;
}

TEST(SchedulerSlotsTest, CoresAreIndexedAicsFirstAndOnlyWholeClustersAreMixUnits) {
  const CoreSlots slots = TwoClusters();
  ASSERT_EQ(slots.size(), 5);
  EXPECT_EQ(slots.LocalOf(0), 0);
  EXPECT_EQ(slots.LocalOf(1), 1);
  EXPECT_EQ(slots.LocalOf(10), 2);
  EXPECT_EQ(slots.LocalOf(11), 3);
  EXPECT_EQ(slots.LocalOf(12), 4);
  EXPECT_EQ(slots.LocalOf(5), -1);   // not owned
  EXPECT_EQ(slots.LocalOf(99), -1);  // past every owned id
  EXPECT_EQ(slots.id(2), 10);
  EXPECT_EQ(slots.kind(1), TaskShape::kAic);
  EXPECT_EQ(slots.kind(4), TaskShape::kAiv);

  std::vector<Unit> units;
  slots.AppendFreeUnits(TaskShape::kMix, /*pending=*/false, 10, &units);
  EXPECT_EQ(Members(units), (std::vector<std::vector<int>>{{0, 2, 3}}));
  EXPECT_EQ(slots.IdleUnitCount(TaskShape::kMix), 1);
  EXPECT_EQ(slots.IdleUnitCount(TaskShape::kAic), 2);
  EXPECT_EQ(slots.IdleUnitCount(TaskShape::kAiv), 3);
  EXPECT_EQ(slots.IdleUnitCount(TaskShape::kAiv, /*limit=*/2), 2);

  units.clear();
  slots.AppendFreeUnits(TaskShape::kAiv, /*pending=*/false, /*limit=*/2, &units);
  EXPECT_EQ(Members(units), (std::vector<std::vector<int>>{{2}, {3}}));
}

TEST(SchedulerSlotsTest, PublishFillsTheRunningSlotThenThePendingOneWithPerCoreTokens) {
  CoreSlots slots = TwoClusters();
  EXPECT_EQ(slots.Publish(0, /*task=*/7, /*gated=*/false), 1u);
  EXPECT_EQ(slots.Publish(0, /*task=*/8, /*gated=*/false), 2u);
  EXPECT_EQ(slots.Publish(1, /*task=*/9, /*gated=*/false), 1u);  // its own counter

  EXPECT_TRUE(slots.running(0).valid);
  EXPECT_EQ(slots.running(0).task, 7u);
  EXPECT_EQ(slots.running(0).token, 1u);
  EXPECT_TRUE(slots.pending(0).valid);
  EXPECT_EQ(slots.pending(0).task, 8u);
  EXPECT_EQ(slots.pending(0).token, 2u);
  EXPECT_FALSE(slots.pending(1).valid);
  EXPECT_EQ(slots.running_cores(), 2u);
  EXPECT_EQ(slots.IdleUnitCount(TaskShape::kAic), 0);
  EXPECT_EQ(slots.IdleUnitCount(TaskShape::kMix), 0);  // its AIC is busy
}

TEST(SchedulerSlotsTest, PendingSlotIsFreeOnlyBehindAnAckedUngatedRunningBlock) {
  CoreSlots slots = OneCore();
  EXPECT_TRUE(slots.SlotFree(0, /*pending=*/false));
  EXPECT_FALSE(slots.SlotFree(0, /*pending=*/true));  // idle: no pending slot to latch behind

  slots.Publish(0, 1, /*gated=*/false);
  EXPECT_FALSE(slots.SlotFree(0, false));
  EXPECT_FALSE(slots.SlotFree(0, true));  // not ACKed yet

  slots.Observe(0, {1, false});
  EXPECT_TRUE(slots.running_acked(0));
  EXPECT_TRUE(slots.SlotFree(0, true));

  slots.Publish(0, 2, /*gated=*/false);
  EXPECT_FALSE(slots.SlotFree(0, true));  // latched

  CoreSlots gated = OneCore();
  gated.Publish(0, 1, /*gated=*/true);
  gated.ReleaseGated(0, 1);
  EXPECT_FALSE(gated.SlotFree(0, true));  // rung, but not ACKed
  gated.Observe(0, {1, false});
  EXPECT_TRUE(gated.SlotFree(0, true));
}

TEST(SchedulerSlotsTest, AckThenFinOfTheRunningBlockLeavesTheCoreIdle) {
  CoreSlots slots = OneCore();
  slots.Publish(0, 5, false);

  CondOutcome ack = slots.Observe(0, {1, false});
  EXPECT_EQ(ack.transition, SlotTransition::kRunningAcked);
  EXPECT_EQ(ack.finished, 0);

  CondOutcome fin = slots.Observe(0, {1, true});
  EXPECT_EQ(fin.transition, SlotTransition::kRunningFinished);
  ASSERT_EQ(fin.finished, 1);
  EXPECT_EQ(fin.done[0].task, 5u);
  EXPECT_EQ(fin.done[0].token, 1u);
  EXPECT_FALSE(slots.running(0).valid);
  EXPECT_TRUE(slots.SlotFree(0, false));
}

TEST(SchedulerSlotsTest, PendingAckFinishesTheRunningBlockAndPromotesThePendingOne) {
  CoreSlots slots = OneCore();
  slots.Publish(0, 5, false);
  slots.Observe(0, {1, false});
  slots.Publish(0, 6, false);

  // The poll missed the running block's FIN: the pending block's ACK implies it.
  CondOutcome outcome = slots.Observe(0, {2, false});
  EXPECT_EQ(outcome.transition, SlotTransition::kPendingAcked);
  ASSERT_EQ(outcome.finished, 1);
  EXPECT_EQ(outcome.done[0].task, 5u);
  EXPECT_EQ(slots.running(0).task, 6u);
  EXPECT_EQ(slots.running(0).token, 2u);
  EXPECT_TRUE(slots.running_acked(0));
  EXPECT_FALSE(slots.pending(0).valid);
  EXPECT_TRUE(slots.SlotFree(0, true));  // the next block may latch at once
}

TEST(SchedulerSlotsTest, PendingFinFinishesBothBlocksInOrder) {
  CoreSlots slots = OneCore();
  slots.Publish(0, 5, false);
  slots.Observe(0, {1, false});
  slots.Publish(0, 6, false);

  CondOutcome outcome = slots.Observe(0, {2, true});
  EXPECT_EQ(outcome.transition, SlotTransition::kBothFinished);
  ASSERT_EQ(outcome.finished, 2);
  EXPECT_EQ(outcome.done[0].task, 5u);
  EXPECT_EQ(outcome.done[0].token, 1u);
  EXPECT_EQ(outcome.done[1].task, 6u);
  EXPECT_EQ(outcome.done[1].token, 2u);
  EXPECT_FALSE(slots.running(0).valid);
  EXPECT_FALSE(slots.pending(0).valid);
}

TEST(SchedulerSlotsTest, RunningFinWithALatchedBlockWaitsForThePendingAck) {
  CoreSlots slots = OneCore();
  slots.Publish(0, 5, false);
  slots.Observe(0, {1, false});
  slots.Publish(0, 6, false);

  CondOutcome fin = slots.Observe(0, {1, true});
  EXPECT_EQ(fin.transition, SlotTransition::kFinAwaitingPending);
  EXPECT_EQ(fin.finished, 0);
  EXPECT_EQ(slots.running(0).task, 5u);  // nothing moved
  EXPECT_EQ(slots.pending(0).task, 6u);

  CondOutcome ack = slots.Observe(0, {2, false});
  EXPECT_EQ(ack.transition, SlotTransition::kPendingAcked);
  ASSERT_EQ(ack.finished, 1);
  EXPECT_EQ(ack.done[0].task, 5u);
}

TEST(SchedulerSlotsTest, RunningFinPromotesAGatedPendingBlockUnacked) {
  CoreSlots slots = OneCore();
  slots.Publish(0, 5, false);
  slots.Observe(0, {1, false});
  slots.Publish(0, 6, /*gated=*/true);  // early-dispatched behind the running block

  CondOutcome fin = slots.Observe(0, {1, true});
  EXPECT_EQ(fin.transition, SlotTransition::kGatedPromoted);
  ASSERT_EQ(fin.finished, 1);
  EXPECT_EQ(fin.done[0].task, 5u);
  EXPECT_EQ(slots.running(0).task, 6u);
  EXPECT_TRUE(slots.running(0).gated);
  EXPECT_FALSE(slots.running_acked(0));
  EXPECT_FALSE(slots.pending(0).valid);
  EXPECT_FALSE(slots.Polled(0));  // not polled until its doorbell
  EXPECT_FALSE(slots.SlotFree(0, false));
}

TEST(SchedulerSlotsTest, GatedBlockIsReleasedByItsOwnTasksDoorbellOnce) {
  CoreSlots slots = OneCore();
  slots.Publish(0, 5, /*gated=*/true);
  EXPECT_FALSE(slots.Polled(0));
  EXPECT_TRUE(slots.HoldsGated(0, 5));
  EXPECT_FALSE(slots.HoldsGated(0, 4));

  EXPECT_EQ(slots.ReleaseGated(0, /*task=*/4), 0);  // another task's doorbell
  EXPECT_FALSE(slots.Polled(0));
  EXPECT_EQ(slots.ReleaseGated(0, 5), 1);
  EXPECT_TRUE(slots.Polled(0));
  EXPECT_FALSE(slots.HoldsGated(0, 5));
  EXPECT_EQ(slots.ReleaseGated(0, 5), 0);  // already rung

  CondOutcome ack = slots.Observe(0, {1, false});
  EXPECT_EQ(ack.transition, SlotTransition::kRunningAcked);
}

TEST(SchedulerSlotsTest, OneDoorbellPerGatedSlotOfTheTask) {
  CoreSlots slots = OneCore();
  slots.Publish(0, 5, /*gated=*/true);
  slots.Publish(0, 5, /*gated=*/true);
  EXPECT_EQ(slots.ReleaseGated(0, 5), 2);
}

TEST(SchedulerSlotsTest, StaleAndDuplicateCondValuesAreIgnored) {
  CoreSlots slots = OneCore();
  EXPECT_EQ(slots.Observe(0, {3, false}).transition, SlotTransition::kStale);  // idle core

  slots.Publish(0, 5, false);
  slots.SetVisible(0, {1, false});
  EXPECT_TRUE(slots.HasUnseenCond(0));
  EXPECT_EQ(slots.ObserveVisible(0).transition, SlotTransition::kRunningAcked);
  EXPECT_FALSE(slots.HasUnseenCond(0));
  // Polled again with COND unchanged: no transition.
  EXPECT_EQ(slots.ObserveVisible(0).transition, SlotTransition::kUnchanged);

  slots.SetVisible(0, {1, true});
  CondOutcome fin = slots.ObserveVisible(0);
  EXPECT_EQ(fin.transition, SlotTransition::kRunningFinished);
  EXPECT_EQ(fin.finished, 1);

  // The next block: an old token's FIN (a late view of the register) must
  // not finish it.
  slots.Publish(0, 6, false);
  EXPECT_EQ(slots.running(0).token, 2u);
  CondOutcome old = slots.Observe(0, {1, true});
  EXPECT_EQ(old.transition, SlotTransition::kStale);
  EXPECT_EQ(old.finished, 0);
  EXPECT_TRUE(slots.running(0).valid);
  EXPECT_FALSE(slots.running_acked(0));
}

TEST(SchedulerSlotsTest, PollReadsRunningUngatedCoresUpToTheFirstUnseenCond) {
  CoreSlots slots({{0, TaskShape::kAic, 0},
                   {1, TaskShape::kAic, 1},
                   {2, TaskShape::kAic, 2},
                   {3, TaskShape::kAic, 3},
                   {4, TaskShape::kAic, 4}});
  // 0 idle, 1 gated, 2 running with COND already seen, 3 and 4 with a new value.
  slots.Publish(1, 5, /*gated=*/true);
  slots.Publish(2, 6, false);
  slots.Observe(2, {1, false});
  slots.SetVisible(2, {1, false});
  slots.Publish(3, 7, false);
  slots.SetVisible(3, {1, false});
  slots.Publish(4, 8, false);
  slots.SetVisible(4, {1, true});

  TimePs cost = 1000;
  EXPECT_EQ(slots.PollFrom(0, /*poll=*/100, &cost), 3);
  EXPECT_EQ(cost, 1200);  // cores 2 and 3: one read each
  slots.ObserveVisible(3);
  EXPECT_EQ(slots.PollFrom(4, 100, &cost), 4);
  EXPECT_EQ(cost, 1300);
  slots.ObserveVisible(4);  // FIN: core 4 is idle, no longer polled
  EXPECT_EQ(slots.PollFrom(5, 100, &cost), 5);
  EXPECT_EQ(cost, 1300);

  cost = 0;
  EXPECT_EQ(slots.PollFrom(0, 100, &cost), 5);  // nothing new: every polled core read
  EXPECT_EQ(cost, 200);
  slots.ReleaseGated(1, 5);
  cost = 0;
  EXPECT_EQ(slots.PollFrom(0, 100, &cost), 5);
  EXPECT_EQ(cost, 300);  // the rung core is polled too
}

TEST(SchedulerSlotsTest, PendingPhaseTakesClustersThatAreBusyButCanLatch) {
  CoreSlots slots = TwoClusters();
  std::vector<Unit> units;
  slots.AppendFreeUnits(TaskShape::kMix, /*pending=*/true, 10, &units);
  EXPECT_TRUE(units.empty());  // fully idle: the idle phase's

  slots.Publish(0, 5, false);  // the AIC of cluster 0 runs, not ACKed
  EXPECT_FALSE(slots.ClusterUsable(Unit{{0, 2, 3}, 3}, /*pending=*/true));
  EXPECT_FALSE(slots.ClusterUsable(Unit{{0, 2, 3}, 3}, /*pending=*/false));

  slots.Observe(0, {1, false});  // ACKed: its pending slot and the idle AIVs
  EXPECT_TRUE(slots.ClusterUsable(Unit{{0, 2, 3}, 3}, /*pending=*/true));
  slots.AppendFreeUnits(TaskShape::kMix, /*pending=*/true, 10, &units);
  EXPECT_EQ(Members(units), (std::vector<std::vector<int>>{{0, 2, 3}}));

  // Single cores in the pending phase: busy, ACKed, nothing latched.
  units.clear();
  slots.AppendFreeUnits(TaskShape::kAic, /*pending=*/true, 10, &units);
  EXPECT_EQ(Members(units), (std::vector<std::vector<int>>{{0}}));
}

}  // namespace
}  // namespace pto
