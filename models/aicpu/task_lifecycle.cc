#include "models/aicpu/task_lifecycle.h"

#include "models/aicpu/ready_queues.h"

namespace pto {
namespace {

bool PredicateAllowsDispatch(ChipContext& context, const ResolvedPredicate& predicate) {
  if (!predicate.present || !context.functional()) return true;
  const uint8_t* element = context.memory().Span(predicate.addr, DTypeSize(predicate.dtype));
  if (element == nullptr) return true;  // unreachable: the reader checked the index
  return PredicatePasses(predicate.op, LoadAsInt64(predicate.dtype, element), predicate.target);
}

}  // namespace

void RouteReady(ChipContext& context, Task& task, TimePs now) {
  task.times.ready = now;
  if (task.shape == TaskShape::kDummy) {
    context.ready().Push(TaskShape::kDummy, task.seq, now);
    return;
  }
  if (!PredicateAllowsDispatch(context, task.predicate)) {
    task.predicated_skip = true;
    ++context.counters().predicated_skips;
    context.ready().Push(TaskShape::kDummy, task.seq, now);
    return;
  }
  context.ready().Push(task.shape, task.seq, now);
}

size_t CompleteTask(ChipContext& context, Task& task, TimePs now) {
  task.times.finish = now;
  std::vector<TaskSeq>& ready = context.ready_scratch();
  ready.clear();
  const size_t consumers = context.tasks().Complete(task, &ready);
  for (TaskSeq seq : ready) RouteReady(context, *context.tasks().Find(seq), now);
  context.tasks().AdvanceWatermark();
  return consumers;
}

}  // namespace pto
