#include "models/aicpu/dispatch_planner.h"

#include <functional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using Lane = ReadyQueues::Lane;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Round numbers (ps) so the expected times can be added up by hand.
constexpr DispatchCosts kCosts{/*wmb=*/30, /*publish=*/5, /*two_slots=*/true};

// Records what the planner asks for, one line per step, cores by chip id.
class RecordingSink : public DispatchSink {
 public:
  explicit RecordingSink(const CoreSlots* slots) : slots_(slots) {}

  void Place(const Placement& p) override {
    std::string line = "T" + std::to_string(p.task->seq) + " b" + std::to_string(p.block) +
                       " -> core " + std::to_string(slots_->id(p.local));
    if (p.pending_slot) line += " pending";
    if (p.gated) line += " gated";
    line += ", token " + std::to_string(p.token) + ", ts " + std::to_string(p.dispatch_ts) +
            ", delay " + std::to_string(p.publish_delay);
    steps.push_back(line);
  }
  void Requeued(const Task& task, TimePs at) override {
    steps.push_back("requeue T" + std::to_string(task.seq) + " at " + std::to_string(at));
  }
  void FullyPublished(Task& task, TimePs at) override {
    steps.push_back("published T" + std::to_string(task.seq) + " at " + std::to_string(at));
    if (on_published) on_published(task, at);
  }
  void DrainNeeded(Task& task, TimePs at) override {
    steps.push_back("drain T" + std::to_string(task.seq) + " at " + std::to_string(at));
  }

  std::vector<std::string> steps;
  std::function<void(Task&, TimePs)> on_published;

 private:
  const CoreSlots* slots_;
};

// One thread's world: its cores, the shared queues and task table.
class DispatchPlannerTest : public ::testing::Test {
 protected:
  Task& AddTask(TaskShape shape, int64_t block_num) {
    Task& task = tasks_.Create(tasks_.next_seq(), /*ring=*/1);
    task.shape = shape;
    task.block_num = block_num;
    return task;
  }
  // Queues a new task; visible at `visible_at`.
  Task& Ready(TaskShape shape, int64_t block_num, Lane lane = Lane::kNormal,
              TimePs visible_at = 0) {
    Task& task = AddTask(shape, block_num);
    ready_.Push(shape, task.seq, visible_at, lane);
    return task;
  }
  // An early-dispatch candidate: not ready (a producer is still running).
  Task& EarlyCandidate(TaskShape shape, int64_t block_num) {
    Task& task = Ready(shape, block_num, Lane::kEarly);
    task.early_state = Task::EarlyState::kQueued;
    task.fanin_pending = 1;
    return task;
  }
  // Core `local` runs an ACKed block of an unrelated task.
  static void Busy(CoreSlots* slots, int local) {
    const uint32_t token = slots->Publish(local, /*task=*/1000, /*gated=*/false);
    slots->Observe(local, {token, false});
  }

  TaskTable tasks_{[](Task&) {}};
  ReadyQueues ready_;
};

// Clusters 0 and 1: AICs 0, 1; AIVs 2, 3 (cluster 0) and 4, 5 (cluster 1).
CoreSlots TwoClusters() {
  return CoreSlots({{0, TaskShape::kAic, 0},
                    {2, TaskShape::kAiv, 0},
                    {3, TaskShape::kAiv, 0},
                    {1, TaskShape::kAic, 1},
                    {4, TaskShape::kAiv, 1},
                    {5, TaskShape::kAiv, 1}});
}

CoreSlots Cores(TaskShape kind, std::vector<int> ids) {
  std::vector<CoreSlots::CoreSpec> specs;
  for (int id : ids) specs.push_back({id, kind, id});
  return CoreSlots(specs);
}

TEST_F(DispatchPlannerTest, MixGoesFirstThenAicThenAivEachBatchWithOneBarrier) {
  CoreSlots slots = TwoClusters();
  DispatchPlanner planner(/*thread_index=*/0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  Ready(TaskShape::kAiv, 1);  // T0
  Ready(TaskShape::kAic, 1);  // T1
  Ready(TaskShape::kMix, 1);  // T2
  const CoreSlots* threads[] = {&slots};

  TimePs cost = 0;
  const DispatchTally tally = planner.Dispatch(/*now=*/0, &cost, threads, &sink);

  // MIX: barrier 30, then the cluster's AIC and AIVs at 5 each. AIC (even
  // thread: before AIV) on the other cluster's idle AIC, then AIV.
  EXPECT_THAT(sink.steps,
              ElementsAre("T2 b0 -> core 0, token 1, ts 0, delay 35",
                          "T2 b0 -> core 2, token 1, ts 0, delay 40",
                          "T2 b0 -> core 3, token 1, ts 0, delay 45", "published T2 at 45",
                          "T1 b0 -> core 1, token 1, ts 45, delay 80", "published T1 at 80",
                          "T0 b0 -> core 4, token 1, ts 80, delay 115", "published T0 at 115"));
  EXPECT_EQ(cost, 115);
  EXPECT_TRUE(tally.progressed);
  EXPECT_EQ(tally.pop_hit, 3u);
  EXPECT_EQ(tally.pop_miss, 0u);
  EXPECT_EQ(tally.task_dispatches, 3u);
  EXPECT_EQ(tally.block_dispatches, 3u);
  EXPECT_EQ(tally.subtasks, 5u);  // 3 for the MIX block
  EXPECT_TRUE(slots.running(slots.LocalOf(2)).valid);
}

TEST_F(DispatchPlannerTest, OddThreadServesAivBeforeAic) {
  CoreSlots slots = TwoClusters();
  DispatchPlanner planner(/*thread_index=*/1, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  Ready(TaskShape::kAic, 1);  // T0
  Ready(TaskShape::kAiv, 1);  // T1
  const CoreSlots* threads[] = {&slots};

  TimePs cost = 100;  // spent earlier in the loop
  planner.Dispatch(/*now=*/1000, &cost, threads, &sink);

  EXPECT_THAT(sink.steps,
              ElementsAre("T1 b0 -> core 2, token 1, ts 1100, delay 135", "published T1 at 1135",
                          "T0 b0 -> core 0, token 1, ts 1135, delay 170", "published T0 at 1170"));
}

TEST_F(DispatchPlannerTest, AicAndAivWaitWhileMixWorkIsLeft) {
  // Cluster 0 only, plus a lone AIC: the second MIX task has no cluster.
  CoreSlots slots({{0, TaskShape::kAic, 0},
                   {2, TaskShape::kAiv, 0},
                   {3, TaskShape::kAiv, 0},
                   {1, TaskShape::kAic, 1}});
  DispatchPlanner planner(0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  Ready(TaskShape::kMix, 1);  // T0
  Ready(TaskShape::kMix, 1);  // T1
  Ready(TaskShape::kAic, 1);  // T2
  const CoreSlots* threads[] = {&slots};

  TimePs cost = 0;
  planner.Dispatch(0, &cost, threads, &sink);

  EXPECT_THAT(sink.steps,
              ElementsAre("T0 b0 -> core 0, token 1, ts 0, delay 35",
                          "T0 b0 -> core 2, token 1, ts 0, delay 40",
                          "T0 b0 -> core 3, token 1, ts 0, delay 45", "published T0 at 45"));
  EXPECT_TRUE(slots.SlotFree(slots.LocalOf(1), false));  // idle, yet T2 waits
  EXPECT_EQ(ready_.Size(TaskShape::kMix), 1u);
  EXPECT_EQ(ready_.Size(TaskShape::kAic), 1u);
}

TEST_F(DispatchPlannerTest, IdleCoresAreFilledBeforePendingSlots) {
  CoreSlots slots = Cores(TaskShape::kAic, {0, 1});
  Busy(&slots, 0);
  DispatchPlanner planner(0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  Ready(TaskShape::kAic, 1);  // T0
  Ready(TaskShape::kAic, 1);  // T1
  const CoreSlots* threads[] = {&slots};

  TimePs cost = 0;
  const DispatchTally tally = planner.Dispatch(0, &cost, threads, &sink);

  // The idle pass takes core 1 only; the pending pass latches T1 behind
  // core 0's running block (token 2: the core's second block).
  EXPECT_THAT(
      sink.steps,
      ElementsAre("T0 b0 -> core 1, token 1, ts 0, delay 35", "published T0 at 35",
                  "T1 b0 -> core 0 pending, token 2, ts 35, delay 70", "published T1 at 70"));
  EXPECT_EQ(tally.pop_hit, 2u);
  EXPECT_EQ(slots.pending(0).task, 1u);
}

TEST_F(DispatchPlannerTest, OneSlotConfigNeverLatches) {
  CoreSlots slots = Cores(TaskShape::kAic, {0});
  Busy(&slots, 0);
  DispatchPlanner planner(0, DispatchCosts{30, 5, /*two_slots=*/false}, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  Ready(TaskShape::kAic, 1);
  const CoreSlots* threads[] = {&slots};

  TimePs cost = 0;
  const DispatchTally tally = planner.Dispatch(0, &cost, threads, &sink);
  EXPECT_THAT(sink.steps, IsEmpty());
  EXPECT_FALSE(tally.progressed);
  EXPECT_EQ(cost, 0);
}

TEST_F(DispatchPlannerTest, PendingSlotsOnlyWhileNoPeerHasAnIdleUnitOfThatShape) {
  CoreSlots slots = Cores(TaskShape::kAic, {0});
  Busy(&slots, 0);
  CoreSlots peer = Cores(TaskShape::kAic, {1});  // idle
  DispatchPlanner planner(0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  Ready(TaskShape::kAic, 1);  // T0
  const CoreSlots* threads[] = {&slots, &peer};

  TimePs cost = 0;
  DispatchTally tally = planner.Dispatch(0, &cost, threads, &sink);
  EXPECT_THAT(sink.steps, IsEmpty());  // left for the peer's idle core
  EXPECT_FALSE(tally.progressed);
  EXPECT_EQ(ready_.Size(TaskShape::kAic), 1u);

  peer.Publish(0, /*task=*/1000, false);  // the peer's core is taken
  tally = planner.Dispatch(0, &cost, threads, &sink);
  EXPECT_THAT(sink.steps, ElementsAre("T0 b0 -> core 0 pending, token 2, ts 0, delay 35",
                                      "published T0 at 35"));
}

TEST_F(DispatchPlannerTest, PendingSlotsOfEachShapeWaitForAPeersIdleUnitOfThatShape) {
  CoreSlots slots = TwoClusters();
  for (int local = 0; local < 6; ++local) Busy(&slots, local);
  CoreSlots peer({{10, TaskShape::kAic, 5}, {11, TaskShape::kAiv, 5}, {12, TaskShape::kAiv, 5}});
  DispatchPlanner planner(0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  Ready(TaskShape::kMix, 1);  // T0
  Ready(TaskShape::kAiv, 1);  // T1: after the MIX work
  const CoreSlots* threads[] = {&peer, &slots};

  TimePs cost = 0;
  planner.Dispatch(0, &cost, threads, &sink);
  EXPECT_THAT(sink.steps, IsEmpty());  // the peer has an idle cluster

  Busy(&peer, 0);  // the peer's AIC is taken; its AIVs are still idle
  planner.Dispatch(0, &cost, threads, &sink);
  EXPECT_THAT(sink.steps, ElementsAre("T0 b0 -> core 0 pending, token 2, ts 0, delay 35",
                                      "T0 b0 -> core 2 pending, token 2, ts 0, delay 40",
                                      "T0 b0 -> core 3 pending, token 2, ts 0, delay 45",
                                      "published T0 at 45"));

  Busy(&peer, 1);
  Busy(&peer, 2);
  sink.steps.clear();
  const DispatchTally tally = planner.Dispatch(0, &cost, threads, &sink);
  EXPECT_THAT(sink.steps, ElementsAre("T1 b0 -> core 4 pending, token 2, ts 45, delay 80",
                                      "published T1 at 80"));
  // Before it: MIX (cluster 1 can latch) and AIC (core 1) found nothing.
  EXPECT_EQ(tally.pop_miss, 2u);
}

TEST_F(DispatchPlannerTest, SpmdBlocksAreClaimedInRangesAndTheRestIsRequeuedForOtherThreads) {
  CoreSlots mine = Cores(TaskShape::kAiv, {10, 11, 12});
  CoreSlots theirs = Cores(TaskShape::kAiv, {20, 21});
  DispatchPlanner planner(0, kCosts, &mine, &ready_, &tasks_);
  DispatchPlanner peer_planner(1, kCosts, &theirs, &ready_, &tasks_);
  RecordingSink sink(&mine), peer_sink(&theirs);
  Task& task = Ready(TaskShape::kAiv, 5);  // T0
  const CoreSlots* threads[] = {&mine, &theirs};

  TimePs cost = 0;
  planner.Dispatch(0, &cost, threads, &sink);
  EXPECT_THAT(sink.steps,
              ElementsAre("T0 b0 -> core 10, token 1, ts 0, delay 35",
                          "T0 b1 -> core 11, token 1, ts 0, delay 40",
                          "T0 b2 -> core 12, token 1, ts 0, delay 45", "requeue T0 at 45"));
  EXPECT_EQ(task.next_block, 3);
  EXPECT_EQ(ready_.HeadVisibleAt(TaskShape::kAiv), 45);

  // Not visible to the peer before the requeue completes: a miss.
  TimePs peer_cost = 0;
  DispatchTally tally = peer_planner.Dispatch(40, &peer_cost, threads, &peer_sink);
  EXPECT_EQ(tally.pop_miss, 1u);
  EXPECT_THAT(peer_sink.steps, IsEmpty());

  tally = peer_planner.Dispatch(45, &peer_cost, threads, &peer_sink);
  EXPECT_THAT(peer_sink.steps,
              ElementsAre("T0 b3 -> core 20, token 1, ts 45, delay 35",
                          "T0 b4 -> core 21, token 1, ts 45, delay 40", "published T0 at 85"));
  EXPECT_EQ(tally.task_dispatches, 1u);
  EXPECT_EQ(tally.block_dispatches, 2u);
  EXPECT_TRUE(ready_.Empty(TaskShape::kAiv));
}

TEST_F(DispatchPlannerTest, ABatchPopsTasksUntilTheUnitsRunOut) {
  CoreSlots slots = Cores(TaskShape::kAiv, {0, 1, 2});
  DispatchPlanner planner(0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  Ready(TaskShape::kAiv, 2);  // T0
  Ready(TaskShape::kAiv, 2);  // T1: one block fits
  Ready(TaskShape::kAiv, 1);  // T2: none
  const CoreSlots* threads[] = {&slots};

  TimePs cost = 0;
  const DispatchTally tally = planner.Dispatch(0, &cost, threads, &sink);
  EXPECT_THAT(sink.steps,
              ElementsAre("T0 b0 -> core 0, token 1, ts 0, delay 35",
                          "T0 b1 -> core 1, token 1, ts 0, delay 40", "published T0 at 40",
                          "T1 b0 -> core 2, token 1, ts 0, delay 45", "requeue T1 at 45"));
  EXPECT_EQ(tally.pop_hit, 2u);
  EXPECT_EQ(ready_.Size(TaskShape::kAiv), 2u);  // T1's rest ahead of T2
}

TEST_F(DispatchPlannerTest, AFreeUnitWithNothingVisibleIsOneMissPerShapeAndPass) {
  CoreSlots slots = TwoClusters();
  Busy(&slots, slots.LocalOf(1));  // AIC 1: a pending slot free
  DispatchPlanner planner(0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  Ready(TaskShape::kAic, 1, Lane::kNormal, /*visible_at=*/500);
  const CoreSlots* threads[] = {&slots};

  TimePs cost = 0;
  const DispatchTally tally = planner.Dispatch(0, &cost, threads, &sink);
  // Idle pass: MIX (cluster 0), AIC (core 0), AIV (core 2); pending pass:
  // MIX (cluster 1, whose AIC can latch), AIC (core 1).
  EXPECT_EQ(tally.pop_miss, 5u);
  EXPECT_FALSE(tally.progressed);
  EXPECT_EQ(cost, 0);  // a miss costs no barrier
}

TEST_F(DispatchPlannerTest, SyncStartCohortIsPlacedWholeAheadOfNormalWork) {
  CoreSlots slots = Cores(TaskShape::kAiv, {0, 1, 2});
  DispatchPlanner planner(0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  Ready(TaskShape::kAiv, 2);               // T0, normal
  Ready(TaskShape::kAiv, 2, Lane::kSync);  // T1, a cohort of two
  const CoreSlots* threads[] = {&slots};

  TimePs cost = 0;
  const DispatchTally tally = planner.Dispatch(0, &cost, threads, &sink);
  EXPECT_THAT(sink.steps,
              ElementsAre("T1 b0 -> core 0, token 1, ts 0, delay 35",
                          "T1 b1 -> core 1, token 1, ts 0, delay 40", "published T1 at 40",
                          "T0 b0 -> core 2, token 1, ts 40, delay 75", "requeue T0 at 75"));
  EXPECT_EQ(tally.pop_hit, 2u);
  EXPECT_EQ(tally.block_dispatches, 3u);
  EXPECT_EQ(tally.subtasks, 1u);  // the cohort's blocks are not counted
}

TEST_F(DispatchPlannerTest, SyncStartCohortWiderThanTheThreadNeedsTheDrainAndStopsDispatch) {
  CoreSlots slots = Cores(TaskShape::kAiv, {0, 1, 2});
  DispatchPlanner planner(0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  Ready(TaskShape::kAiv, 4, Lane::kSync);  // T0: four blocks, three cores
  Ready(TaskShape::kAiv, 1);               // T1
  Ready(TaskShape::kAiv, 2, Lane::kSync);  // T2: would fit, but behind T0
  const CoreSlots* threads[] = {&slots};

  TimePs cost = 7;
  const DispatchTally tally = planner.Dispatch(0, &cost, threads, &sink);
  EXPECT_THAT(sink.steps, ElementsAre("drain T0 at 7"));  // nothing placed at all
  EXPECT_TRUE(tally.progressed);
  EXPECT_EQ(tally.pop_hit, 1u);
  EXPECT_EQ(tally.task_dispatches, 1u);
  EXPECT_EQ(tally.block_dispatches, 0u);
  EXPECT_EQ(cost, 7);
  EXPECT_EQ(ready_.Size(TaskShape::kAiv), 1u);
  EXPECT_EQ(ready_.Size(TaskShape::kAiv, Lane::kSync), 1u);
  EXPECT_EQ(slots.running_cores(), 0u);
}

TEST_F(DispatchPlannerTest, SyncTierServesMixThenAicThenAiv) {
  CoreSlots slots = TwoClusters();
  DispatchPlanner planner(1, kCosts, &slots, &ready_, &tasks_);  // odd: no AIV-first here
  RecordingSink sink(&slots);
  Ready(TaskShape::kAiv, 2, Lane::kSync);  // T0
  Ready(TaskShape::kAic, 2, Lane::kSync);  // T1
  const CoreSlots* threads[] = {&slots};

  TimePs cost = 0;
  planner.Dispatch(0, &cost, threads, &sink);
  EXPECT_THAT(sink.steps,
              ElementsAre("T1 b0 -> core 0, token 1, ts 0, delay 35",
                          "T1 b1 -> core 1, token 1, ts 0, delay 40", "published T1 at 40",
                          "T0 b0 -> core 2, token 1, ts 40, delay 75",
                          "T0 b1 -> core 3, token 1, ts 40, delay 80", "published T0 at 80"));
}

TEST_F(DispatchPlannerTest, EarlyDispatchStagesGatedBlocksOnIdleCoresThenPendingSlots) {
  CoreSlots slots = Cores(TaskShape::kAiv, {0, 1});
  Busy(&slots, 0);
  DispatchPlanner planner(0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  Task& task = EarlyCandidate(TaskShape::kAiv, 3);  // T0

  TimePs cost = 0;
  const DispatchTally tally = planner.DispatchEarly(0, &cost, &sink);
  // Three blocks, two slots: not fully published (the rest is queued when
  // the task becomes ready).
  EXPECT_THAT(sink.steps, ElementsAre("T0 b0 -> core 1 gated, token 1, ts 0, delay 35",
                                      "T0 b1 -> core 0 pending gated, token 2, ts 0, delay 40"));
  EXPECT_EQ(task.early_state, Task::EarlyState::kStaged);
  EXPECT_EQ(task.next_block, 2);
  EXPECT_EQ(tally.early_blocks, 2u);
  EXPECT_EQ(tally.block_dispatches, 2u);
  EXPECT_EQ(tally.task_dispatches, 1u);
  EXPECT_EQ(tally.subtasks, 2u);
  EXPECT_EQ(tally.pop_hit, 0u);
  EXPECT_TRUE(slots.HoldsGated(1, task.seq));
  EXPECT_FALSE(slots.Polled(1));
}

TEST_F(DispatchPlannerTest, EarlyDispatchWaitsWhileNormalOrSyncWorkIsQueued) {
  CoreSlots slots = Cores(TaskShape::kAiv, {0});
  Busy(&slots, 0);
  DispatchPlanner planner(0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  EarlyCandidate(TaskShape::kAiv, 1);                            // T0
  Ready(TaskShape::kAic, 1, Lane::kNormal, /*visible_at=*/900);  // T1: queued, not visible

  TimePs cost = 0;
  const DispatchTally tally = planner.DispatchEarly(0, &cost, &sink);
  EXPECT_THAT(sink.steps, IsEmpty());
  EXPECT_FALSE(tally.progressed);
  EXPECT_EQ(ready_.Size(TaskShape::kAiv, Lane::kEarly), 1u);
}

TEST_F(DispatchPlannerTest, EarlyCandidateThatBecameReadyIsDroppedFromTheEarlyLane) {
  CoreSlots slots = Cores(TaskShape::kAiv, {0});
  DispatchPlanner planner(0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  Task& ready = EarlyCandidate(TaskShape::kAiv, 1);   // T0
  ready.fanin_pending = 0;                            // ready: it went the normal way
  Task& routed = EarlyCandidate(TaskShape::kAiv, 1);  // T1
  routed.early_state = Task::EarlyState::kNone;

  TimePs cost = 0;
  const DispatchTally tally = planner.DispatchEarly(0, &cost, &sink);
  EXPECT_THAT(sink.steps, IsEmpty());
  EXPECT_TRUE(tally.progressed);  // two pops
  EXPECT_TRUE(ready_.Empty(TaskShape::kAiv, Lane::kEarly));
  EXPECT_EQ(cost, 0);
}

TEST_F(DispatchPlannerTest, EarlyDispatchStopsAShapeWithNoFreeSlot) {
  CoreSlots slots = Cores(TaskShape::kAic, {0});
  slots.Publish(0, 1000, false);  // running, not ACKed: no slot at all
  DispatchPlanner planner(0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  EarlyCandidate(TaskShape::kAic, 1);

  TimePs cost = 0;
  EXPECT_FALSE(planner.DispatchEarly(0, &cost, &sink).progressed);
  EXPECT_EQ(ready_.Size(TaskShape::kAic, Lane::kEarly), 1u);  // not popped
}

TEST_F(DispatchPlannerTest, StagedProducerLetsItsEarlyConsumerStageInTheSamePhase) {
  CoreSlots slots({{0, TaskShape::kAic, 0}, {1, TaskShape::kAiv, 0}});
  DispatchPlanner planner(0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  EarlyCandidate(TaskShape::kAic, 1);            // T0, an allow_early_resolve producer
  Task& consumer = AddTask(TaskShape::kAiv, 1);  // T1
  consumer.fanin_pending = 1;
  // What the lifecycle does when T0 is fully published: T1 becomes a candidate.
  sink.on_published = [&](Task& task, TimePs at) {
    if (task.seq != 0) return;
    consumer.early_state = Task::EarlyState::kQueued;
    ready_.Push(TaskShape::kAiv, consumer.seq, at, Lane::kEarly);
  };

  TimePs cost = 0;
  const DispatchTally tally = planner.DispatchEarly(0, &cost, &sink);
  EXPECT_THAT(sink.steps,
              ElementsAre("T0 b0 -> core 0 gated, token 1, ts 0, delay 35", "published T0 at 35",
                          "T1 b0 -> core 1 gated, token 1, ts 35, delay 70", "published T1 at 70"));
  EXPECT_EQ(tally.task_dispatches, 2u);
  EXPECT_EQ(tally.early_blocks, 2u);
}

TEST_F(DispatchPlannerTest, DrainStagesEachThreadsRangeOfGatedBlocksWithoutABarrier) {
  CoreSlots mine = Cores(TaskShape::kAiv, {0, 1});
  CoreSlots theirs = Cores(TaskShape::kAiv, {2, 3, 4});
  Busy(&theirs, 0);  // one busy core: two idle ones left
  DispatchPlanner planner(0, kCosts, &mine, &ready_, &tasks_);
  DispatchPlanner peer_planner(1, kCosts, &theirs, &ready_, &tasks_);
  RecordingSink sink(&mine), peer_sink(&theirs);
  Task& task = AddTask(TaskShape::kAiv, 4);  // T0

  TimePs cost = 10;
  EXPECT_EQ(planner.StageCohort(task, 4, /*now=*/0, &cost, &sink), 2);
  EXPECT_EQ(peer_planner.StageCohort(task, 2, 0, &cost, &peer_sink), 2);
  EXPECT_THAT(sink.steps, ElementsAre("T0 b0 -> core 0 gated, token 1, ts 10, delay 15",
                                      "T0 b1 -> core 1 gated, token 1, ts 10, delay 20"));
  EXPECT_THAT(peer_sink.steps, ElementsAre("T0 b2 -> core 3 gated, token 1, ts 20, delay 25",
                                           "T0 b3 -> core 4 gated, token 1, ts 20, delay 30"));
  EXPECT_EQ(task.next_block, 4);
  EXPECT_EQ(cost, 30);
}

TEST_F(DispatchPlannerTest, StageCohortTakesNoMoreThanItsShare) {
  CoreSlots slots = Cores(TaskShape::kAiv, {0, 1, 2});
  DispatchPlanner planner(0, kCosts, &slots, &ready_, &tasks_);
  RecordingSink sink(&slots);
  Task& task = AddTask(TaskShape::kAiv, 4);
  task.next_block = 3;  // other threads staged blocks 0-2

  TimePs cost = 0;
  EXPECT_EQ(planner.StageCohort(task, 1, 0, &cost, &sink), 1);
  EXPECT_THAT(sink.steps, ElementsAre("T0 b3 -> core 0 gated, token 1, ts 0, delay 5"));
  EXPECT_EQ(slots.running_cores(), 1u);
}

TEST(DispatchPeerIdleTest, IgnoresTheAskingThreadAndCountsWholeClustersForMix) {
  CoreSlots self = Cores(TaskShape::kAic, {0});
  CoreSlots aiv_only = Cores(TaskShape::kAiv, {1, 2});
  CoreSlots partial({{3, TaskShape::kAic, 9}, {4, TaskShape::kAiv, 9}, {5, TaskShape::kAiv, 9}});
  partial.Publish(1, 1000, false);  // one AIV of the cluster is busy
  const CoreSlots* threads[] = {&self, &aiv_only, &partial};

  EXPECT_TRUE(PeerHasIdle(threads, &self, TaskShape::kAiv));
  EXPECT_TRUE(PeerHasIdle(threads, &self, TaskShape::kAic));  // the cluster's AIC
  EXPECT_FALSE(PeerHasIdle(threads, &self, TaskShape::kMix));
  EXPECT_TRUE(PeerHasIdle(threads, &partial, TaskShape::kAic));   // self's idle AIC
  EXPECT_TRUE(PeerHasIdle(threads, &aiv_only, TaskShape::kAiv));  // partial's other AIV
  const CoreSlots* alone[] = {&self};
  EXPECT_FALSE(PeerHasIdle(alone, &self, TaskShape::kAic));
}

}  // namespace
}  // namespace pto
