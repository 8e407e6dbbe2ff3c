#include "models/aicpu/task_lifecycle.h"

#include <algorithm>

namespace pto {
namespace {

using Lane = ReadyQueues::Lane;

bool IsCoreShape(TaskShape shape) {
  return shape == TaskShape::kAic || shape == TaskShape::kAiv || shape == TaskShape::kMix;
}

}  // namespace

bool TaskLifecycle::PredicateAllowsDispatch(const ResolvedPredicate& predicate) const {
  if (!predicate.present || env_.memory == nullptr) return true;
  const uint8_t* element = env_.memory->Span(predicate.addr, DTypeSize(predicate.dtype));
  if (element == nullptr) return true;  // unreachable: the reader checked the index
  return PredicatePasses(predicate.op, LoadAsInt64(predicate.dtype, element), predicate.target);
}

size_t TaskLifecycle::RouteReady(Task& task, TimePs now) {
  task.times.ready = now;
  if (task.shape == TaskShape::kDummy) {
    env_.ready->Push(TaskShape::kDummy, task.seq, now);
    return 0;
  }
  if (!PredicateAllowsDispatch(task.predicate)) {
    task.predicated_skip = true;
    ++counters_.predicated_skips;
    env_.ready->Push(TaskShape::kDummy, task.seq, now);
    return 0;
  }
  if (task.early_state == Task::EarlyState::kStaged) {
    // Released by doorbells rung inline during the fan-out walk; the task
    // never passes through a ready queue.
    TimePs at = now;
    for (int32_t core : task.staged_cores) {
      at += env_.doorbell;
      env_.signals->RingDoorbell(core, task.seq, at);
    }
    const size_t rung = task.staged_cores.size();
    if (task.next_block < task.block_num) env_.ready->Push(task.shape, task.seq, now);
    return rung;
  }
  // A queued early candidate that became ready goes the normal way; its
  // early-queue entry is skipped when popped.
  task.early_state = Task::EarlyState::kNone;
  const Lane lane = task.sync_start && task.block_num > 1 ? Lane::kSync : Lane::kNormal;
  env_.ready->Push(task.shape, task.seq, now, lane);
  return 0;
}

CompletionWork TaskLifecycle::CompleteTask(Task& task, TimePs now) {
  task.times.finish = now;
  if (env_.observer != nullptr) env_.observer->OnTaskCompleted(task);
  ready_.clear();
  CompletionWork work;
  work.consumers = env_.tasks->Complete(task, &ready_);
  for (Task* consumer : ready_) work.doorbells += RouteReady(*consumer, now);
  env_.tasks->AdvanceWatermarks();
  return work;
}

void TaskLifecycle::MaybeQueueEarly(Task& task, TimePs now) {
  if (task.early_state != Task::EarlyState::kNone || task.early_blocked || task.early_waiting > 0 ||
      task.fanin_pending <= 0 || task.predicate.present || task.sync_start ||
      !IsCoreShape(task.shape) || task.times.submit == kNever) {
    return;
  }
  task.early_state = Task::EarlyState::kQueued;
  env_.ready->Push(task.shape, task.seq, now, Lane::kEarly);
  env_.signals->WakeSchedulers(now);
}

void TaskLifecycle::OnFullyPublished(Task& producer, TimePs now) {
  producer.fully_published = true;
  if (!producer.allow_early_resolve) return;
  for (Task* consumer : producer.consumers) {
    --consumer->early_waiting;
    MaybeQueueEarly(*consumer, now);
  }
}

void TaskLifecycle::OnRetired(const Task& task) {
  counters_.last_retire = std::max(counters_.last_retire, task.times.finish);
}

}  // namespace pto
