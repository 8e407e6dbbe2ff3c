#ifndef PTO_MODELS_AICPU_DISPATCH_PLANNER_H_
#define PTO_MODELS_AICPU_DISPATCH_PLANNER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "models/aicpu/core_slots.h"
#include "models/aicpu/ready_queues.h"
#include "models/aicpu/task.h"
#include "models/aicpu/task_table.h"

namespace pto {

// One subtask placed on one core: what the thread publishes to it.
struct Placement {
  Task* task = nullptr;
  int local = -1;  // the core, as CoreSlots indexes it
  int64_t block = 0;
  int member = 0;  // within its unit: 0 = a MIX cluster's AIC, 1-2 its AIVs
  uint32_t token = 0;
  bool gated = false;
  bool pending_slot = false;  // latched behind the core's running block
  TimePs dispatch_ts = 0;     // shared by every block of the batch
  TimePs publish_delay = 0;   // the thread's cost so far, this publish included
};

// Carries out a plan while the planner makes it: a later decision may depend
// on an earlier one's effect (a fully published producer may queue its
// consumers for early dispatch), so each step is applied when it is decided.
class DispatchSink {
 public:
  virtual ~DispatchSink() = default;
  virtual void Place(const Placement& placement) = 0;
  // `task`'s unplaced blocks went back to the front of its queue, visible at
  // `at`: other threads may take them.
  virtual void Requeued(const Task& task, TimePs at) = 0;
  // Every block of `task` has been dispatched, at `at`.
  virtual void FullyPublished(Task& task, TimePs at) = 0;
  // sync_start `task` needs more idle units than this thread has: every
  // thread must stop dispatching until the global drain launches it.
  virtual void DrainNeeded(Task& task, TimePs at) = 0;
};

// The config's dispatch costs, in picoseconds.
struct DispatchCosts {
  TimePs wmb = 0;         // the write barrier shared by one pop batch
  TimePs publish = 0;     // one subtask's payload and register write
  bool two_slots = true;  // cores latch a pending block (core.dispatch_slots >= 2)
};

// What a dispatch phase did: for its phase record and the launch counters.
struct DispatchTally {
  bool progressed = false;  // something was popped
  uint32_t pop_hit = 0;     // tasks popped from normal and sync lanes
  uint32_t pop_miss = 0;    // a free unit found no visible task
  uint32_t subtasks = 0;    // recorded as the phase's tasks_processed
  uint32_t task_dispatches = 0;
  uint32_t block_dispatches = 0;
  uint32_t early_blocks = 0;  // blocks staged by early dispatch
};

// A scheduler thread's dispatch order (the runtime's dispatch phases):
// which ready task's blocks go to which of the thread's units, in which slot,
// gated or not, and what publishing them costs. It pops the shared ready
// queues and fills `slots`; the sink does what the placements mean.
class DispatchPlanner {
 public:
  // `thread_index` picks the AIC/AIV order (by parity, so neither type is
  // always served last). The pointers must outlive the planner.
  DispatchPlanner(int thread_index, DispatchCosts costs, CoreSlots* slots, ReadyQueues* ready,
                  TaskTable* tasks);

  // The dispatch phase at `now`, with `*cost` spent so far in this loop (it
  // grows by what publishing costs; queue heads must be visible by
  // now + cost). First the sync_start tier: MIX, AIC, AIV cohorts, each
  // all-or-nothing on idle units, or the drain. Then MIX before AIC/AIV, onto
  // idle units and, with two slots, busy cores' pending slots; a shape's
  // pending slots are used only while no other thread of `threads` (which may
  // include this one's slots) has an idle unit of that shape.
  DispatchTally Dispatch(TimePs now, TimePs* cost, absl::Span<const CoreSlots* const> threads,
                         DispatchSink* sink);
  // Early dispatch, when the normal and sync lanes are empty: stages queued
  // early candidates (consumers of allow_early_resolve producers) as gated
  // blocks on idle units, then pending slots.
  DispatchTally DispatchEarly(TimePs now, TimePs* cost, DispatchSink* sink);
  // The drain's share of this thread: up to `blocks` gated blocks of `task`
  // on idle units, one dispatch timestamp, no barrier. Returns the blocks.
  int64_t StageCohort(Task& task, int64_t blocks, TimePs now, TimePs* cost, DispatchSink* sink);

 private:
  // Pops tasks of `shape` onto this thread's free units in one batch.
  void DispatchShape(TaskShape shape, bool pending, TimePs now, TimePs* cost, DispatchSink* sink,
                     DispatchTally* tally);
  // Returns false once a cohort needs the drain.
  bool DispatchSyncTier(TimePs now, TimePs* cost, DispatchSink* sink, DispatchTally* tally);
  // The one placement loop: `task`'s next blocks, in order, onto
  // units_[*next_unit...], until units, blocks or `max_blocks` run out.
  // Returns the blocks placed and adds their subtasks to `*subtasks`.
  int64_t PlaceBlocks(Task& task, size_t* next_unit, int64_t max_blocks, bool gated,
                      TimePs dispatch_ts, TimePs* cost, DispatchSink* sink, uint32_t* subtasks);
  // Replaces units_ with the units of `shape` with a free slot.
  void CollectUnits(TaskShape shape, bool pending, size_t limit);

  TaskShape first_;  // of AIC and AIV
  TaskShape second_;
  DispatchCosts costs_;
  CoreSlots* slots_;
  ReadyQueues* ready_;
  TaskTable* tasks_;
  std::vector<CoreSlots::Unit> units_;  // reused: no allocation per loop
};

// Whether a thread of `threads` other than `self` has an idle unit of `shape`.
bool PeerHasIdle(absl::Span<const CoreSlots* const> threads, const CoreSlots* self,
                 TaskShape shape);

}  // namespace pto

#endif  // PTO_MODELS_AICPU_DISPATCH_PLANNER_H_
