#include "models/aicpu/task_table.h"

#include <vector>

#include "gtest/gtest.h"
#include "models/aicpu/ready_queues.h"

namespace pto {
namespace {

TEST(TaskTableTest, ConsumerBecomesReadyAfterProducerAndPublish) {
  std::vector<TaskSeq> retired;
  TaskTable table([&](Task& t) { retired.push_back(t.seq); });
  Task& producer = table.Create(0);
  ASSERT_TRUE(TaskTable::ReleaseFanin(producer));  // published, no producers
  Task& consumer = table.Create(1);
  EXPECT_TRUE(table.AddDependency(0, consumer));
  EXPECT_FALSE(TaskTable::ReleaseFanin(consumer));  // still waits for task 0

  std::vector<TaskSeq> ready;
  EXPECT_EQ(table.Complete(*table.Find(0), &ready), 1u);
  EXPECT_EQ(ready, std::vector<TaskSeq>{1});
}

TEST(TaskTableTest, DependencyOnCompletedOrRetiredTaskIsSatisfied) {
  TaskTable table([](Task&) {});
  Task& producer = table.Create(0);
  std::vector<TaskSeq> ready;
  table.Complete(producer, &ready);
  Task& consumer = table.Create(1);
  EXPECT_FALSE(table.AddDependency(0, consumer));
  table.ReleaseScope(0);
  table.AdvanceWatermark();
  EXPECT_TRUE(table.IsRetired(0));
  Task& late = table.Create(2);
  EXPECT_FALSE(table.AddDependency(0, late));
  EXPECT_EQ(late.fanin_pending, 1);
}

TEST(TaskTableTest, WatermarkStopsAtTheFirstUnreleasedTask) {
  std::vector<TaskSeq> retired;
  TaskTable table([&](Task& t) { retired.push_back(t.seq); });
  std::vector<TaskSeq> ready;
  for (TaskSeq s = 0; s < 3; ++s) table.Complete(table.Create(s), &ready);
  table.ReleaseScope(0);
  table.ReleaseScope(2);
  table.AdvanceWatermark();
  EXPECT_EQ(retired, std::vector<TaskSeq>{0});  // task 1's scope is still open
  table.ReleaseScope(1);
  table.AdvanceWatermark();
  EXPECT_EQ(retired, (std::vector<TaskSeq>{0, 1, 2}));
  EXPECT_EQ(table.live_tasks(), 0u);
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

}  // namespace
}  // namespace pto
