#ifndef PTO_MODELS_AICPU_SCHEDULER_THREAD_H_
#define PTO_MODELS_AICPU_SCHEDULER_THREAD_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "models/aicpu/ready_queues.h"
#include "models/aicpu/runtime_signals.h"
#include "models/aicpu/task_lifecycle.h"
#include "models/chip_context.h"
#include "models/core/aicore.h"
#include "models/run_observer.h"
#include "systemc"

namespace pto {

class SchedulerGroup;

// One AICPU scheduler thread (runtime-semantics.md §2.7–§2.17). It owns
// whole clusters, dealt round-robin, and runs the runtime's loop over them:
// complete (poll COND of every running core, one MMIO read each, serially),
// dummies, dispatch (sync_start tier, MIX, AIC/AIV; idle cores before pending
// slots), early dispatch, and the lazy release of finished tasks. Each loop
// iteration with work is one activation that charges its phases' costs; a
// thread with nothing to do sleeps until a COND change or new work wakes
// it, so idle spinning costs no events.
class SchedulerThread : public sc_core::sc_module, public CoreOwner {
 public:
  SC_HAS_PROCESS(SchedulerThread);

  SchedulerThread(sc_core::sc_module_name name, int index, ChipContext* context,
                  RuntimeSignals* signals, SchedulerGroup* group, std::vector<AiCore*> cores);

  // Ready work appears at `visible_at` (>= now).
  void Wake(TimePs visible_at);
  void OnCondVisible(int core_id, CondValue value) override;
  // The doorbell of the gated block of `task` on `core_id` has been rung:
  // poll the core again.
  void Ungate(int core_id, TaskSeq task);

  int index() const { return index_; }
  size_t running_cores() const;
  // Idle units (cores, or whole clusters for MIX) this thread could fill,
  // counted up to `limit`.
  int IdleUnitCount(TaskShape shape, int limit = std::numeric_limits<int>::max()) const;
  uint64_t loops() const { return loops_; }
  // Per-launch counters (loop numbers in records restart at each launch).
  void BeginLaunch() {
    loops_ = 0;
    busy_ = 0;
  }
  TimePs busy() const { return busy_; }
  // The sync_start drain: stage up to `blocks` gated blocks of `task` on
  // this thread's idle units; returns the blocks staged.
  int64_t StageCohort(Task& task, int64_t blocks, TimePs now, TimePs* cost);
  // When the last of this thread's cores holding `task`'s gated blocks is
  // prepared (0 if none).
  TimePs CohortPreparedAt(const Task& task) const;
  // Rings the doorbells of this thread's cores holding `task`'s gated blocks.
  void RingCohort(Task& task, TimePs at, TimePs now);

 private:
  struct Slot {
    bool valid = false;
    TaskSeq task = kNoTask;
    uint32_t token = 0;
    bool gated = false;  // early-dispatched, waiting for its doorbell
  };
  // The runtime's per-core bookkeeping (CoreExecState).
  struct OwnedCore {
    AiCore* core;
    CoreKind kind;  // the core's, kept here: the scans below test it per core
    uint32_t next_token = 1;
    Slot running;
    Slot pending;
    bool running_acked = false;
    CondValue seen;     // last COND value this thread acted on
    CondValue visible;  // latest COND value visible to the AICPU
  };
  // A unit of placement: one core, or for MIX the three cores of a cluster.
  struct Unit {
    int members[3];
    int count;
  };

  void Step();
  TimePs Now() const;
  bool CompletePhase(TimePs now, TimePs* cost);
  bool DummyPhase(TimePs now, TimePs* cost);
  bool DispatchPhase(TimePs now, TimePs* cost);
  bool EarlyDispatchPhase(TimePs now, TimePs* cost);
  bool ReleasePhase(TimePs now, TimePs* cost);
  // Applies an observed COND value (the runtime's decide_slot_transition).
  void Observe(OwnedCore& owned, CondValue value, TimePs when, TimePs* cost, uint32_t* finished);
  void FinishSubtask(OwnedCore& owned, const Slot& slot, TimePs when, TimePs* cost);
  void ChargeCompletion(const CompletionWork& work, TimePs* cost) const;
  // Pops and places tasks of `shape` on free units; `pending` uses busy
  // cores' second slot. Returns whether anything was dispatched.
  bool DispatchShape(TaskShape shape, bool pending, TimePs now, TimePs* cost,
                     SchedulerPhase* phase);
  bool DispatchSyncTier(TimePs now, TimePs* cost, SchedulerPhase* phase);
  // Replaces `*units` with the units of `shape` that have a free slot (idle
  // phase: running slot; pending phase: a busy core's second slot).
  // Stops after `limit` units.
  void FreeUnits(TaskShape shape, bool pending, std::vector<Unit>* units,
                 size_t limit = std::numeric_limits<size_t>::max()) const;
  bool ClusterUsable(const Unit& cluster, bool pending) const;
  // Publishes one block of `task` on `unit` (running slot if a core is idle,
  // its pending slot otherwise), stamped with its batch's `dispatch_ts`.
  void Place(Task& task, const Unit& unit, int64_t block, bool gated, TimePs dispatch_ts,
             TimePs now, TimePs* cost);
  bool SlotFree(const OwnedCore& owned, bool pending) const;
  void EmitPhase(SchedulerPhaseKind kind, TimePs start, TimePs end, uint32_t processed,
                 SchedulerPhase* extra = nullptr);
  std::array<uint32_t, 3> QueueDepths() const;

  int index_;
  ChipContext* context_;
  RuntimeSignals* signals_;
  SchedulerGroup* group_;
  std::vector<OwnedCore> cores_;    // AICs first, then AIVs
  std::vector<int> local_of_core_;  // chip core id -> index in cores_, or -1
  std::vector<Unit> clusters_;      // [aic, aiv0, aiv1] local indices
  std::vector<TaskSeq> deferred_release_;
  std::vector<Unit> units_;  // reused by the dispatch phases
  std::vector<Unit> more_units_;
  bool sleeping_ = true;
  TimePs wake_at_ = kNever;
  sc_core::sc_event wake_;
  uint64_t loops_ = 0;
  TimePs busy_ = 0;
};

// The scheduler threads of one chip: what a thread needs to know about its
// peers (idle cores for pending-dispatch gating) and the sync_start drain,
// which stops every thread's dispatching until a cohort launches.
class SchedulerGroup {
 public:
  explicit SchedulerGroup(ChipContext* context) : context_(context) {}
  void Add(SchedulerThread* thread) { threads_.push_back(thread); }
  const std::vector<SchedulerThread*>& threads() const { return threads_; }

  bool PeerHasIdle(const SchedulerThread* self, TaskShape shape) const;
  int TotalIdleUnits(TaskShape shape) const;

  // The global drain for a sync_start cohort that no single thread can
  // place: at most one at a time.
  bool draining() const { return drain_task_ != kNoTask; }
  void BeginDrain(TaskSeq task) { drain_task_ = task; }
  // Called by each thread's loop while draining; the thread that finds
  // enough idle units chip-wide stages the cohort across all threads and
  // rings every doorbell at one rendezvous. Returns whether it launched.
  bool TryLaunchDrain(SchedulerThread* caller, TimePs now, TimePs* cost);

 private:
  ChipContext* context_;
  std::vector<SchedulerThread*> threads_;
  TaskSeq drain_task_ = kNoTask;
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_SCHEDULER_THREAD_H_
