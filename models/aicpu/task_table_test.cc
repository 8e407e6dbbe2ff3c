#include "models/aicpu/task_table.h"

#include <vector>

#include "gtest/gtest.h"
#include "models/aicpu/ready_queues.h"

namespace pto {
namespace {

TEST(TaskTableTest, ConsumerBecomesReadyAfterProducerAndPublish) {
  std::vector<TaskSeq> retired;
  TaskTable table([&](Task& t) { retired.push_back(t.seq); });
  Task& producer = table.Create(0, 1);
  ASSERT_TRUE(TaskTable::ReleaseFanin(producer));  // published, no producers
  Task& consumer = table.Create(1, 1);
  EXPECT_TRUE(table.AddDependency(0, consumer, /*retain=*/false));
  EXPECT_FALSE(TaskTable::ReleaseFanin(consumer));  // still waits for task 0

  std::vector<Task*> ready;
  EXPECT_EQ(table.Complete(*table.Find(0), &ready), 1u);
  EXPECT_EQ(ready, std::vector<Task*>{&consumer});
}

TEST(TaskTableTest, DependencyOnCompletedOrRetiredTaskIsSatisfied) {
  TaskTable table([](Task&) {});
  Task& producer = table.Create(0, 1);
  std::vector<Task*> ready;
  table.Complete(producer, &ready);
  Task& consumer = table.Create(1, 1);
  EXPECT_FALSE(table.AddDependency(0, consumer, /*retain=*/false));
  table.ReleaseScope(0);
  table.AdvanceWatermarks();
  EXPECT_TRUE(table.IsRetired(0));
  Task& late = table.Create(2, 1);
  EXPECT_FALSE(table.AddDependency(0, late, /*retain=*/true));
  EXPECT_EQ(late.fanin_pending, 1);
}

TEST(TaskTableTest, WatermarkStopsAtTheFirstUnreleasedTask) {
  std::vector<TaskSeq> retired;
  TaskTable table([&](Task& t) { retired.push_back(t.seq); });
  std::vector<Task*> ready;
  for (TaskSeq s = 0; s < 3; ++s) table.Complete(table.Create(s, 1), &ready);
  table.ReleaseScope(0);
  table.ReleaseScope(2);
  table.AdvanceWatermarks();
  EXPECT_EQ(retired, std::vector<TaskSeq>{0});  // task 1's scope is still open
  table.ReleaseScope(1);
  table.AdvanceWatermarks();
  EXPECT_EQ(retired, (std::vector<TaskSeq>{0, 1, 2}));
  EXPECT_EQ(table.live_tasks(), 0u);
}

TEST(TaskTableTest, TasksFarApartInSequenceAreAllFoundAndRetire) {
  // Task 0 stays live in ring 0 while ring 1 runs 200 000 tasks past it, so
  // live tasks share slots of the index (every 65 536th sequence number).
  std::vector<TaskSeq> retired;
  TaskTable table([&](Task& t) { retired.push_back(t.seq); });
  std::vector<Task*> ready;
  Task& old = table.Create(0, 0);
  constexpr TaskSeq kLast = 200000;
  for (TaskSeq seq = 1; seq <= kLast; ++seq) {
    Task& task = table.Create(seq, 1);
    ASSERT_EQ(table.Find(seq), &task);
    // Ring 1 keeps the last 70 000 live, so the newest share a slot with
    // each other as well as with task 0.
    if (seq > 70000) {
      Task& done = *table.Find(seq - 70000);
      table.Complete(done, &ready);
      table.ReleaseScope(done.seq);
      table.AdvanceWatermarks();
    }
  }
  EXPECT_EQ(table.live_tasks(), 70001u);
  EXPECT_EQ(table.Find(0), &old);
  EXPECT_EQ(table.Find(kLast)->seq, kLast);
  EXPECT_EQ(table.Find(kLast - 65536)->seq, kLast - 65536);
  EXPECT_TRUE(table.IsRetired(kLast - 70000));
  EXPECT_EQ(table.Find(kLast - 70000), nullptr);
  EXPECT_FALSE(table.IsRetired(kLast - 69999));
  EXPECT_EQ(table.Find(kLast + 1), nullptr);  // not created yet
  EXPECT_EQ(retired.size(), 130000u);
  EXPECT_EQ(retired.back(), kLast - 70000);
  table.Complete(old, &ready);
  table.ReleaseScope(0);
  table.AdvanceWatermarks();
  EXPECT_TRUE(table.IsRetired(0));
  EXPECT_EQ(table.live_tasks(), 70000u);
}

TEST(PredicateTest, ComparesSignExtendedValues) {
  EXPECT_TRUE(PredicatePasses(trace::Predicate::GT, 1, 0));
  EXPECT_FALSE(PredicatePasses(trace::Predicate::GT, 0, 0));
  EXPECT_FALSE(PredicatePasses(trace::Predicate::GT, -3, 0));
  EXPECT_TRUE(PredicatePasses(trace::Predicate::LE, -3, 0));
  EXPECT_TRUE(PredicatePasses(trace::Predicate::NE, 5, 4));
  EXPECT_TRUE(PredicatePasses(trace::Predicate::EQ, -1, -1));
}

TEST(ReadyQueuesTest, PushFrontKeepsPartiallyClaimedTasksFirst) {
  ReadyQueues queues;
  queues.Push(TaskShape::kAiv, 1, 0);
  queues.Push(TaskShape::kAiv, 2, 0);
  EXPECT_EQ(queues.Pop(TaskShape::kAiv), 1u);
  queues.PushFront(TaskShape::kAiv, 1, 0);
  EXPECT_EQ(queues.Pop(TaskShape::kAiv), 1u);
  EXPECT_TRUE(queues.Empty(TaskShape::kMix));
  queues.Push(TaskShape::kDummy, 9, 0);
  EXPECT_FALSE(queues.AllCoreQueuesEmpty());  // task 2 is still queued
  EXPECT_EQ(queues.Size(TaskShape::kDummy), 1u);
}

TEST(ReadyQueuesTest, EntriesAreInvisibleUntilTheirPushCompletes) {
  ReadyQueues queues;
  queues.Push(TaskShape::kAic, 4, 1000);
  EXPECT_FALSE(queues.HasVisible(TaskShape::kAic, 999));
  EXPECT_TRUE(queues.HasVisible(TaskShape::kAic, 1000));
  EXPECT_EQ(queues.HeadVisibleAt(TaskShape::kAic), 1000);
  EXPECT_EQ(queues.HeadVisibleAt(TaskShape::kMix), kNever);
}

TEST(TaskTableTest, RetainingConsumerPinsItsProducerUntilReleased) {
  std::vector<TaskSeq> retired;
  TaskTable table([&](Task& t) { retired.push_back(t.seq); });
  std::vector<Task*> ready;
  Task& producer = table.Create(0, 1);
  table.Complete(producer, &ready);
  table.ReleaseScope(0);
  Task& consumer = table.Create(1, 2);
  // Completed already: nothing to wait for, but the creator edge retains it.
  EXPECT_FALSE(table.AddDependency(0, consumer, /*retain=*/true));
  table.AdvanceWatermarks();
  EXPECT_TRUE(retired.empty());
  table.ReleaseConsumer(consumer);
  table.AdvanceWatermarks();
  EXPECT_EQ(retired, std::vector<TaskSeq>{0});
  EXPECT_EQ(table.ring_occupancy(1), 0u);
  EXPECT_EQ(table.ring_occupancy(2), 1u);
}

TEST(TaskTableTest, ConsumerRetiresOnlyAfterItsOwnReleaseSoItsPinsAreNeverLost) {
  std::vector<TaskSeq> retired;
  TaskTable table([&](Task& t) { retired.push_back(t.seq); });
  std::vector<Task*> ready;
  Task& producer = table.Create(0, 1);
  table.Complete(producer, &ready);
  table.ReleaseScope(0);
  Task& consumer = table.Create(1, 2);
  table.AddDependency(0, consumer, /*retain=*/true);
  table.Complete(consumer, &ready);
  table.ReleaseScope(1);
  table.AdvanceWatermarks();
  EXPECT_TRUE(retired.empty());  // the consumer has not been released yet
  table.ReleaseConsumer(*table.Find(1));
  table.AdvanceWatermarks();
  EXPECT_EQ(retired, (std::vector<TaskSeq>{0, 1}));
}

TEST(TaskTableTest, RingsRetireIndependently) {
  std::vector<TaskSeq> retired;
  TaskTable table([&](Task& t) { retired.push_back(t.seq); });
  std::vector<Task*> ready;
  table.Create(0, 0);  // an outer-scope task that stays live
  for (TaskSeq s = 1; s <= 3; ++s) {
    table.Complete(table.Create(s, 2), &ready);
    table.ReleaseScope(s);
  }
  table.AdvanceWatermarks();
  EXPECT_EQ(retired, (std::vector<TaskSeq>{1, 2, 3}));
  EXPECT_EQ(table.ring_occupancy(0), 1u);
  EXPECT_FALSE(table.IsRetired(0));
  EXPECT_TRUE(table.IsRetired(2));
}

TEST(RingTest, DepthMapsToRing) {
  EXPECT_EQ(RingOf(0), 0);
  EXPECT_EQ(RingOf(2), 2);
  EXPECT_EQ(RingOf(3), 3);
  EXPECT_EQ(RingOf(7), 3);
}

}  // namespace
}  // namespace pto
