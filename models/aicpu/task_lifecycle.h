#ifndef PTO_MODELS_AICPU_TASK_LIFECYCLE_H_
#define PTO_MODELS_AICPU_TASK_LIFECYCLE_H_

#include <cstddef>

#include "models/aicpu/task.h"

namespace pto {

class ChipContext;

// The lifecycle's counters of the current launch.
struct LifecycleCounters {
  uint64_t predicated_skips = 0;  // predicate-false tasks routed to the dummy queue
  TimePs last_retire = 0;         // the latest finish of a retired task
};

// What a completion made the completing thread do, to charge its time.
struct CompletionWork {
  size_t consumers = 0;  // fan-out walk length
  size_t doorbells = 0;  // staged consumers released
};

// The runtime's ready routing (push_ready_routed / route_ready_once) for a
// task whose last dependency is satisfied at `now`: evaluate the predicate
// (the element's bytes sign-extended, compared with the literal); dummies and
// predicate-false tasks go to the dummy queue; a task pre-staged by early
// dispatch is released by doorbells instead of a queue (its unstaged blocks
// still queue); sync_start cohorts go to the sync lane; the rest to their
// shape's queue. In a timing-only run there is no data, so predicates pass.
// Returns the doorbells rung.
size_t RouteReady(ChipContext& context, Task& task, TimePs now);

// Completes `task` at `now` (its last subtask finished, or it was retired
// inline) and routes the consumers that became ready.
CompletionWork CompleteTask(ChipContext& context, Task& task, TimePs now);

// Every block of `producer` has been dispatched: flagged producers let their
// consumers become early-dispatch candidates (propagate_dispatch_fanin).
void OnFullyPublished(ChipContext& context, Task& producer, TimePs now);

// Queues `task` for early dispatch if every direct producer is flagged (or
// done) and fully published, it is not ready yet, and it has no predicate.
void MaybeQueueEarly(ChipContext& context, Task& task, TimePs now);

}  // namespace pto

#endif  // PTO_MODELS_AICPU_TASK_LIFECYCLE_H_
