#ifndef PTO_MODELS_AICPU_TASK_LIFECYCLE_H_
#define PTO_MODELS_AICPU_TASK_LIFECYCLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/aicpu/aicpu_observer.h"
#include "models/aicpu/ready_queues.h"
#include "models/aicpu/runtime_signals.h"
#include "models/aicpu/task.h"
#include "models/aicpu/task_table.h"
#include "models/base/time.h"
#include "models/gm/memory_image.h"

namespace pto {

// What a completion made the completing thread do, to charge its time.
struct CompletionWork {
  size_t consumers = 0;  // fan-out walk length
  size_t doorbells = 0;  // staged consumers released
};

// The lifecycle's counters of the current launch.
struct LifecycleCounters {
  uint64_t predicated_skips = 0;  // predicate-false tasks routed to the dummy queue
  TimePs last_retire = 0;         // the latest finish of a retired task
};

// A task's way from its last satisfied dependency to its completion, as the
// runtime walks it: ready routing, completion with its fan-out, and the
// early-dispatch candidates that fully published producers make. Pure: it
// reads and updates only its environment, and tells the chip what to wake
// through RuntimeSignals. The orchestrator and the scheduler threads share
// one.
class TaskLifecycle {
 public:
  // What the lifecycle works on; everything outlives it.
  struct Env {
    TaskTable* tasks = nullptr;
    ReadyQueues* ready = nullptr;
    RuntimeSignals* signals = nullptr;
    // GM, where dispatch predicates read their element; null in a
    // timing-only run, which has no data (predicates pass).
    const MemoryImage* memory = nullptr;
    TimePs doorbell = 0;                // one early-dispatch doorbell write (aicpu.doorbell_ns)
    AicpuObserver* observer = nullptr;  // told each completion; may be null
  };

  explicit TaskLifecycle(const Env& env) : env_(env) {}

  // The runtime's ready routing (push_ready_routed / route_ready_once) for a
  // task whose last dependency is satisfied at `now`: evaluate the predicate
  // (the element's bytes sign-extended, compared with the literal); dummies
  // and predicate-false tasks go to the dummy queue; a task pre-staged by
  // early dispatch is released by doorbells, one every `doorbell` from now,
  // instead of a queue (its unstaged blocks still queue); sync_start cohorts
  // go to the sync lane; the rest to their shape's queue. Returns the
  // doorbells rung.
  size_t RouteReady(Task& task, TimePs now);

  // Completes `task` at `now` (its last subtask finished, or it was retired
  // inline), routes the consumers that became ready and retires what that
  // frees.
  CompletionWork CompleteTask(Task& task, TimePs now);

  // Every block of `producer` has been dispatched: flagged producers let
  // their consumers become early-dispatch candidates
  // (propagate_dispatch_fanin).
  void OnFullyPublished(Task& producer, TimePs now);

  // Queues `task` for early dispatch (and wakes the schedulers) if every
  // direct producer is flagged (or done) and fully published, it is
  // submitted but not ready yet, it runs on cores, and it has no predicate
  // and no sync_start.
  void MaybeQueueEarly(Task& task, TimePs now);

  // `task` left the window (the task table's retire hook calls it).
  void OnRetired(const Task& task);

  // This launch's counters; BeginLaunch resets them.
  const LifecycleCounters& counters() const { return counters_; }
  void BeginLaunch() { counters_ = LifecycleCounters{}; }

 private:
  bool PredicateAllowsDispatch(const ResolvedPredicate& predicate) const;

  Env env_;
  LifecycleCounters counters_;
  std::vector<Task*> ready_;  // reused by CompleteTask: completions allocate nothing
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_TASK_LIFECYCLE_H_
