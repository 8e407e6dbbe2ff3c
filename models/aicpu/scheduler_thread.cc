#include "models/aicpu/scheduler_thread.h"

#include <algorithm>

namespace pto {
namespace {

using Lane = ReadyQueues::Lane;

// Dummy-only completions drained per loop (the runtime's DUMMY_DRAIN_BATCH).
constexpr int kDummyDrainBatch = 8;
// Deferred releases flushed even on a busy loop (PTO2_DEFERRED_RELEASE_CAP).
constexpr size_t kDeferredReleaseCap = 256;

sc_core::sc_time Ps(TimePs ps) { return sc_core::sc_time::from_value(ps); }

CoreKind KindOf(TaskShape shape) {
  return shape == TaskShape::kAic ? CoreKind::kAic : CoreKind::kAiv;
}

}  // namespace

SchedulerThread::SchedulerThread(sc_core::sc_module_name name, int index, ChipContext* context,
                                 RuntimeSignals* signals, SchedulerGroup* group,
                                 std::vector<AiCore*> cores)
    : sc_module(name), index_(index), context_(context), signals_(signals), group_(group) {
  std::stable_sort(cores.begin(), cores.end(), [](const AiCore* a, const AiCore* b) {
    return a->core_kind() == CoreKind::kAic && b->core_kind() != CoreKind::kAic;
  });
  int max_id = 0;
  for (AiCore* core : cores) max_id = std::max(max_id, core->id());
  local_of_core_.assign(max_id + 1, -1);
  for (AiCore* core : cores) {
    local_of_core_[core->id()] = static_cast<int>(cores_.size());
    cores_.push_back(OwnedCore{core, core->core_kind()});
    core->set_owner(this);
  }
  for (const OwnedCore& owned : cores_) {
    if (owned.core->core_kind() != CoreKind::kAic) continue;
    Unit cluster{{local_of_core_[owned.core->id()], -1, -1}, 1};
    for (const OwnedCore& other : cores_) {
      if (other.core->core_kind() == CoreKind::kAiv &&
          other.core->cluster() == owned.core->cluster()) {
        cluster.members[cluster.count++] = local_of_core_[other.core->id()];
      }
    }
    if (cluster.count == 3) clusters_.push_back(cluster);
  }
  SC_METHOD(Step);
  sensitive << wake_;
  dont_initialize();
}

TimePs SchedulerThread::Now() const { return sc_core::sc_time_stamp().value(); }

size_t SchedulerThread::running_cores() const {
  return std::count_if(cores_.begin(), cores_.end(),
                       [](const OwnedCore& c) { return c.running.valid; });
}

void SchedulerThread::Wake(TimePs visible_at) {
  if (!sleeping_) return;  // a busy thread loops again and will see it
  const TimePs now = Now();
  const TimePs at = std::max(visible_at, now);
  if (wake_at_ != kNever && wake_at_ <= at) return;
  wake_at_ = at;
  wake_.notify(Ps(at - now));
}

void SchedulerThread::OnCondVisible(int core_id, CondValue value) {
  cores_[local_of_core_[core_id]].visible = value;
  Wake(Now());
}

void SchedulerThread::Ungate(int core_id, TaskSeq task) {
  OwnedCore& owned = cores_[local_of_core_[core_id]];
  for (Slot* slot : {&owned.running, &owned.pending}) {
    if (slot->valid && slot->task == task) slot->gated = false;
  }
  Wake(Now());
}

bool SchedulerThread::SlotFree(const OwnedCore& owned, bool pending) const {
  if (!pending) return !owned.running.valid;
  return owned.running.valid && owned.running_acked && !owned.running.gated && !owned.pending.valid;
}

bool SchedulerThread::ClusterUsable(const Unit& cluster, bool pending) const {
  // A cluster is usable when every core has a free slot; the idle phase takes
  // fully idle clusters, the pending phase the rest.
  bool all_idle = true, usable = true;
  for (int m = 0; m < 3; ++m) {
    const OwnedCore& owned = cores_[cluster.members[m]];
    all_idle &= SlotFree(owned, false);
    usable &= SlotFree(owned, false) || SlotFree(owned, true);
  }
  return pending ? (usable && !all_idle) : all_idle;
}

int SchedulerThread::IdleUnitCount(TaskShape shape, int limit) const {
  int count = 0;
  if (shape == TaskShape::kMix) {
    for (size_t i = 0; i < clusters_.size() && count < limit; ++i) {
      count += ClusterUsable(clusters_[i], false);
    }
    return count;
  }
  const CoreKind kind = KindOf(shape);
  for (size_t i = 0; i < cores_.size() && count < limit; ++i) {
    count += cores_[i].kind == kind && SlotFree(cores_[i], false);
  }
  return count;
}

void SchedulerThread::FreeUnits(TaskShape shape, bool pending, std::vector<Unit>* units,
                                size_t limit) const {
  units->clear();
  if (shape == TaskShape::kMix) {
    for (size_t i = 0; i < clusters_.size() && units->size() < limit; ++i) {
      if (ClusterUsable(clusters_[i], pending)) units->push_back(clusters_[i]);
    }
    return;
  }
  const CoreKind kind = KindOf(shape);
  for (size_t i = 0; i < cores_.size() && units->size() < limit; ++i) {
    if (cores_[i].kind == kind && SlotFree(cores_[i], pending)) {
      units->push_back(Unit{{static_cast<int>(i), -1, -1}, 1});
    }
  }
}

std::array<uint32_t, 3> SchedulerThread::QueueDepths() const {
  const ReadyQueues& ready = context_->ready();
  std::array<uint32_t, 3> depths;
  for (TaskShape shape : {TaskShape::kAic, TaskShape::kAiv, TaskShape::kMix}) {
    depths[static_cast<int>(shape)] =
        static_cast<uint32_t>(ready.Size(shape) + ready.Size(shape, Lane::kSync));
  }
  return depths;
}

void SchedulerThread::EmitPhase(SchedulerPhaseKind kind, TimePs start, TimePs end,
                                uint32_t processed, SchedulerPhase* extra) {
  SchedulerPhase phase = extra != nullptr ? *extra : SchedulerPhase{};
  phase.thread = index_;
  phase.kind = kind;
  phase.start = start;
  phase.end = end;
  phase.loop_iter = loops_;
  phase.tasks_processed = processed;
  if (extra == nullptr) phase.shared_at_start = QueueDepths();
  phase.shared_at_end = QueueDepths();
  context_->observer().OnSchedulerPhase(phase);
}

void SchedulerThread::Step() {
  context_->CountActivation();
  const TimePs now = Now();
  sleeping_ = false;
  wake_at_ = kNever;
  ++loops_;
  TimePs cost = Ns(context_->config().aicpu.loop_overhead_ns);
  bool progressed = CompletePhase(now, &cost);
  if (group_->draining()) {
    const TimePs start = now + cost;
    if (group_->TryLaunchDrain(this, now, &cost)) {
      progressed = true;
      EmitPhase(SchedulerPhaseKind::kDrain, start, now + cost, 1);
    }
  } else {
    progressed |= DummyPhase(now, &cost);
    progressed |= DispatchPhase(now, &cost);
    progressed |= EarlyDispatchPhase(now, &cost);
  }
  if (!progressed || deferred_release_.size() >= kDeferredReleaseCap) {
    progressed |= ReleasePhase(now, &cost);
  }
  if (!context_->fatal().ok()) return;
  if (progressed) {
    busy_ += cost;
    context_->counters().scheduler_busy += cost;
    ++context_->counters().scheduler_loops;
    wake_.notify(Ps(std::max<TimePs>(cost, 1)));
    return;
  }
  // Nothing to do: sleep until a COND change or new work, or until queued
  // work that is not visible yet becomes visible.
  --loops_;  // an idle spin is not a recorded loop
  sleeping_ = true;
  const TimePs next = context_->ready().EarliestHead();
  if (next != kNever && next > now) Wake(next);
}

bool SchedulerThread::CompletePhase(TimePs now, TimePs* cost) {
  const TimePs start = now + *cost;
  const TimePs poll = Ns(context_->config().aicpu.cond_poll_ns);
  uint32_t finished = 0;
  bool changed = false;
  for (OwnedCore& owned : cores_) {
    // Gated (pre-staged) cores are not polled until their doorbell rings.
    if (!owned.running.valid || owned.running.gated) continue;
    *cost += poll;  // one MMIO read, serially
    if (owned.visible.token == owned.seen.token && owned.visible.fin == owned.seen.fin) continue;
    changed = true;
    Observe(owned, owned.visible, now + *cost, cost, &finished);
    if (!context_->fatal().ok()) return true;
  }
  if (finished > 0) EmitPhase(SchedulerPhaseKind::kComplete, start, now + *cost, finished);
  return changed;
}

void SchedulerThread::Observe(OwnedCore& owned, CondValue value, TimePs when, TimePs* cost,
                              uint32_t* finished) {
  owned.seen = value;
  if (owned.pending.valid && value.token == owned.pending.token) {
    // The pending task ACKed or finished: the running one is done (serial
    // execution implies it).
    const Slot running = owned.running;
    const Slot pending = owned.pending;
    owned.pending.valid = false;
    if (value.fin) {
      owned.running.valid = false;
    } else {
      owned.running = pending;
      owned.running_acked = true;
    }
    FinishSubtask(owned, running, when, cost);
    ++*finished;
    if (value.fin) {
      FinishSubtask(owned, pending, when, cost);
      ++*finished;
    }
    return;
  }
  if (!owned.running.valid || value.token != owned.running.token) return;  // stale
  if (!value.fin) {
    owned.running_acked = true;  // the pending slot may now be filled
    return;
  }
  if (owned.pending.valid && !owned.pending.gated) return;  // wait for the pending ACK/FIN
  const Slot running = owned.running;
  if (owned.pending.valid) {  // a gated pending task: promoted, not ACKed yet
    owned.running = owned.pending;
    owned.pending.valid = false;
    owned.running_acked = false;
  } else {
    owned.running.valid = false;
  }
  FinishSubtask(owned, running, when, cost);
  ++*finished;
}

void SchedulerThread::ChargeCompletion(const CompletionWork& work, TimePs* cost) const {
  if (work.consumers == 0 && work.doorbells == 0) return;  // no fan-out to walk
  const AicpuParams& aicpu = context_->config().aicpu;
  *cost += Ns(aicpu.resolve_base_ns + aicpu.resolve_per_consumer_ns * work.consumers +
              aicpu.doorbell_ns * work.doorbells);
}

void SchedulerThread::FinishSubtask(OwnedCore& owned, const Slot& slot, TimePs when, TimePs* cost) {
  if (const CoreInterval* recorded = owned.core->IntervalOf(slot.token)) {
    CoreInterval interval = *recorded;
    interval.finish = when;
    context_->observer().OnCoreInterval(interval);
  }
  Task* task = context_->tasks().Find(slot.task);
  if (++task->subtasks_done < task->block_num * task->subtasks_per_block) return;
  deferred_release_.push_back(task->seq);
  ChargeCompletion(CompleteTask(*context_, *task, when), cost);
  signals_->WakeSchedulers(when);
  signals_->WakeOrchestrator();
}

bool SchedulerThread::DummyPhase(TimePs now, TimePs* cost) {
  ReadyQueues& ready = context_->ready();
  const TimePs start = now + *cost;
  uint32_t drained = 0;
  while (drained < kDummyDrainBatch && ready.HasVisible(TaskShape::kDummy, now + *cost)) {
    Task* task = context_->tasks().Find(ready.Pop(TaskShape::kDummy));
    *cost += Ns(context_->config().aicpu.dummy_retire_ns);
    context_->observer().OnInlineRetire(index_, *task, now + *cost);
    ++context_->counters().inline_retires;
    deferred_release_.push_back(task->seq);
    ChargeCompletion(CompleteTask(*context_, *task, now + *cost), cost);
    ++drained;
  }
  if (drained == 0) return false;
  EmitPhase(SchedulerPhaseKind::kDummy, start, now + *cost, drained);
  signals_->WakeSchedulers(now + *cost);
  signals_->WakeOrchestrator();
  return true;
}

void SchedulerThread::Place(Task& task, const Unit& unit, int64_t block, bool gated,
                            TimePs dispatch_ts, TimePs now, TimePs* cost) {
  const TimePs publish = Ns(context_->config().aicpu.dispatch_publish_ns);
  for (int m = 0; m < unit.count; ++m) {
    OwnedCore& owned = cores_[unit.members[m]];
    *cost += publish;
    BlockWork work;
    work.task = task.seq;
    work.block = block;
    work.block_num = task.block_num;
    work.kernel = task.kernel;
    work.subblock = task.shape == TaskShape::kMix ? std::max(0, m - 1) : 0;
    work.executes_data = m == 0;
    work.gated = gated;
    work.token = owned.next_token++;
    work.thread = index_;
    work.dispatch = dispatch_ts;
    if (task.times.first_dispatch == kNever) task.times.first_dispatch = work.dispatch;
    if (task.first_core < 0) task.first_core = owned.core->id();
    const Slot slot{true, task.seq, work.token, gated};
    if (!owned.running.valid) {
      owned.running = slot;
      owned.running_acked = false;
    } else {
      owned.pending = slot;
    }
    if (gated) task.staged_cores.push_back(owned.core->id());
    owned.core->Dispatch(work, *cost);
  }
}

bool SchedulerThread::DispatchShape(TaskShape shape, bool pending, TimePs now, TimePs* cost,
                                    SchedulerPhase* phase) {
  ReadyQueues& ready = context_->ready();
  std::vector<Unit>& units = units_;
  // With no task to pop, one free unit is enough to tell a miss.
  const bool visible = ready.HasVisible(shape, now + *cost);
  FreeUnits(shape, pending, &units, visible ? units.max_size() : 1);
  if (units.empty()) return false;
  if (!visible) {
    ++phase->pop_miss;
    ++context_->counters().pop_miss;
    return false;
  }
  // Tasks popped in one batch share one write barrier and one dispatch
  // timestamp (batched publish), so a core's head overhead grows with its
  // position in the publish loop.
  const TimePs dispatch_ts = now + *cost;
  *cost += Ns(context_->config().aicpu.wmb_ns);
  LaunchCounters& counters = context_->counters();
  size_t next_unit = 0;
  while (next_unit < units.size() && ready.HasVisible(shape, now + *cost)) {
    Task* task = context_->tasks().Find(ready.Pop(shape));
    ++counters.task_dispatches;
    ++counters.pop_hit;
    ++phase->pop_hit;
    while (next_unit < units.size() && task->next_block < task->block_num) {
      const int64_t block = task->next_block++;
      ++counters.block_dispatches;
      Place(*task, units[next_unit++], block, /*gated=*/false, dispatch_ts, now, cost);
      phase->tasks_processed += units[next_unit - 1].count;
    }
    if (task->next_block < task->block_num) {
      // The rest goes back to the front so other threads fill their cores.
      ready.PushFront(shape, task->seq, now + *cost);
      signals_->WakeSchedulers(now + *cost);
    } else {
      OnFullyPublished(*context_, *task, now + *cost);
    }
  }
  return true;
}

bool SchedulerThread::DispatchSyncTier(TimePs now, TimePs* cost, SchedulerPhase* phase) {
  ReadyQueues& ready = context_->ready();
  bool dispatched = false;
  for (TaskShape shape : {TaskShape::kMix, TaskShape::kAic, TaskShape::kAiv}) {
    while (ready.HasVisible(shape, now + *cost, Lane::kSync) && !group_->draining()) {
      Task* task = context_->tasks().Find(ready.Pop(shape, Lane::kSync));
      ++context_->counters().task_dispatches;
      ++context_->counters().pop_hit;
      ++phase->pop_hit;
      dispatched = true;
      std::vector<Unit>& units = units_;
      FreeUnits(shape, /*pending=*/false, &units);
      if (static_cast<int64_t>(units.size()) < task->block_num) {
        // No single thread can hold the cohort: stop the world.
        group_->BeginDrain(task->seq);
        signals_->WakeSchedulers(now + *cost);
        break;
      }
      const TimePs dispatch_ts = now + *cost;  // a sync_start task is flushed alone
      *cost += Ns(context_->config().aicpu.wmb_ns);
      for (int64_t b = 0; b < task->block_num; ++b) {
        ++context_->counters().block_dispatches;
        Place(*task, units[b], task->next_block++, /*gated=*/false, dispatch_ts, now, cost);
      }
      OnFullyPublished(*context_, *task, now + *cost);
    }
  }
  return dispatched;
}

bool SchedulerThread::DispatchPhase(TimePs now, TimePs* cost) {
  const TimePs start = now + *cost;
  SchedulerPhase phase;
  phase.shared_at_start = QueueDepths();
  bool dispatched = DispatchSyncTier(now, cost, &phase);
  if (!group_->draining()) {
    // MIX first and strictly: AIC/AIV wait while MIX work is left. AIC/AIV
    // order alternates by thread parity so no type is always served last.
    const TaskShape first = index_ % 2 == 0 ? TaskShape::kAic : TaskShape::kAiv;
    const TaskShape second = first == TaskShape::kAic ? TaskShape::kAiv : TaskShape::kAic;
    const bool two_slots = context_->config().core.dispatch_slots >= 2;
    for (bool pending : {false, true}) {
      if (pending && !two_slots) break;
      const bool mix_gated = pending && group_->PeerHasIdle(this, TaskShape::kMix);
      if (!mix_gated) dispatched |= DispatchShape(TaskShape::kMix, pending, now, cost, &phase);
      if (context_->ready().HasVisible(TaskShape::kMix, now + *cost)) continue;
      for (TaskShape shape : {first, second}) {
        // A busy core's second slot is used only when no other thread has
        // an idle core that could take the task now.
        if (pending && group_->PeerHasIdle(this, shape)) continue;
        dispatched |= DispatchShape(shape, pending, now, cost, &phase);
      }
    }
  }
  if (phase.tasks_processed > 0 || phase.pop_hit > 0) {
    EmitPhase(SchedulerPhaseKind::kDispatch, start, now + *cost, phase.tasks_processed, &phase);
  }
  return dispatched;
}

bool SchedulerThread::EarlyDispatchPhase(TimePs now, TimePs* cost) {
  ReadyQueues& ready = context_->ready();
  if (!ready.AllCoreQueuesEmpty()) return false;  // normal work outranks early work
  const TimePs start = now + *cost;
  uint32_t staged = 0;
  bool progressed = false;
  for (TaskShape shape : {TaskShape::kMix, TaskShape::kAic, TaskShape::kAiv}) {
    while (ready.HasVisible(shape, now + *cost, Lane::kEarly)) {
      std::vector<Unit>& units = units_;
      FreeUnits(shape, /*pending=*/false, &units);
      if (context_->config().core.dispatch_slots >= 2) {
        FreeUnits(shape, /*pending=*/true, &more_units_);
        units.insert(units.end(), more_units_.begin(), more_units_.end());
      }
      if (units.empty()) break;
      Task* task = context_->tasks().Find(ready.Pop(shape, Lane::kEarly));
      progressed = true;
      if (task == nullptr || task->early_state != Task::EarlyState::kQueued ||
          task->fanin_pending == 0) {
        continue;  // became ready meanwhile: it went through a normal queue
      }
      task->early_state = Task::EarlyState::kStaged;
      const TimePs dispatch_ts = now + *cost;
      *cost += Ns(context_->config().aicpu.wmb_ns);
      size_t next_unit = 0;
      while (next_unit < units.size() && task->next_block < task->block_num) {
        ++context_->counters().block_dispatches;
        ++context_->counters().early_blocks;
        Place(*task, units[next_unit], task->next_block++, /*gated=*/true, dispatch_ts, now, cost);
        staged += units[next_unit++].count;
      }
      ++context_->counters().task_dispatches;
      if (task->next_block == task->block_num) OnFullyPublished(*context_, *task, now + *cost);
    }
  }
  if (staged > 0) EmitPhase(SchedulerPhaseKind::kEarlyDispatch, start, now + *cost, staged);
  return progressed;
}

bool SchedulerThread::ReleasePhase(TimePs now, TimePs* cost) {
  if (deferred_release_.empty()) return false;
  const TimePs start = now + *cost;
  TaskTable& tasks = context_->tasks();
  for (TaskSeq seq : deferred_release_) {
    if (Task* task = tasks.Find(seq)) tasks.ReleaseConsumer(*task);
  }
  const uint32_t released = static_cast<uint32_t>(deferred_release_.size());
  deferred_release_.clear();
  tasks.AdvanceWatermarks();
  EmitPhase(SchedulerPhaseKind::kRelease, start, now + *cost, released);
  signals_->WakeOrchestrator();
  return true;
}

int64_t SchedulerThread::StageCohort(Task& task, int64_t blocks, TimePs now, TimePs* cost) {
  std::vector<Unit>& units = units_;
  FreeUnits(task.shape, /*pending=*/false, &units);
  int64_t staged = 0;
  const TimePs dispatch_ts = now + *cost;
  for (const Unit& unit : units) {
    if (staged == blocks) break;
    ++context_->counters().block_dispatches;
    Place(task, unit, task.next_block++, /*gated=*/true, dispatch_ts, now, cost);
    ++staged;
  }
  return staged;
}

TimePs SchedulerThread::CohortPreparedAt(const Task& task) const {
  TimePs prepared = 0;
  for (const OwnedCore& owned : cores_) {
    for (const Slot* slot : {&owned.running, &owned.pending}) {
      if (slot->valid && slot->task == task.seq && slot->gated) {
        prepared = std::max(prepared, owned.core->gated_prepared_at());
      }
    }
  }
  return prepared;
}

void SchedulerThread::RingCohort(Task& task, TimePs at, TimePs now) {
  const TimePs doorbell = Ns(context_->config().aicpu.doorbell_ns);
  TimePs delay = at - now;
  for (OwnedCore& owned : cores_) {
    for (Slot* slot : {&owned.running, &owned.pending}) {
      if (!slot->valid || slot->task != task.seq || !slot->gated) continue;
      delay += doorbell;
      slot->gated = false;
      owned.core->RingDoorbell(task.seq, delay);
    }
  }
}

bool SchedulerGroup::PeerHasIdle(const SchedulerThread* self, TaskShape shape) const {
  for (const SchedulerThread* thread : threads_) {
    if (thread != self && thread->IdleUnitCount(shape, /*limit=*/1) > 0) return true;
  }
  return false;
}

int SchedulerGroup::TotalIdleUnits(TaskShape shape) const {
  int total = 0;
  for (const SchedulerThread* thread : threads_) total += thread->IdleUnitCount(shape);
  return total;
}

bool SchedulerGroup::TryLaunchDrain(SchedulerThread* caller, TimePs now, TimePs* cost) {
  Task* task = context_->tasks().Find(drain_task_);
  const int64_t needed = task->block_num - task->next_block;
  if (TotalIdleUnits(task->shape) < needed) return false;  // wait for cores to free up
  // Every thread stages its own range of gated blocks...
  int64_t staged = 0;
  for (SchedulerThread* thread : threads_) {
    staged += thread->StageCohort(*task, needed - staged, now, cost);
  }
  // ...and the launch is a rendezvous: once every staged core is prepared
  // (a cold core's first dispatch arrives late), all threads ring their
  // doorbells together.
  TimePs rendezvous = now + *cost;
  for (const SchedulerThread* thread : threads_) {
    rendezvous = std::max(rendezvous, thread->CohortPreparedAt(*task));
  }
  for (SchedulerThread* thread : threads_) thread->RingCohort(*task, rendezvous, now);
  ++context_->counters().sync_drains;
  OnFullyPublished(*context_, *task, now + *cost);
  drain_task_ = kNoTask;
  return true;
}

}  // namespace pto
