#ifndef PTO_MODELS_AICPU_SCHEDULER_THREAD_H_
#define PTO_MODELS_AICPU_SCHEDULER_THREAD_H_

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "models/aicpu/aicpu_observer.h"
#include "models/aicpu/core_slots.h"
#include "models/aicpu/dispatch_planner.h"
#include "models/aicpu/ready_queues.h"
#include "models/aicpu/runtime_signals.h"
#include "models/aicpu/task_lifecycle.h"
#include "models/aicpu/task_table.h"
#include "models/base/calendar.h"
#include "models/base/chip_config.h"
#include "models/base/run_failure.h"
#include "models/core/aicore.h"

namespace pto {

class SchedulerGroup;

// A scheduler thread's counters of the current launch; its group sums them.
struct SchedulerCounters {
  // Loop iterations that did work; also the loop number of phase records
  // (it restarts at each launch, as the runtime's does).
  uint64_t loops = 0;
  TimePs busy = 0;                // those iterations' time
  uint64_t task_dispatches = 0;   // tasks popped from the ready queues
  uint64_t block_dispatches = 0;  // blocks launched on a core or cluster
  uint64_t early_blocks = 0;      // blocks pre-staged by early dispatch
  uint64_t inline_retires = 0;    // dummies and predicate-false tasks
  uint64_t pop_hit = 0;
  uint64_t pop_miss = 0;
  SchedulerCounters& operator+=(const SchedulerCounters& other);
};

// What a scheduler thread is wired to besides its cores; everything outlives
// it.
struct SchedulerEnv {
  Calendar* calendar = nullptr;        // keeps the thread's time
  const AicpuParams* aicpu = nullptr;  // the loop's and the dispatch's costs
  int64_t dispatch_slots = 2;          // core.dispatch_slots: >= 2 latches a pending block
  TaskTable* tasks = nullptr;
  ReadyQueues* ready = nullptr;
  TaskLifecycle* lifecycle = nullptr;
  RuntimeSignals* signals = nullptr;
  AicpuObserver* observer = nullptr;
  RunFailure* failure = nullptr;
};

// What a scheduler thread needs of a core it owns: its identity, its
// dispatch register and doorbell, and the records of its blocks. An AiCore
// (through AiCoreLink) or a module test's fake.
class ScheduledCore {
 public:
  virtual ~ScheduledCore() = default;
  virtual int id() const = 0;
  virtual CoreKind core_kind() const = 0;
  virtual int cluster() const = 0;
  // The core reports its COND values to `owner`.
  virtual void set_owner(CoreOwner* owner) = 0;
  virtual void Dispatch(const BlockWork& work, TimePs publish_delay) = 0;
  virtual void RingDoorbell(TaskSeq task, TimePs delay) = 0;
  virtual TimePs gated_prepared_at() const = 0;
  virtual const CoreInterval* IntervalOf(uint32_t token) const = 0;
};

// A ScheduledCore that is an AiCore.
class AiCoreLink final : public ScheduledCore {
 public:
  explicit AiCoreLink(AiCore* core) : core_(core) {}
  int id() const override { return core_->id(); }
  CoreKind core_kind() const override { return core_->core_kind(); }
  int cluster() const override { return core_->cluster(); }
  void set_owner(CoreOwner* owner) override { core_->set_owner(owner); }
  void Dispatch(const BlockWork& work, TimePs publish_delay) override {
    core_->Dispatch(work, publish_delay);
  }
  void RingDoorbell(TaskSeq task, TimePs delay) override { core_->RingDoorbell(task, delay); }
  TimePs gated_prepared_at() const override { return core_->gated_prepared_at(); }
  const CoreInterval* IntervalOf(uint32_t token) const override { return core_->IntervalOf(token); }

 private:
  AiCore* core_;
};

// One AICPU scheduler thread (hw-native-sys/simpler@6ebaf771
// src/a2a3/runtime/tensormap_and_ringbuffer/runtime/scheduler/scheduler_dispatch.cpp,
// scheduler_completion.cpp, scheduler_cold_path.cpp). It owns
// whole clusters, dealt round-robin, and runs the runtime's loop over them:
// complete (poll COND of every running core, one MMIO read each, serially),
// dummies, dispatch, early dispatch, and the lazy release of finished tasks.
// The decisions are CoreSlots' (what a COND value means, which slots are
// free) and DispatchPlanner's (what goes where); this module applies them:
// it dispatches to the cores, completes tasks, writes records and charges
// time. Each loop iteration with work is one calendar wake that charges its
// phases' costs; a thread with nothing to do sleeps until a COND change or
// new work wakes it, so idle spinning costs no events.
class SchedulerThread : public CoreOwner, public DispatchSink, private Calendar::Client {
 public:
  SchedulerThread(absl::string_view name, int index, const SchedulerEnv& env, SchedulerGroup* group,
                  std::vector<AiCore*> cores);
  // The same over cores the caller owns and keeps alive (a module test's fakes).
  SchedulerThread(absl::string_view name, int index, const SchedulerEnv& env, SchedulerGroup* group,
                  std::vector<ScheduledCore*> cores);

  // Ready work appears at `visible_at` (>= now).
  void Wake(TimePs visible_at);
  void OnCondWritten(int core_id, CondValue value, TimePs visible_at) override;
  // The doorbell of the gated block of `task` on `core_id` has been rung:
  // poll the core again.
  void Ungate(int core_id, TaskSeq task);

  int index() const { return index_; }
  const CoreSlots& slots() const { return slots_; }
  size_t running_cores() const { return slots_.running_cores(); }
  // This launch's counters; the group's BeginLaunch resets them.
  const SchedulerCounters& counters() const { return counters_; }
  void BeginLaunch() { counters_ = SchedulerCounters{}; }
  // The sync_start drain: stage up to `blocks` gated blocks of `task` on
  // this thread's idle units; returns the blocks staged.
  int64_t StageCohort(Task& task, int64_t blocks, TimePs now, TimePs* cost);
  // When the last of this thread's cores holding `task`'s gated blocks is
  // prepared (0 if none).
  TimePs CohortPreparedAt(const Task& task) const;
  // Rings the doorbells of this thread's cores holding `task`'s gated blocks.
  void RingCohort(Task& task, TimePs at, TimePs now);

 private:
  // The cores to schedule, and the links this thread owns among them.
  struct Cores {
    std::vector<ScheduledCore*> cores;
    std::vector<std::unique_ptr<ScheduledCore>> owned;
  };
  static Cores LinksTo(const std::vector<AiCore*>& cores);
  SchedulerThread(absl::string_view name, int index, const SchedulerEnv& env, SchedulerGroup* group,
                  Cores cores);

  // DispatchSink: the planner's decisions, applied as it makes them.
  void Place(const Placement& placement) override;
  void Requeued(const Task& task, TimePs at) override;
  void FullyPublished(Task& task, TimePs at) override;
  void DrainNeeded(Task& task, TimePs at) override;

  // Calendar::Client: one loop iteration.
  void OnWake(TimePs now) override;
  TimePs Now() const { return calendar_.now(); }
  bool CompletePhase(TimePs now, TimePs* cost);
  bool DummyPhase(TimePs now, TimePs* cost);
  bool DispatchPhase(TimePs now, TimePs* cost);
  bool EarlyDispatchPhase(TimePs now, TimePs* cost);
  bool ReleasePhase(TimePs now, TimePs* cost);
  void FinishSubtask(int local, const DispatchSlot& slot, TimePs when, TimePs* cost);
  void ChargeCompletion(const CompletionWork& work, TimePs* cost) const;
  void CountDispatches(const DispatchTally& tally);
  // Makes the COND values written by `now` visible to the poll, in the order
  // they became visible.
  void RevealConds(TimePs now);
  void EmitPhase(SchedulerPhaseKind kind, TimePs start, TimePs end, uint32_t processed,
                 SchedulerPhase* extra = nullptr);
  std::array<uint32_t, 3> QueueDepths() const;

  Calendar& calendar_;
  Calendar::ClientId wake_;
  int index_;
  const AicpuParams& aicpu_;
  TaskTable& tasks_;
  ReadyQueues& ready_;
  TaskLifecycle& lifecycle_;
  RuntimeSignals& signals_;
  AicpuObserver& observer_;
  RunFailure& failure_;
  SchedulerGroup* group_;
  std::vector<std::unique_ptr<ScheduledCore>> owned_cores_;
  CoreSlots slots_;
  std::vector<ScheduledCore*> cores_;  // by CoreSlots' local index
  DispatchPlanner planner_;
  std::vector<TaskSeq> deferred_release_;
  // COND values written but not yet visible, in the order written (a core's
  // values become visible in that order), and the earliest visible time
  // among them. A few per core at most.
  struct WrittenCond {
    TimePs visible_at;
    int local;
    CondReading value;
  };
  std::vector<WrittenCond> written_;
  TimePs earliest_written_ = kNever;
  bool sleeping_ = true;
  SchedulerCounters counters_;
};

// The scheduler threads of one chip: what a thread needs to know about its
// peers (idle cores for pending-dispatch gating) and the sync_start drain,
// which stops every thread's dispatching until a cohort launches.
class SchedulerGroup {
 public:
  // Both outlive the group.
  SchedulerGroup(TaskTable* tasks, TaskLifecycle* lifecycle)
      : tasks_(tasks), lifecycle_(lifecycle) {}
  void Add(SchedulerThread* thread) {
    threads_.push_back(thread);
    slots_.push_back(&thread->slots());
  }
  const std::vector<SchedulerThread*>& threads() const { return threads_; }
  // Every thread's slots, in thread order: what a thread may know of its peers.
  absl::Span<const CoreSlots* const> slots() const { return slots_; }

  int TotalIdleUnits(TaskShape shape) const;

  // A launch begins: resets every thread's counters and the group's.
  void BeginLaunch();
  // This launch's counters summed over the threads, and the cohorts the
  // global drain launched.
  SchedulerCounters Totals() const;
  uint64_t sync_drains() const { return sync_drains_; }

  // The global drain for a sync_start cohort that no single thread can
  // place: at most one at a time.
  bool draining() const { return drain_task_ != kNoTask; }
  void BeginDrain(TaskSeq task) { drain_task_ = task; }
  // Called by each thread's loop while draining; the thread that finds
  // enough idle units chip-wide stages the cohort across all threads and
  // rings every doorbell at one rendezvous. Returns whether it launched.
  bool TryLaunchDrain(SchedulerThread* caller, TimePs now, TimePs* cost);

 private:
  TaskTable* tasks_;
  TaskLifecycle* lifecycle_;
  std::vector<SchedulerThread*> threads_;
  std::vector<const CoreSlots*> slots_;
  TaskSeq drain_task_ = kNoTask;
  uint64_t sync_drains_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_SCHEDULER_THREAD_H_
