// TaskLifecycle on a real task table, ready queues and GM image, with fake
// signals: where ready tasks go, what completions release, which tasks
// become early-dispatch candidates.

#include "models/aicpu/task_lifecycle.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/aicpu/ready_queues.h"
#include "models/aicpu/runtime_signals.h"
#include "models/aicpu/task_table.h"
#include "models/gm/memory_image.h"

namespace pto {
namespace {

using Lane = ReadyQueues::Lane;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr TimePs kDoorbell = 5'000;     // aicpu.doorbell_ns = 5
constexpr uint64_t kFlags = 0x10'0000;  // a predicate tensor in GM

struct Doorbell {
  int core;
  TaskSeq task;
  TimePs at;
  bool operator==(const Doorbell& other) const {
    return core == other.core && task == other.task && at == other.at;
  }
};

class FakeSignals : public RuntimeSignals {
 public:
  void WakeSchedulers(TimePs visible_at) override { scheduler_wakes.push_back(visible_at); }
  void WakeOrchestrator() override { ++orchestrator_wakes; }
  void RingDoorbell(int core, TaskSeq task, TimePs at) override {
    doorbells.push_back(Doorbell{core, task, at});
  }
  std::vector<TimePs> scheduler_wakes;
  int orchestrator_wakes = 0;
  std::vector<Doorbell> doorbells;
};

class TaskLifecycleTest : public ::testing::Test {
 protected:
  TaskLifecycleTest()
      : tasks_([this](Task& task) {
          retired_.push_back(task.seq);
          lifecycle_.OnRetired(task);
        }),
        lifecycle_(TaskLifecycle::Env{&tasks_, &ready_, &signals_, &memory_, kDoorbell}) {
    memory_.AddRegion(kFlags, 64, "flags", /*allocate=*/true);
  }

  // A submitted task of `shape` that still waits for its publish hold.
  Task& AddTask(TaskShape shape, int64_t block_num = 1) {
    Task& task = tasks_.Create(tasks_.next_seq(), /*ring=*/0);
    task.shape = shape;
    task.block_num = block_num;
    task.times.submit = 0;
    return task;
  }
  // `consumer` waits for `producer` (as the submitter wires it).
  void Depend(Task& consumer, Task& producer) {
    ASSERT_TRUE(tasks_.AddDependency(producer.seq, consumer, /*retain=*/false));
    ++consumer.producers;
  }
  void SetPredicate(Task& task, trace::DType dtype, trace::Predicate::Op op, int64_t target) {
    task.predicate = ResolvedPredicate{true, kFlags, dtype, op, target};
  }
  void WriteFlag(const void* bytes, size_t size) {
    std::memcpy(memory_.Span(kFlags, size), bytes, size);
  }
  // The queue's entries, oldest first.
  std::vector<TaskSeq> Drain(TaskShape shape, Lane lane = Lane::kNormal) {
    std::vector<TaskSeq> seqs;
    while (!ready_.Empty(shape, lane)) seqs.push_back(ready_.Pop(shape, lane));
    return seqs;
  }

  TaskTable tasks_;
  ReadyQueues ready_;
  FakeSignals signals_;
  MemoryImage memory_;
  TaskLifecycle lifecycle_;
  std::vector<TaskSeq> retired_;
};

TEST_F(TaskLifecycleTest, RoutesEachShapeToItsQueueAndStampsReady) {
  Task& aic = AddTask(TaskShape::kAic);
  Task& mix = AddTask(TaskShape::kMix);
  Task& dummy = AddTask(TaskShape::kDummy);
  EXPECT_EQ(lifecycle_.RouteReady(aic, 100), 0u);
  lifecycle_.RouteReady(mix, 200);
  lifecycle_.RouteReady(dummy, 300);
  EXPECT_EQ(aic.times.ready, 100);
  EXPECT_EQ(ready_.HeadVisibleAt(TaskShape::kMix), 200);
  EXPECT_THAT(Drain(TaskShape::kAic), ElementsAre(aic.seq));
  EXPECT_THAT(Drain(TaskShape::kMix), ElementsAre(mix.seq));
  EXPECT_THAT(Drain(TaskShape::kDummy), ElementsAre(dummy.seq));
  EXPECT_FALSE(dummy.predicated_skip);  // a dummy is no skip
  EXPECT_EQ(lifecycle_.counters().predicated_skips, 0u);
}

TEST_F(TaskLifecycleTest, PredicateComparesTheSignExtendedElement) {
  // 0xff is -1 as an INT8, 255 as a UINT8; 0x8000 is -32768 as an INT16.
  const uint8_t minus_one = 0xff;
  WriteFlag(&minus_one, 1);
  Task& int8_eq = AddTask(TaskShape::kAiv);
  SetPredicate(int8_eq, trace::INT8, trace::Predicate::EQ, -1);
  Task& uint8_gt = AddTask(TaskShape::kAiv);
  SetPredicate(uint8_gt, trace::UINT8, trace::Predicate::GT, 254);
  lifecycle_.RouteReady(int8_eq, 10);
  lifecycle_.RouteReady(uint8_gt, 10);
  EXPECT_THAT(Drain(TaskShape::kAiv), ElementsAre(int8_eq.seq, uint8_gt.seq));

  const uint8_t int16_min[2] = {0x00, 0x80};  // little-endian
  WriteFlag(int16_min, 2);
  Task& int16_lt = AddTask(TaskShape::kAic);
  SetPredicate(int16_lt, trace::INT16, trace::Predicate::LT, 0);
  lifecycle_.RouteReady(int16_lt, 20);
  EXPECT_THAT(Drain(TaskShape::kAic), ElementsAre(int16_lt.seq));
  EXPECT_EQ(lifecycle_.counters().predicated_skips, 0u);
}

TEST_F(TaskLifecycleTest, FalsePredicateRetiresThroughTheDummyQueue) {
  const int32_t zero = 0;
  WriteFlag(&zero, 4);
  Task& gated = AddTask(TaskShape::kAiv, /*block_num=*/4);
  SetPredicate(gated, trace::INT32, trace::Predicate::NE, 0);
  EXPECT_EQ(lifecycle_.RouteReady(gated, 50), 0u);
  EXPECT_TRUE(gated.predicated_skip);
  EXPECT_THAT(Drain(TaskShape::kAiv), IsEmpty());
  EXPECT_THAT(Drain(TaskShape::kDummy), ElementsAre(gated.seq));
  EXPECT_EQ(lifecycle_.counters().predicated_skips, 1u);
  lifecycle_.BeginLaunch();
  EXPECT_EQ(lifecycle_.counters().predicated_skips, 0u);
}

TEST_F(TaskLifecycleTest, TimingOnlyRunHasNoDataSoPredicatesPass) {
  TaskLifecycle timing_only(TaskLifecycle::Env{&tasks_, &ready_, &signals_, nullptr, kDoorbell});
  Task& task = AddTask(TaskShape::kAiv);
  SetPredicate(task, trace::INT32, trace::Predicate::NE, 0);  // GM holds 0
  timing_only.RouteReady(task, 0);
  EXPECT_FALSE(task.predicated_skip);
  EXPECT_THAT(Drain(TaskShape::kAiv), ElementsAre(task.seq));
}

TEST_F(TaskLifecycleTest, MultiBlockSyncStartCohortsTakeTheSyncLane) {
  Task& cohort = AddTask(TaskShape::kAiv, /*block_num=*/4);
  cohort.sync_start = true;
  Task& single = AddTask(TaskShape::kAiv, /*block_num=*/1);
  single.sync_start = true;  // one block is trivially co-resident
  lifecycle_.RouteReady(cohort, 0);
  lifecycle_.RouteReady(single, 0);
  EXPECT_THAT(Drain(TaskShape::kAiv, Lane::kSync), ElementsAre(cohort.seq));
  EXPECT_THAT(Drain(TaskShape::kAiv), ElementsAre(single.seq));
}

TEST_F(TaskLifecycleTest, StagedTaskIsReleasedByDoorbellsAtDoorbellSpacing) {
  Task& staged = AddTask(TaskShape::kAiv, /*block_num=*/2);
  staged.early_state = Task::EarlyState::kStaged;
  staged.staged_cores = {30, 31};
  staged.next_block = 2;  // both blocks wait, gated, on their cores
  EXPECT_EQ(lifecycle_.RouteReady(staged, 1'000), 2u);
  EXPECT_THAT(signals_.doorbells, ElementsAre(Doorbell{30, staged.seq, 1'000 + kDoorbell},
                                              Doorbell{31, staged.seq, 1'000 + 2 * kDoorbell}));
  EXPECT_THAT(Drain(TaskShape::kAiv), IsEmpty());  // never through a queue
  EXPECT_EQ(staged.times.ready, 1'000);
}

TEST_F(TaskLifecycleTest, PartlyStagedTaskQueuesItsRemainingBlocks) {
  Task& staged = AddTask(TaskShape::kAic, /*block_num=*/3);
  staged.early_state = Task::EarlyState::kStaged;
  staged.staged_cores = {4};
  staged.next_block = 1;
  EXPECT_EQ(lifecycle_.RouteReady(staged, 0), 1u);
  EXPECT_THAT(Drain(TaskShape::kAic), ElementsAre(staged.seq));
  EXPECT_EQ(staged.early_state, Task::EarlyState::kStaged);
}

TEST_F(TaskLifecycleTest, QueuedEarlyCandidateThatBecomesReadyGoesTheNormalWay) {
  Task& candidate = AddTask(TaskShape::kAiv);
  candidate.early_state = Task::EarlyState::kQueued;
  lifecycle_.RouteReady(candidate, 0);
  EXPECT_EQ(candidate.early_state, Task::EarlyState::kNone);  // its early entry is skipped
  EXPECT_THAT(Drain(TaskShape::kAiv), ElementsAre(candidate.seq));
}

TEST_F(TaskLifecycleTest, CompletionRoutesTheConsumersItMadeReady) {
  Task& producer = AddTask(TaskShape::kAic);
  Task& ready_after = AddTask(TaskShape::kAiv);
  Task& still_waiting = AddTask(TaskShape::kAiv);
  Task& other = AddTask(TaskShape::kAic);
  Depend(ready_after, producer);
  Depend(still_waiting, producer);
  Depend(still_waiting, other);
  for (Task* task : {&producer, &ready_after, &still_waiting, &other}) {
    TaskTable::ReleaseFanin(*task);  // published
  }

  const CompletionWork work = lifecycle_.CompleteTask(producer, 7'000);
  EXPECT_EQ(work.consumers, 2u);
  EXPECT_EQ(work.doorbells, 0u);
  EXPECT_TRUE(producer.completed);
  EXPECT_EQ(producer.times.finish, 7'000);
  EXPECT_EQ(ready_after.times.ready, 7'000);
  EXPECT_EQ(still_waiting.fanin_pending, 1);
  EXPECT_THAT(Drain(TaskShape::kAiv), ElementsAre(ready_after.seq));
}

TEST_F(TaskLifecycleTest, CompletionRingsStagedConsumersAndCountsTheirDoorbells) {
  Task& producer = AddTask(TaskShape::kAiv);
  Task& staged = AddTask(TaskShape::kAiv, /*block_num=*/3);
  Depend(staged, producer);
  TaskTable::ReleaseFanin(producer);
  TaskTable::ReleaseFanin(staged);
  staged.early_state = Task::EarlyState::kStaged;
  staged.staged_cores = {1, 2, 3};
  staged.next_block = 3;
  const CompletionWork work = lifecycle_.CompleteTask(producer, 100);
  EXPECT_EQ(work.consumers, 1u);
  EXPECT_EQ(work.doorbells, 3u);
  EXPECT_EQ(signals_.doorbells.back(), (Doorbell{3, staged.seq, 100 + 3 * kDoorbell}));
}

TEST_F(TaskLifecycleTest, CompletionRetiresTheConsumedPrefixAndRecordsTheLastRetirement) {
  Task& first = AddTask(TaskShape::kAiv);
  Task& second = AddTask(TaskShape::kAiv);
  const TaskSeq first_seq = first.seq;
  const TaskSeq second_seq = second.seq;
  first.scope_released = second.scope_released = true;
  lifecycle_.CompleteTask(second, 900);  // behind the live first: nothing retires
  EXPECT_THAT(retired_, IsEmpty());
  lifecycle_.CompleteTask(first, 400);
  EXPECT_THAT(retired_, ElementsAre(first_seq, second_seq));
  EXPECT_EQ(lifecycle_.counters().last_retire, 900);
}

TEST_F(TaskLifecycleTest, EarlyCandidateIsQueuedAndWakesTheSchedulers) {
  Task& producer = AddTask(TaskShape::kAic);
  Task& consumer = AddTask(TaskShape::kAiv);
  Depend(consumer, producer);
  TaskTable::ReleaseFanin(consumer);  // submitted, waiting for the producer
  lifecycle_.MaybeQueueEarly(consumer, 250);
  EXPECT_EQ(consumer.early_state, Task::EarlyState::kQueued);
  EXPECT_THAT(Drain(TaskShape::kAiv, Lane::kEarly), ElementsAre(consumer.seq));
  EXPECT_THAT(signals_.scheduler_wakes, ElementsAre(250));
  lifecycle_.MaybeQueueEarly(consumer, 300);  // queued once
  EXPECT_THAT(Drain(TaskShape::kAiv, Lane::kEarly), IsEmpty());
}

TEST_F(TaskLifecycleTest, EarlyCandidateRulesOutWhatCannotBeStaged) {
  // Each candidate waits for one producer and breaks one rule.
  Task& producer = AddTask(TaskShape::kAic);
  auto candidate = [&](TaskShape shape) -> Task& {
    Task& task = AddTask(shape);
    Depend(task, producer);
    TaskTable::ReleaseFanin(task);
    return task;
  };
  Task& waiting_for_flagged = candidate(TaskShape::kAiv);
  waiting_for_flagged.early_waiting = 1;  // a flagged producer is not fully published
  Task& blocked = candidate(TaskShape::kAiv);
  blocked.early_blocked = true;  // an unflagged producer
  Task& predicated = candidate(TaskShape::kAiv);
  SetPredicate(predicated, trace::INT32, trace::Predicate::EQ, 0);
  Task& cohort = candidate(TaskShape::kAiv);
  cohort.sync_start = true;
  Task& dummy = candidate(TaskShape::kDummy);
  Task& unsubmitted = candidate(TaskShape::kAiv);
  unsubmitted.times.submit = kNever;
  Task& ready = AddTask(TaskShape::kAiv);
  TaskTable::ReleaseFanin(ready);  // nothing to wait for: it is ready, not early
  for (Task* task :
       {&waiting_for_flagged, &blocked, &predicated, &cohort, &dummy, &unsubmitted, &ready}) {
    lifecycle_.MaybeQueueEarly(*task, 0);
    EXPECT_EQ(task->early_state, Task::EarlyState::kNone) << "task " << task->seq;
  }
  for (TaskShape shape : {TaskShape::kAiv, TaskShape::kDummy}) {
    EXPECT_THAT(Drain(shape, Lane::kEarly), IsEmpty());
  }
  EXPECT_THAT(signals_.scheduler_wakes, IsEmpty());
}

TEST_F(TaskLifecycleTest, FullyPublishedFlaggedProducerMakesItsConsumersCandidates) {
  Task& flagged = AddTask(TaskShape::kAic);
  flagged.allow_early_resolve = true;
  Task& other_flagged = AddTask(TaskShape::kAic);
  other_flagged.allow_early_resolve = true;
  Task& one_producer = AddTask(TaskShape::kAiv);
  Task& two_producers = AddTask(TaskShape::kMix);
  for (Task* consumer : {&one_producer, &two_producers}) {
    Depend(*consumer, flagged);
    ++consumer->early_waiting;
    TaskTable::ReleaseFanin(*consumer);
  }
  Depend(two_producers, other_flagged);
  ++two_producers.early_waiting;

  lifecycle_.OnFullyPublished(flagged, 500);
  EXPECT_TRUE(flagged.fully_published);
  EXPECT_EQ(one_producer.early_state, Task::EarlyState::kQueued);
  EXPECT_EQ(two_producers.early_state, Task::EarlyState::kNone);  // waits for the other
  lifecycle_.OnFullyPublished(other_flagged, 600);
  EXPECT_EQ(two_producers.early_state, Task::EarlyState::kQueued);
  EXPECT_THAT(Drain(TaskShape::kAiv, Lane::kEarly), ElementsAre(one_producer.seq));
  EXPECT_THAT(Drain(TaskShape::kMix, Lane::kEarly), ElementsAre(two_producers.seq));
  EXPECT_THAT(signals_.scheduler_wakes, ElementsAre(500, 600));
}

TEST_F(TaskLifecycleTest, UnflaggedProducerReleasesNoCandidates) {
  Task& producer = AddTask(TaskShape::kAic);
  Task& consumer = AddTask(TaskShape::kAiv);
  Depend(consumer, producer);
  consumer.early_waiting = 1;
  TaskTable::ReleaseFanin(consumer);
  lifecycle_.OnFullyPublished(producer, 0);
  EXPECT_TRUE(producer.fully_published);
  EXPECT_EQ(consumer.early_waiting, 1);
  EXPECT_EQ(consumer.early_state, Task::EarlyState::kNone);
}

}  // namespace
}  // namespace pto
