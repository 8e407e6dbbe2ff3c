#include "models/aicpu/scheduler_thread.h"

#include <algorithm>

#include "models/aicpu/task_lifecycle.h"

namespace pto {
namespace {

// Dummy-only completions drained per loop (the runtime's DUMMY_DRAIN_BATCH).
constexpr int kDummyDrainBatch = 8;

sc_core::sc_time Ps(TimePs ps) { return sc_core::sc_time::from_value(ps); }

}  // namespace

SchedulerThread::SchedulerThread(sc_core::sc_module_name name, int index, ChipContext* context,
                                 RuntimeSignals* signals, std::vector<AiCore*> cores)
    : sc_module(name), index_(index), context_(context), signals_(signals) {
  std::stable_sort(cores.begin(), cores.end(), [](const AiCore* a, const AiCore* b) {
    return a->core_kind() == CoreKind::kAic && b->core_kind() != CoreKind::kAic;
  });
  int max_id = 0;
  for (AiCore* core : cores) max_id = std::max(max_id, core->id());
  local_of_core_.assign(max_id + 1, -1);
  for (AiCore* core : cores) {
    local_of_core_[core->id()] = static_cast<int>(cores_.size());
    cores_.push_back(OwnedCore{core});
    core->set_owner(this);
  }
  // Clusters: each owned AIC with the two AIVs of its cluster.
  for (const OwnedCore& owned : cores_) {
    if (owned.core->core_kind() != CoreKind::kAic) continue;
    cluster_members_.push_back(local_of_core_[owned.core->id()]);
    for (const OwnedCore& other : cores_) {
      if (other.core->core_kind() == CoreKind::kAiv &&
          other.core->cluster() == owned.core->cluster()) {
        cluster_members_.push_back(local_of_core_[other.core->id()]);
      }
    }
  }
  SC_METHOD(Step);
  sensitive << wake_;
  dont_initialize();
}

TimePs SchedulerThread::Now() const { return sc_core::sc_time_stamp().value(); }

size_t SchedulerThread::running_cores() const {
  return std::count_if(cores_.begin(), cores_.end(), [](const OwnedCore& c) { return c.busy; });
}

void SchedulerThread::Wake(TimePs visible_at) {
  if (!sleeping_) return;  // a busy thread loops again and will see it
  const TimePs now = Now();
  const TimePs at = std::max(visible_at, now);
  if (wake_at_ != kNever && wake_at_ <= at) return;
  wake_at_ = at;
  wake_.notify(Ps(at - now));
}

void SchedulerThread::OnFinVisible(int core_id) {
  cores_[local_of_core_[core_id]].fin_seen = true;
  Wake(Now());
}

void SchedulerThread::Step() {
  const TimePs now = Now();
  sleeping_ = false;
  wake_at_ = kNever;
  ++loops_;
  TimePs cost = 0;
  bool progressed = CompletePhase(now, &cost);
  progressed |= DummyPhase(now, &cost);
  progressed |= DispatchPhase(now, &cost);
  if (!context_->fatal().ok()) return;
  if (progressed) {
    context_->counters().scheduler_busy += cost;
    wake_.notify(Ps(std::max<TimePs>(cost, 1)));
    return;
  }
  // Nothing to do: sleep until a FIN or new work, or until queued work that
  // is not visible yet becomes visible.
  sleeping_ = true;
  TimePs next = kNever;
  for (TaskShape shape : {TaskShape::kMix, TaskShape::kAic, TaskShape::kAiv, TaskShape::kDummy}) {
    const TimePs at = context_->ready().HeadVisibleAt(shape);
    if (at > now && (next == kNever || at < next)) next = at;
  }
  if (next != kNever) Wake(next);
}

bool SchedulerThread::CompletePhase(TimePs now, TimePs* cost) {
  const size_t running = running_cores();
  if (running == 0) return false;
  // One COND read per running core, serially.
  *cost += static_cast<TimePs>(running) * Ns(context_->config().aicpu.cond_poll_ns);
  bool progressed = false;
  for (OwnedCore& owned : cores_) {
    if (!owned.busy || !owned.fin_seen) continue;
    progressed = true;
    FinishSubtask(owned, now, cost);
    if (!context_->fatal().ok()) return true;
  }
  return progressed;
}

void SchedulerThread::FinishSubtask(OwnedCore& owned, TimePs now, TimePs* cost) {
  owned.busy = false;
  owned.fin_seen = false;
  Task* task = context_->tasks().Find(owned.task);
  owned.task = kNoTask;
  if (++task->subtasks_done < task->block_num * task->subtasks_per_block) return;
  ChargeResolve(CompleteTask(*context_, *task, now + *cost), cost);
  signals_->WakeSchedulers(now + *cost);
  signals_->WakeOrchestrator();
}

void SchedulerThread::ChargeResolve(size_t consumers, TimePs* cost) const {
  const AicpuParams& aicpu = context_->config().aicpu;
  *cost += Ns(aicpu.resolve_base_ns + aicpu.resolve_per_consumer_ns * consumers);
}

bool SchedulerThread::DummyPhase(TimePs now, TimePs* cost) {
  ReadyQueues& ready = context_->ready();
  int drained = 0;
  while (drained < kDummyDrainBatch && ready.HasVisible(TaskShape::kDummy, now + *cost)) {
    Task* task = context_->tasks().Find(ready.Pop(TaskShape::kDummy));
    *cost += Ns(context_->config().aicpu.dummy_retire_ns);
    ChargeResolve(CompleteTask(*context_, *task, now + *cost), cost);
    ++drained;
  }
  if (drained > 0) {
    signals_->WakeSchedulers(now + *cost);
    signals_->WakeOrchestrator();
  }
  return drained > 0;
}

bool SchedulerThread::DispatchPhase(TimePs now, TimePs* cost) {
  // MIX first; then AIC and AIV in an order that alternates by thread parity
  // so no core type is always served last.
  bool progressed = DispatchShape(TaskShape::kMix, now, cost);
  const TaskShape first = index_ % 2 == 0 ? TaskShape::kAic : TaskShape::kAiv;
  const TaskShape second = first == TaskShape::kAic ? TaskShape::kAiv : TaskShape::kAic;
  progressed |= DispatchShape(first, now, cost);
  progressed |= DispatchShape(second, now, cost);
  return progressed;
}

std::vector<int> SchedulerThread::IdleUnits(TaskShape shape) const {
  std::vector<int> units;
  if (shape == TaskShape::kMix) {
    for (size_t i = 0; i < cluster_members_.size(); i += 3) {
      if (!cores_[cluster_members_[i]].busy && !cores_[cluster_members_[i + 1]].busy &&
          !cores_[cluster_members_[i + 2]].busy) {
        units.push_back(static_cast<int>(i));
      }
    }
    return units;
  }
  const CoreKind kind = shape == TaskShape::kAic ? CoreKind::kAic : CoreKind::kAiv;
  for (size_t i = 0; i < cores_.size(); ++i) {
    if (!cores_[i].busy && cores_[i].core->core_kind() == kind)
      units.push_back(static_cast<int>(i));
  }
  return units;
}

bool SchedulerThread::DispatchShape(TaskShape shape, TimePs now, TimePs* cost) {
  ReadyQueues& ready = context_->ready();
  if (!ready.HasVisible(shape, now + *cost)) return false;
  std::vector<int> units = IdleUnits(shape);
  size_t next_unit = 0;
  bool progressed = false;
  const TimePs publish = Ns(context_->config().aicpu.dispatch_publish_ns);
  LaunchCounters& counters = context_->counters();
  while (next_unit < units.size() && ready.HasVisible(shape, now + *cost)) {
    Task* task = context_->tasks().Find(ready.Pop(shape));
    ++counters.task_dispatches;
    progressed = true;
    while (next_unit < units.size() && task->next_block < task->block_num) {
      const int64_t block = task->next_block++;
      ++counters.block_dispatches;
      const int unit = units[next_unit++];
      // The cluster's cores (MIX) or the single core of this unit.
      const int members = shape == TaskShape::kMix ? 3 : 1;
      for (int m = 0; m < members; ++m) {
        OwnedCore& owned = cores_[shape == TaskShape::kMix ? cluster_members_[unit + m] : unit];
        *cost += publish;
        BlockWork work;
        work.task = task->seq;
        work.block = block;
        work.block_num = task->block_num;
        work.kernel = task->kernel;
        work.subblock = shape == TaskShape::kMix ? std::max(0, m - 1) : 0;
        work.executes_data = m == 0;
        work.dispatch = now + *cost;
        if (task->times.first_dispatch == kNever) task->times.first_dispatch = work.dispatch;
        if (task->first_core < 0) task->first_core = owned.core->id();
        owned.busy = true;
        owned.fin_seen = false;
        owned.task = task->seq;
        owned.core->Dispatch(work, Ps(*cost));
      }
    }
    // Blocks left over go back to the front so other threads fill their
    // cores in parallel.
    if (task->next_block < task->block_num) ready.PushFront(shape, task->seq, now + *cost);
  }
  if (progressed) signals_->WakeSchedulers(now + *cost);
  return progressed;
}

}  // namespace pto
