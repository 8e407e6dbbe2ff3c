#include "models/aicpu/task_lifecycle.h"

#include "models/aicpu/ready_queues.h"
#include "models/chip_context.h"

namespace pto {
namespace {

using Lane = ReadyQueues::Lane;

bool PredicateAllowsDispatch(ChipContext& context, const ResolvedPredicate& predicate) {
  if (!predicate.present || !context.functional()) return true;
  const uint8_t* element = context.memory().Span(predicate.addr, DTypeSize(predicate.dtype));
  if (element == nullptr) return true;  // unreachable: the reader checked the index
  return PredicatePasses(predicate.op, LoadAsInt64(predicate.dtype, element), predicate.target);
}

bool IsCoreShape(TaskShape shape) {
  return shape == TaskShape::kAic || shape == TaskShape::kAiv || shape == TaskShape::kMix;
}

}  // namespace

size_t RouteReady(ChipContext& context, Task& task, TimePs now) {
  task.times.ready = now;
  if (task.shape == TaskShape::kDummy) {
    context.ready().Push(TaskShape::kDummy, task.seq, now);
    return 0;
  }
  if (!PredicateAllowsDispatch(context, task.predicate)) {
    task.predicated_skip = true;
    ++context.lifecycle_counters().predicated_skips;
    context.ready().Push(TaskShape::kDummy, task.seq, now);
    return 0;
  }
  if (task.early_state == Task::EarlyState::kStaged) {
    // Released by doorbells rung inline during the fan-out walk; the task
    // never passes through a ready queue.
    const TimePs doorbell = Ns(context.config().aicpu.doorbell_ns);
    TimePs at = now;
    for (int32_t core : task.staged_cores) {
      at += doorbell;
      context.signals().RingDoorbell(core, task.seq, at);
    }
    const size_t rung = task.staged_cores.size();
    if (task.next_block < task.block_num) context.ready().Push(task.shape, task.seq, now);
    return rung;
  }
  // A queued early candidate that became ready goes the normal way; its
  // early-queue entry is skipped when popped.
  task.early_state = Task::EarlyState::kNone;
  const Lane lane = task.sync_start && task.block_num > 1 ? Lane::kSync : Lane::kNormal;
  context.ready().Push(task.shape, task.seq, now, lane);
  return 0;
}

CompletionWork CompleteTask(ChipContext& context, Task& task, TimePs now) {
  task.times.finish = now;
  std::vector<TaskSeq>& ready = context.ready_scratch();
  ready.clear();
  CompletionWork work;
  work.consumers = context.tasks().Complete(task, &ready);
  for (TaskSeq seq : ready) work.doorbells += RouteReady(context, *context.tasks().Find(seq), now);
  context.tasks().AdvanceWatermarks();
  return work;
}

void MaybeQueueEarly(ChipContext& context, Task& task, TimePs now) {
  if (task.early_state != Task::EarlyState::kNone || task.early_blocked || task.early_waiting > 0 ||
      task.fanin_pending <= 0 || task.predicate.present || task.sync_start ||
      !IsCoreShape(task.shape) || task.times.submit == kNever) {
    return;
  }
  task.early_state = Task::EarlyState::kQueued;
  context.ready().Push(task.shape, task.seq, now, Lane::kEarly);
  context.signals().WakeSchedulers(now);
}

void OnFullyPublished(ChipContext& context, Task& producer, TimePs now) {
  producer.fully_published = true;
  if (!producer.allow_early_resolve) return;
  for (TaskSeq seq : producer.consumers) {
    Task* consumer = context.tasks().Find(seq);
    if (consumer == nullptr) continue;
    --consumer->early_waiting;
    MaybeQueueEarly(context, *consumer, now);
  }
}

}  // namespace pto
