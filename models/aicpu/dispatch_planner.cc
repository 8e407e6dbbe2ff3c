#include "models/aicpu/dispatch_planner.h"

#include <limits>

namespace pto {
namespace {

using Lane = ReadyQueues::Lane;

constexpr size_t kAllUnits = std::numeric_limits<size_t>::max();
constexpr int64_t kAllBlocks = std::numeric_limits<int64_t>::max();

}  // namespace

bool PeerHasIdle(absl::Span<const CoreSlots* const> threads, const CoreSlots* self,
                 TaskShape shape) {
  for (const CoreSlots* thread : threads) {
    if (thread != self && thread->HasIdleUnit(shape)) return true;
  }
  return false;
}

DispatchPlanner::DispatchPlanner(int thread_index, DispatchCosts costs, CoreSlots* slots,
                                 ReadyQueues* ready, TaskTable* tasks)
    : first_(thread_index % 2 == 0 ? TaskShape::kAic : TaskShape::kAiv),
      second_(first_ == TaskShape::kAic ? TaskShape::kAiv : TaskShape::kAic),
      costs_(costs),
      slots_(slots),
      ready_(ready),
      tasks_(tasks) {}

void DispatchPlanner::CollectUnits(TaskShape shape, bool pending, size_t limit) {
  units_.clear();
  slots_->AppendFreeUnits(shape, pending, limit, &units_);
}

int64_t DispatchPlanner::PlaceBlocks(Task& task, size_t* next_unit, int64_t max_blocks, bool gated,
                                     TimePs dispatch_ts, TimePs* cost, DispatchSink* sink,
                                     uint32_t* subtasks) {
  Placement placement;
  placement.task = &task;
  placement.gated = gated;
  placement.dispatch_ts = dispatch_ts;
  int64_t placed = 0;
  while (*next_unit < units_.size() && task.next_block < task.block_num && placed < max_blocks) {
    const CoreSlots::Unit& unit = units_[(*next_unit)++];
    placement.block = task.next_block++;
    for (int m = 0; m < unit.count; ++m) {
      placement.local = unit.members[m];
      placement.member = m;
      placement.pending_slot = slots_->running(placement.local).valid;
      placement.token = slots_->Publish(placement.local, task.seq, gated);
      *cost += costs_.publish;  // each subtask's publish is serial
      placement.publish_delay = *cost;
      sink->Place(placement);
    }
    ++placed;
    if (subtasks != nullptr) *subtasks += unit.count;
  }
  return placed;
}

void DispatchPlanner::DispatchShape(TaskShape shape, bool pending, TimePs now, TimePs* cost,
                                    DispatchSink* sink, DispatchTally* tally) {
  // With no task to pop, one free unit is enough to tell a miss.
  const bool visible = ready_->HasVisible(shape, now + *cost);
  CollectUnits(shape, pending, visible ? kAllUnits : 1);
  if (units_.empty()) return;
  if (!visible) {
    ++tally->pop_miss;
    return;
  }
  // Tasks popped in one batch share one write barrier and one dispatch
  // timestamp (batched publish), so a core's head overhead grows with its
  // position in the publish loop.
  const TimePs dispatch_ts = now + *cost;
  *cost += costs_.wmb;
  size_t next_unit = 0;
  while (next_unit < units_.size() && ready_->HasVisible(shape, now + *cost)) {
    Task* task = tasks_->Find(ready_->Pop(shape));
    tally->progressed = true;
    ++tally->pop_hit;
    ++tally->task_dispatches;
    tally->block_dispatches += static_cast<uint32_t>(PlaceBlocks(
        *task, &next_unit, kAllBlocks, /*gated=*/false, dispatch_ts, cost, sink, &tally->subtasks));
    if (task->next_block < task->block_num) {
      // The rest goes back to the front so other threads fill their cores.
      ready_->PushFront(shape, task->seq, now + *cost);
      sink->Requeued(*task, now + *cost);
    } else {
      sink->FullyPublished(*task, now + *cost);
    }
  }
}

bool DispatchPlanner::DispatchSyncTier(TimePs now, TimePs* cost, DispatchSink* sink,
                                       DispatchTally* tally) {
  for (TaskShape shape : {TaskShape::kMix, TaskShape::kAic, TaskShape::kAiv}) {
    while (ready_->HasVisible(shape, now + *cost, Lane::kSync)) {
      Task* task = tasks_->Find(ready_->Pop(shape, Lane::kSync));
      tally->progressed = true;
      ++tally->pop_hit;
      ++tally->task_dispatches;
      CollectUnits(shape, /*pending=*/false, kAllUnits);
      if (static_cast<int64_t>(units_.size()) < task->block_num) {
        // No single thread can hold the cohort: stop the world.
        sink->DrainNeeded(*task, now + *cost);
        return false;
      }
      const TimePs dispatch_ts = now + *cost;  // a sync_start task is flushed alone
      *cost += costs_.wmb;
      size_t next_unit = 0;
      // All or nothing: a cohort's blocks start together, so they are not
      // recorded as the phase's processed tasks.
      tally->block_dispatches += static_cast<uint32_t>(PlaceBlocks(
          *task, &next_unit, task->block_num, /*gated=*/false, dispatch_ts, cost, sink, nullptr));
      sink->FullyPublished(*task, now + *cost);
    }
  }
  return true;
}

DispatchTally DispatchPlanner::Dispatch(TimePs now, TimePs* cost,
                                        absl::Span<const CoreSlots* const> threads,
                                        DispatchSink* sink) {
  DispatchTally tally;
  if (!DispatchSyncTier(now, cost, sink, &tally)) return tally;
  // MIX first and strictly: AIC/AIV wait while MIX work is left.
  for (bool pending : {false, true}) {
    if (pending && !costs_.two_slots) break;
    // A busy core's second slot is used only when no other thread has an
    // idle unit that could take the task now.
    if (!pending || !PeerHasIdle(threads, slots_, TaskShape::kMix)) {
      DispatchShape(TaskShape::kMix, pending, now, cost, sink, &tally);
    }
    if (ready_->HasVisible(TaskShape::kMix, now + *cost)) continue;
    for (TaskShape shape : {first_, second_}) {
      if (pending && PeerHasIdle(threads, slots_, shape)) continue;
      DispatchShape(shape, pending, now, cost, sink, &tally);
    }
  }
  return tally;
}

DispatchTally DispatchPlanner::DispatchEarly(TimePs now, TimePs* cost, DispatchSink* sink) {
  DispatchTally tally;
  if (!ready_->AllCoreQueuesEmpty()) return tally;  // normal work outranks early work
  for (TaskShape shape : {TaskShape::kMix, TaskShape::kAic, TaskShape::kAiv}) {
    while (ready_->HasVisible(shape, now + *cost, Lane::kEarly)) {
      CollectUnits(shape, /*pending=*/false, kAllUnits);
      if (costs_.two_slots) slots_->AppendFreeUnits(shape, /*pending=*/true, kAllUnits, &units_);
      if (units_.empty()) break;
      Task* task = tasks_->Find(ready_->Pop(shape, Lane::kEarly));
      tally.progressed = true;
      if (task == nullptr || task->early_state != Task::EarlyState::kQueued ||
          task->fanin_pending == 0) {
        continue;  // became ready meanwhile: it went through a normal queue
      }
      task->early_state = Task::EarlyState::kStaged;
      const TimePs dispatch_ts = now + *cost;
      *cost += costs_.wmb;
      size_t next_unit = 0;
      const uint32_t blocks = static_cast<uint32_t>(PlaceBlocks(
          *task, &next_unit, kAllBlocks, /*gated=*/true, dispatch_ts, cost, sink, &tally.subtasks));
      tally.block_dispatches += blocks;
      tally.early_blocks += blocks;
      ++tally.task_dispatches;
      // A staged producer's own early consumers may be queued (and taken
      // in this phase).
      if (task->next_block == task->block_num) sink->FullyPublished(*task, now + *cost);
    }
  }
  return tally;
}

int64_t DispatchPlanner::StageCohort(Task& task, int64_t blocks, TimePs now, TimePs* cost,
                                     DispatchSink* sink) {
  CollectUnits(task.shape, /*pending=*/false, kAllUnits);
  size_t next_unit = 0;
  return PlaceBlocks(task, &next_unit, blocks, /*gated=*/true, now + *cost, cost, sink, nullptr);
}

}  // namespace pto
