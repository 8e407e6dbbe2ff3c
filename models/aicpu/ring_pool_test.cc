#include "models/aicpu/ring_pool.h"

#include <array>
#include <deque>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;

std::array<RingLimits, kNumRings> Limits(int64_t task_window, int64_t heap_bytes,
                                         int64_t dep_pool) {
  std::array<RingLimits, kNumRings> limits;
  limits.fill(RingLimits{task_window, heap_bytes, dep_pool});
  return limits;
}

// Tasks as the orchestrator hands them to the pool: created in `ring`,
// with their heap bytes, then entered.
class RingPoolTest : public ::testing::Test {
 protected:
  Task& Enter(RingPool& pool, int ring, int64_t heap_bytes = 0, const char* name = "t") {
    Task& task = tasks_.emplace_back();
    task.ring = static_cast<uint8_t>(ring);
    task.heap_bytes = heap_bytes;
    task.name = name;
    task.index_in_launch = static_cast<uint32_t>(tasks_.size() - 1);
    pool.Enter(task);
    return task;
  }

  std::deque<Task> tasks_;  // stable references
};

// ---------------------------------------------------------------------------
// Admission

TEST_F(RingPoolTest, TaskWindowAdmitsWindowMinusOneTasksInFlight) {
  RingPool pool(Limits(4, 1024, 16));
  // A window of 4 slots holds at most 3 tasks: local_id - last_alive + 1 < 4.
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(pool.Admit(1, 0), RingResource::kNone) << i;
    Enter(pool, 1);
  }
  EXPECT_EQ(pool.tasks_in_flight(1), 3);
  EXPECT_EQ(pool.Admit(1, 0), RingResource::kTaskWindow);
  // The other rings are independent.
  EXPECT_EQ(pool.Admit(0, 0), RingResource::kNone);
  EXPECT_EQ(pool.Admit(2, 0), RingResource::kNone);
}

TEST_F(RingPoolTest, HeapAdmitsUpToTheLastByte) {
  RingPool pool(Limits(16, 1024, 16));
  Enter(pool, 0, 600);
  EXPECT_EQ(pool.heap_used(0), 600);
  EXPECT_EQ(pool.Admit(0, 424), RingResource::kNone);  // 600 + 424 = 1024
  EXPECT_EQ(pool.Admit(0, 425), RingResource::kHeap);
  EXPECT_EQ(pool.Admit(0, 0), RingResource::kNone);  // a submit asks no heap
}

TEST_F(RingPoolTest, TaskWindowIsCheckedBeforeTheHeap) {
  RingPool pool(Limits(4, 1024, 16));
  for (int i = 0; i < 3; ++i) Enter(pool, 2, 300);
  // Both are short (900 + 200 > 1024 and 3 in flight): the window is named,
  // as PTO2TaskAllocator::alloc checks the slot first.
  EXPECT_EQ(pool.Admit(2, 200), RingResource::kTaskWindow);
}

TEST_F(RingPoolTest, DepPoolFitsExactlyItsEntries) {
  RingPool pool(Limits(16, 1024, 4));
  Task& a = Enter(pool, 0);
  ASSERT_TRUE(pool.DepPoolFits(0, 3));
  pool.HoldDepEntries(a, 3);
  EXPECT_EQ(a.dep_entries, 3);
  EXPECT_EQ(pool.dep_used(0), 3);
  EXPECT_TRUE(pool.DepPoolFits(0, 0));
  EXPECT_TRUE(pool.DepPoolFits(0, 1));   // 3 + 1 = 4
  EXPECT_FALSE(pool.DepPoolFits(0, 2));  // 3 + 2 = 5 > 4
  Task& b = Enter(pool, 0);
  pool.HoldDepEntries(b, 1);
  EXPECT_EQ(pool.dep_used(0), 4);
  EXPECT_TRUE(pool.DepPoolFits(0, 0));  // a task waiting on nothing needs no entry
  EXPECT_FALSE(pool.DepPoolFits(0, 1));
  EXPECT_TRUE(pool.DepPoolFits(1, 4));  // ring 1 has its own pool
  EXPECT_FALSE(pool.DepPoolFits(1, 5));
}

// ---------------------------------------------------------------------------
// Release at retirement, peaks, local ids

TEST_F(RingPoolTest, ReclaimReleasesEveryTaskThatRetired) {
  RingPool pool(Limits(16, 4096, 64));
  Task& a = Enter(pool, 1, 100);
  pool.HoldDepEntries(a, 2);
  Task& b = Enter(pool, 1, 200);
  pool.HoldDepEntries(b, 5);
  Task& c = Enter(pool, 1, 400);
  pool.HoldDepEntries(c, 1);
  EXPECT_EQ(pool.tasks_in_flight(1), 3);
  EXPECT_EQ(pool.heap_used(1), 700);
  EXPECT_EQ(pool.dep_used(1), 8);

  pool.Reclaim(1, &a);  // nothing retired yet
  EXPECT_EQ(pool.heap_used(1), 700);
  EXPECT_EQ(pool.dep_used(1), 8);

  pool.Reclaim(1, &c);  // a and b retired
  EXPECT_EQ(pool.tasks_in_flight(1), 1);
  EXPECT_EQ(pool.heap_used(1), 400);
  EXPECT_EQ(pool.dep_used(1), 1);

  pool.Reclaim(1, nullptr);  // the ring is empty
  EXPECT_EQ(pool.tasks_in_flight(1), 0);
  EXPECT_EQ(pool.heap_used(1), 0);
  EXPECT_EQ(pool.dep_used(1), 0);
  EXPECT_EQ(pool.Admit(1, 4096), RingResource::kNone);
}

TEST_F(RingPoolTest, PeaksAreTheLaunchMaximaIncludingTheEnteringTask) {
  RingPool pool(Limits(16, 4096, 64));
  Task& a = Enter(pool, 0, 1000);
  pool.HoldDepEntries(a, 0);
  Task& b = Enter(pool, 0, 0);
  pool.HoldDepEntries(b, 3);
  Task& c = Enter(pool, 0, 500);
  pool.HoldDepEntries(c, 2);
  // In flight 3, heap 1500, dep entries 5.
  pool.Reclaim(0, &c);  // a and b retire: in flight 1, heap 500, dep 2
  Task& d = Enter(pool, 0, 200);
  pool.HoldDepEntries(d, 1);
  // Now 2 in flight, heap 700, dep 3: below every peak.
  const RingPool::Stats& stats = pool.stats(0);
  EXPECT_EQ(stats.peak_tasks, 3u);
  EXPECT_EQ(stats.peak_heap_bytes, 1500u);
  EXPECT_EQ(stats.peak_dep_entries, 5u);
  EXPECT_EQ(pool.stats(1).peak_tasks, 0u);

  pool.Reclaim(0, nullptr);
  pool.BeginLaunch(Limits(16, 4096, 64));
  EXPECT_EQ(pool.stats(0).peak_tasks, 0u);
  EXPECT_EQ(pool.stats(0).peak_heap_bytes, 0u);
  EXPECT_EQ(pool.stats(0).peak_dep_entries, 0u);
}

TEST_F(RingPoolTest, LocalIdsCountPerRingAndRestartEachLaunch) {
  RingPool pool(Limits(16, 4096, 64));
  EXPECT_EQ(Enter(pool, 0).runtime_id, 0u);
  EXPECT_EQ(Enter(pool, 0).runtime_id, 1u);
  EXPECT_EQ(Enter(pool, 2).runtime_id, (uint64_t{2} << 32) | 0);
  EXPECT_EQ(Enter(pool, 0).runtime_id, 2u);
  EXPECT_EQ(Enter(pool, 3).runtime_id, (uint64_t{3} << 32) | 0);
  EXPECT_EQ(Enter(pool, 2).runtime_id, (uint64_t{2} << 32) | 1);
  EXPECT_EQ(pool.next_local_id(0), 3u);
  EXPECT_EQ(pool.next_local_id(1), 0u);
  pool.BeginLaunch(Limits(16, 4096, 64));
  EXPECT_EQ(pool.next_local_id(0), 0u);
  EXPECT_EQ(Enter(pool, 2).runtime_id, (uint64_t{2} << 32) | 0);
}

TEST_F(RingPoolTest, ALaunchMayResizeTheRings) {
  RingPool pool(Limits(16, 4096, 64));
  Enter(pool, 0);
  pool.Reclaim(0, nullptr);
  pool.BeginLaunch(Limits(4, 1024, 8));
  EXPECT_EQ(pool.limits(0).task_window, 4);
  EXPECT_EQ(pool.limits(3).heap_bytes, 1024);
  // At most task_window - 1 in flight: the fourth task waits for a slot.
  for (int i = 0; i < 3; ++i) Enter(pool, 0);
  EXPECT_EQ(pool.Admit(0, 0), RingResource::kTaskWindow);
  EXPECT_FALSE(pool.DepPoolFits(1, 9));
}

TEST_F(RingPoolTest, UsageStaysExactWhileTheMarksGrow) {
  // Task i takes i heap bytes and i % 3 entries; 300 tasks cross several
  // growths of the marks while the front keeps retiring.
  RingPool pool(Limits(1 << 12, 1 << 20, 1 << 12));
  std::deque<Task*> live;
  int64_t heap = 0;
  int64_t deps = 0;
  for (int i = 0; i < 300; ++i) {
    Task& t = Enter(pool, 3, i);
    pool.HoldDepEntries(t, i % 3);
    live.push_back(&t);
    heap += i;
    deps += i % 3;
    if (i % 4 == 3) {  // one of every four retires, oldest first
      heap -= live.front()->heap_bytes;
      deps -= live.front()->dep_entries;
      live.pop_front();
      pool.Reclaim(3, live.front());
    }
  }
  pool.Reclaim(3, live.front());
  EXPECT_EQ(pool.tasks_in_flight(3), static_cast<int64_t>(live.size()));
  EXPECT_EQ(live.size(), 225u);
  EXPECT_EQ(pool.heap_used(3), heap);
  EXPECT_EQ(pool.dep_used(3), deps);
  // The first 75 retired: heap 75 + ... + 299, entries 225 tasks' i % 3.
  EXPECT_EQ(heap, (75 + 299) * 225 / 2);
  EXPECT_EQ(deps, 225);
}

// ---------------------------------------------------------------------------
// Blocked time

TEST_F(RingPoolTest, BlockedTimeCountsFromBlockToUnblockOnTheBlockedRing) {
  RingPool pool(Limits(16, 4096, 64));
  EXPECT_FALSE(pool.blocked());
  pool.Block(1, 100);
  pool.Block(2, 150);  // already blocked: no-op
  EXPECT_TRUE(pool.blocked());
  EXPECT_EQ(pool.blocked_ring(), 1);
  pool.Unblock(400);
  EXPECT_FALSE(pool.blocked());
  pool.Unblock(900);  // not blocked: no-op
  pool.Block(1, 1000);
  pool.Unblock(1050);
  EXPECT_EQ(pool.stats(1).blocked, 350);
  EXPECT_EQ(pool.stats(2).blocked, 0);
}

// ---------------------------------------------------------------------------
// Deadlock classification

TEST_F(RingPoolTest, ScopeHoldingAFullWindowIsAScopeDeadlock) {
  RingPool pool(Limits(4, 4096, 64));
  for (int i = 0; i < 3; ++i) Enter(pool, 1);
  const absl::Status status =
      pool.ClassifyEntry(1, RingResource::kTaskWindow, 0, ScopeFacts{1, 3}, &tasks_[0]);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "ring 1 full (SCOPE_DEADLOCK): the scope at depth 1 holds 3 tasks, but ring 1's task "
            "window of 4 allows only 3 in flight, and none can retire before the scope ends; "
            "split the scope (e.g. a pl.range loop gives each iteration its own scope) or raise "
            "ring.task_window");
  // Two tasks of the scope: a retirement from an older scope may still
  // make room.
  EXPECT_TRUE(
      pool.ClassifyEntry(1, RingResource::kTaskWindow, 0, ScopeFacts{1, 2}, &tasks_[0]).ok());
}

// The orchestrator's sequence on a full pool: the submit that does not fit
// waits (no verdict while the holders can still retire) and takes its
// entries only once a retirement released theirs, so the peak is what was
// held at once and never more than the pool.
TEST_F(RingPoolTest, ASubmitWaitsForDepPoolSpaceAndThePeakStaysWithinThePool) {
  RingPool pool(Limits(16, 1024, 4));
  Task& first = Enter(pool, 1, 0, "first");
  ASSERT_TRUE(pool.DepPoolFits(1, 2));
  pool.HoldDepEntries(first, 2);
  Task& second = Enter(pool, 1, 0, "second");
  ASSERT_TRUE(pool.DepPoolFits(1, 2));
  pool.HoldDepEntries(second, 2);
  Task& third = Enter(pool, 1, 0, "third");
  EXPECT_FALSE(pool.DepPoolFits(1, 1));
  // A wait, not DEP_POOL_OVERFLOW: first has not completed yet.
  EXPECT_TRUE(pool.ClassifyDepWait(third, 1, &first).ok());
  // Nothing has retired: still full.
  pool.Reclaim(1, &first);
  EXPECT_FALSE(pool.DepPoolFits(1, 1));
  // first retired: its 2 entries return.
  pool.Reclaim(1, &second);
  EXPECT_EQ(pool.dep_used(1), 2);
  ASSERT_TRUE(pool.DepPoolFits(1, 2));
  pool.HoldDepEntries(third, 2);
  EXPECT_EQ(pool.dep_used(1), 4);
  EXPECT_EQ(pool.stats(1).peak_dep_entries, 4u);
  pool.Reclaim(1, nullptr);
  EXPECT_EQ(pool.dep_used(1), 0);
  EXPECT_EQ(pool.stats(1).peak_dep_entries, 4u);
}

TEST_F(RingPoolTest, CompletedOldestTaskOfAnOpenScopeIsAFlowControlDeadlock) {
  RingPool pool(Limits(4, 4096, 64));
  Task& oldest = Enter(pool, 0, 0, "producer");
  oldest.index_in_launch = 7;
  oldest.completed = true;  // scope open, no consumer pins it
  const absl::Status status =
      pool.ClassifyEntry(0, RingResource::kTaskWindow, 0, ScopeFacts{2, 1}, &oldest);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "ring 0 task window full (FLOW_CONTROL_DEADLOCK): its oldest task 'producer' (launch "
            "index 7) has completed but its scope is still open, and the orchestrator cannot "
            "close it while waiting for space; raise the ring's task window or close scopes "
            "sooner");
}

TEST_F(RingPoolTest, AWaitThatARetirementCanEndIsNoDeadlock) {
  RingPool pool(Limits(4, 4096, 64));
  Task& oldest = Enter(pool, 0);
  const ScopeFacts scope{0, 1};
  // Not completed yet: it will complete and the scope may still end.
  EXPECT_TRUE(pool.ClassifyEntry(0, RingResource::kTaskWindow, 0, scope, &oldest).ok());
  oldest.completed = true;
  oldest.retain_pins = 1;  // a consumer's release will unpin it
  EXPECT_TRUE(pool.ClassifyEntry(0, RingResource::kTaskWindow, 0, scope, &oldest).ok());
  oldest.retain_pins = 0;
  oldest.scope_released = true;  // consumed: retires at the next advance
  EXPECT_TRUE(pool.ClassifyEntry(0, RingResource::kTaskWindow, 0, scope, &oldest).ok());
  EXPECT_TRUE(pool.ClassifyEntry(0, RingResource::kHeap, 100, scope, &oldest).ok());
  EXPECT_TRUE(pool.ClassifyEntry(0, RingResource::kTaskWindow, 0, scope, nullptr).ok());
}

TEST_F(RingPoolTest, HeapBlockedByAPinnedOldestTaskIsAHeapRingDeadlock) {
  RingPool pool(Limits(16, 1024, 64));
  Task& oldest = Enter(pool, 2, 1000, "alloc");
  oldest.index_in_launch = 0;
  oldest.completed = true;
  const absl::Status status =
      pool.ClassifyEntry(2, RingResource::kHeap, 512, ScopeFacts{2, 1}, &oldest);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "ring 2 heap full (HEAP_RING_DEADLOCK): its oldest task 'alloc' (launch index 0) has "
            "completed but its scope is still open, and the orchestrator cannot close it while "
            "waiting for space; raise the ring's heap or close scopes sooner");
}

TEST_F(RingPoolTest, AnAllocLargerThanTheWholeHeapIsAHeapRingDeadlock) {
  RingPool pool(Limits(16, 1024, 64));
  const absl::Status status =
      pool.ClassifyEntry(0, RingResource::kHeap, 2048, ScopeFacts{0, 0}, nullptr);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "ring 0 heap full (HEAP_RING_DEADLOCK): an alloc of 2048 bytes can never fit ring 0's "
            "heap of 1024 bytes; raise ring.heap_bytes to at least 2048");
  EXPECT_TRUE(pool.ClassifyEntry(0, RingResource::kHeap, 1024, ScopeFacts{0, 0}, nullptr).ok());
}

TEST_F(RingPoolTest, MoreProducersThanTheWholeDepPoolIsADepPoolOverflow) {
  RingPool pool(Limits(16, 1024, 4));
  Task& consumer = Enter(pool, 0, 0, "sum");
  consumer.index_in_launch = 5;
  const absl::Status status = pool.ClassifyDepWait(consumer, 5, nullptr);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "ring 0 dep pool full (DEP_POOL_OVERFLOW): task 'sum' (launch index 5) needs 5 "
            "dep-list entries, one per live producer, but ring 0's dep pool holds only 4; raise "
            "ring.dep_pool to at least 5 or cut the task's fan-in");
  EXPECT_TRUE(pool.ClassifyDepWait(consumer, 4, nullptr).ok());
}

TEST_F(RingPoolTest, DepPoolBlockedByAPinnedOldestTaskIsADepPoolOverflow) {
  RingPool pool(Limits(16, 1024, 4));
  Task& oldest = Enter(pool, 1, 0, "first");
  pool.HoldDepEntries(oldest, 3);
  oldest.completed = true;
  Task& consumer = Enter(pool, 1, 0, "second");
  const absl::Status status = pool.ClassifyDepWait(consumer, 2, &oldest);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "ring 1 dep pool full (DEP_POOL_OVERFLOW): task 'second' (launch index 1) needs 2 "
            "dep-list entries and 3 of the pool's 4 are held; the ring's oldest task 'first' "
            "(launch index 0) has completed but its scope is still open, and the orchestrator "
            "cannot close it while waiting for space; raise ring.dep_pool or close scopes "
            "sooner");
  oldest.scope_released = true;  // retires at the next advance: wait
  EXPECT_TRUE(pool.ClassifyDepWait(consumer, 2, &oldest).ok());
}

}  // namespace
}  // namespace pto
