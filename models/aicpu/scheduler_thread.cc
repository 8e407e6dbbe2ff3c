#include "models/aicpu/scheduler_thread.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace pto {
namespace {

using Lane = ReadyQueues::Lane;

// Dummy-only completions drained per loop (the runtime's DUMMY_DRAIN_BATCH).
constexpr int kDummyDrainBatch = 8;
// Deferred releases flushed even on a busy loop (PTO2_DEFERRED_RELEASE_CAP).
constexpr size_t kDeferredReleaseCap = 256;

std::vector<CoreSlots::CoreSpec> SpecsOf(const std::vector<ScheduledCore*>& cores) {
  std::vector<CoreSlots::CoreSpec> specs;
  for (const ScheduledCore* core : cores) {
    const TaskShape kind = core->core_kind() == CoreKind::kAic ? TaskShape::kAic : TaskShape::kAiv;
    specs.push_back({core->id(), kind, core->cluster()});
  }
  return specs;
}

DispatchCosts CostsOf(const SchedulerEnv& env) {
  return DispatchCosts{Ns(env.aicpu->wmb_ns), Ns(env.aicpu->dispatch_publish_ns),
                       env.dispatch_slots >= 2};
}

}  // namespace

SchedulerCounters& SchedulerCounters::operator+=(const SchedulerCounters& other) {
  loops += other.loops;
  busy += other.busy;
  task_dispatches += other.task_dispatches;
  block_dispatches += other.block_dispatches;
  early_blocks += other.early_blocks;
  inline_retires += other.inline_retires;
  pop_hit += other.pop_hit;
  pop_miss += other.pop_miss;
  return *this;
}

SchedulerThread::SchedulerThread(absl::string_view name, int index, const SchedulerEnv& env,
                                 SchedulerGroup* group, std::vector<AiCore*> cores)
    : SchedulerThread(name, index, env, group, LinksTo(cores)) {}

SchedulerThread::SchedulerThread(absl::string_view name, int index, const SchedulerEnv& env,
                                 SchedulerGroup* group, std::vector<ScheduledCore*> cores)
    : SchedulerThread(name, index, env, group, Cores{std::move(cores), {}}) {}

SchedulerThread::Cores SchedulerThread::LinksTo(const std::vector<AiCore*>& cores) {
  Cores links;
  for (AiCore* core : cores) {
    links.owned.push_back(std::make_unique<AiCoreLink>(core));
    links.cores.push_back(links.owned.back().get());
  }
  return links;
}

SchedulerThread::SchedulerThread(absl::string_view name, int index, const SchedulerEnv& env,
                                 SchedulerGroup* group, Cores cores)
    : calendar_(*env.calendar),
      wake_(calendar_.Add(this, name)),
      index_(index),
      aicpu_(*env.aicpu),
      tasks_(*env.tasks),
      ready_(*env.ready),
      lifecycle_(*env.lifecycle),
      signals_(*env.signals),
      observer_(*env.observer),
      failure_(*env.failure),
      group_(group),
      owned_cores_(std::move(cores.owned)),
      slots_(SpecsOf(cores.cores)),
      cores_(slots_.size(), nullptr),
      planner_(index, CostsOf(env), &slots_, env.ready, env.tasks) {
  for (ScheduledCore* core : cores.cores) {
    cores_[slots_.LocalOf(core->id())] = core;
    core->set_owner(this);
  }
}

void SchedulerThread::Wake(TimePs visible_at) {
  if (!sleeping_) return;  // a busy thread loops again and will see it
  calendar_.WakeAt(wake_, std::max(visible_at, Now()));
}

void SchedulerThread::OnCondWritten(int core_id, CondValue value, TimePs visible_at) {
  written_.push_back(
      WrittenCond{visible_at, slots_.LocalOf(core_id), CondReading{value.token, value.fin}});
  if (earliest_written_ == kNever || visible_at < earliest_written_) {
    earliest_written_ = visible_at;
  }
  Wake(visible_at);
}

void SchedulerThread::RevealConds(TimePs now) {
  if (earliest_written_ == kNever || earliest_written_ > now) return;
  // Visible ones in the order written, which keeps each core's order; the
  // rest stay.
  size_t kept = 0;
  TimePs earliest = kNever;
  for (const WrittenCond& written : written_) {
    if (written.visible_at <= now) {
      slots_.SetVisible(written.local, written.value);
      continue;
    }
    if (earliest == kNever || written.visible_at < earliest) earliest = written.visible_at;
    written_[kept++] = written;
  }
  written_.resize(kept);
  earliest_written_ = earliest;
}

void SchedulerThread::Ungate(int core_id, TaskSeq task) {
  slots_.ReleaseGated(slots_.LocalOf(core_id), task);
  Wake(Now());
}

std::array<uint32_t, 3> SchedulerThread::QueueDepths() const {
  std::array<uint32_t, 3> depths;
  for (TaskShape shape : {TaskShape::kAic, TaskShape::kAiv, TaskShape::kMix}) {
    depths[static_cast<int>(shape)] =
        static_cast<uint32_t>(ready_.Size(shape) + ready_.Size(shape, Lane::kSync));
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
  phase.loop_iter = counters_.loops;
  phase.tasks_processed = processed;
  if (extra == nullptr) phase.shared_at_start = QueueDepths();
  phase.shared_at_end = QueueDepths();
  observer_.OnSchedulerPhase(phase);
}

void SchedulerThread::OnWake(TimePs now) {
  sleeping_ = false;
  RevealConds(now);
  ++counters_.loops;
  TimePs cost = Ns(aicpu_.loop_overhead_ns);
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
  if (failure_.failed()) return;
  if (progressed) {
    counters_.busy += cost;
    calendar_.WakeAt(wake_, now + std::max<TimePs>(cost, 1));
    return;
  }
  // Nothing to do: sleep until a COND change or new work, or until queued
  // work or a written COND value that is not visible yet becomes visible.
  --counters_.loops;  // an idle spin is not a recorded loop
  sleeping_ = true;
  const TimePs next = ready_.EarliestHead();
  if (next != kNever && next > now) Wake(next);
  if (earliest_written_ != kNever) Wake(earliest_written_);
}

bool SchedulerThread::CompletePhase(TimePs now, TimePs* cost) {
  const TimePs start = now + *cost;
  const TimePs poll = Ns(aicpu_.cond_poll_ns);
  uint32_t finished = 0;
  bool changed = false;
  // Each COND change is acted on before the poll goes on: its completions
  // may un-gate cores further on, polled in this same pass.
  for (int local = slots_.PollFrom(0, poll, cost); local < slots_.size();
       local = slots_.PollFrom(local + 1, poll, cost)) {
    changed = true;
    const CondOutcome outcome = slots_.ObserveVisible(local);
    const TimePs when = now + *cost;
    for (int k = 0; k < outcome.finished; ++k) {
      FinishSubtask(local, outcome.done[k], when, cost);
    }
    finished += outcome.finished;
    if (failure_.failed()) return true;
  }
  if (finished > 0) EmitPhase(SchedulerPhaseKind::kComplete, start, now + *cost, finished);
  return changed;
}

void SchedulerThread::ChargeCompletion(const CompletionWork& work, TimePs* cost) const {
  if (work.consumers == 0 && work.doorbells == 0) return;  // no fan-out to walk
  *cost += Ns(aicpu_.resolve_base_ns + aicpu_.resolve_per_consumer_ns * work.consumers +
              aicpu_.doorbell_ns * work.doorbells);
}

void SchedulerThread::FinishSubtask(int local, const DispatchSlot& slot, TimePs when,
                                    TimePs* cost) {
  if (const CoreInterval* recorded = cores_[local]->IntervalOf(slot.token)) {
    CoreInterval interval = *recorded;
    interval.finish = when;
    observer_.OnCoreInterval(interval);
  }
  Task* task = tasks_.Find(slot.task);
  if (++task->subtasks_done < task->block_num * task->subtasks_per_block) return;
  deferred_release_.push_back(task->seq);
  ChargeCompletion(lifecycle_.CompleteTask(*task, when), cost);
  signals_.WakeSchedulers(when);
  signals_.WakeOrchestrator();
}

bool SchedulerThread::DummyPhase(TimePs now, TimePs* cost) {
  const TimePs start = now + *cost;
  uint32_t drained = 0;
  while (drained < kDummyDrainBatch && ready_.HasVisible(TaskShape::kDummy, now + *cost)) {
    Task* task = tasks_.Find(ready_.Pop(TaskShape::kDummy));
    *cost += Ns(aicpu_.dummy_retire_ns);
    observer_.OnInlineRetire(index_, *task, now + *cost);
    ++counters_.inline_retires;
    deferred_release_.push_back(task->seq);
    ChargeCompletion(lifecycle_.CompleteTask(*task, now + *cost), cost);
    ++drained;
  }
  if (drained == 0) return false;
  EmitPhase(SchedulerPhaseKind::kDummy, start, now + *cost, drained);
  signals_.WakeSchedulers(now + *cost);
  signals_.WakeOrchestrator();
  return true;
}

void SchedulerThread::Place(const Placement& placement) {
  Task& task = *placement.task;
  ScheduledCore* core = cores_[placement.local];
  BlockWork work;
  work.task = task.seq;
  work.block = placement.block;
  work.block_num = task.block_num;
  work.kernel = task.kernel;
  work.subblock = task.shape == TaskShape::kMix ? std::max(0, placement.member - 1) : 0;
  work.executes_data = placement.member == 0;
  work.gated = placement.gated;
  work.token = placement.token;
  work.thread = index_;
  work.dispatch = placement.dispatch_ts;
  if (task.times.first_dispatch == kNever) task.times.first_dispatch = work.dispatch;
  if (task.first_core < 0) task.first_core = core->id();
  if (placement.gated) task.staged_cores.push_back(core->id());
  core->Dispatch(work, placement.publish_delay);
}

void SchedulerThread::Requeued(const Task& /*task*/, TimePs at) { signals_.WakeSchedulers(at); }

void SchedulerThread::FullyPublished(Task& task, TimePs at) {
  lifecycle_.OnFullyPublished(task, at);
}

void SchedulerThread::DrainNeeded(Task& task, TimePs at) {
  group_->BeginDrain(task.seq);
  signals_.WakeSchedulers(at);
}

void SchedulerThread::CountDispatches(const DispatchTally& tally) {
  counters_.task_dispatches += tally.task_dispatches;
  counters_.block_dispatches += tally.block_dispatches;
  counters_.early_blocks += tally.early_blocks;
  counters_.pop_hit += tally.pop_hit;
  counters_.pop_miss += tally.pop_miss;
}

bool SchedulerThread::DispatchPhase(TimePs now, TimePs* cost) {
  const TimePs start = now + *cost;
  SchedulerPhase phase;
  phase.shared_at_start = QueueDepths();
  const DispatchTally tally = planner_.Dispatch(now, cost, group_->slots(), this);
  CountDispatches(tally);
  if (tally.subtasks > 0 || tally.pop_hit > 0) {
    phase.pop_hit = tally.pop_hit;
    phase.pop_miss = tally.pop_miss;
    EmitPhase(SchedulerPhaseKind::kDispatch, start, now + *cost, tally.subtasks, &phase);
  }
  return tally.progressed;
}

bool SchedulerThread::EarlyDispatchPhase(TimePs now, TimePs* cost) {
  const TimePs start = now + *cost;
  const DispatchTally tally = planner_.DispatchEarly(now, cost, this);
  CountDispatches(tally);
  if (tally.subtasks > 0) {
    EmitPhase(SchedulerPhaseKind::kEarlyDispatch, start, now + *cost, tally.subtasks);
  }
  return tally.progressed;
}

bool SchedulerThread::ReleasePhase(TimePs now, TimePs* cost) {
  if (deferred_release_.empty()) return false;
  const TimePs start = now + *cost;
  for (TaskSeq seq : deferred_release_) {
    if (Task* task = tasks_.Find(seq)) tasks_.ReleaseConsumer(*task);
  }
  const uint32_t released = static_cast<uint32_t>(deferred_release_.size());
  deferred_release_.clear();
  tasks_.AdvanceWatermarks();
  EmitPhase(SchedulerPhaseKind::kRelease, start, now + *cost, released);
  signals_.WakeOrchestrator();
  return true;
}

int64_t SchedulerThread::StageCohort(Task& task, int64_t blocks, TimePs now, TimePs* cost) {
  const int64_t staged = planner_.StageCohort(task, blocks, now, cost, this);
  counters_.block_dispatches += staged;
  return staged;
}

TimePs SchedulerThread::CohortPreparedAt(const Task& task) const {
  TimePs prepared = 0;
  for (int local = 0; local < slots_.size(); ++local) {
    if (slots_.HoldsGated(local, task.seq)) {
      prepared = std::max(prepared, cores_[local]->gated_prepared_at());
    }
  }
  return prepared;
}

void SchedulerThread::RingCohort(Task& task, TimePs at, TimePs now) {
  const TimePs doorbell = Ns(aicpu_.doorbell_ns);
  TimePs delay = at - now;
  for (int local = 0; local < slots_.size(); ++local) {
    // A doorbell per gated slot (a core may hold two of the task's blocks).
    for (int n = slots_.ReleaseGated(local, task.seq); n > 0; --n) {
      delay += doorbell;
      cores_[local]->RingDoorbell(task.seq, delay);
    }
  }
}

int SchedulerGroup::TotalIdleUnits(TaskShape shape) const {
  int total = 0;
  for (const CoreSlots* slots : slots_) total += slots->IdleUnitCount(shape);
  return total;
}

void SchedulerGroup::BeginLaunch() {
  for (SchedulerThread* thread : threads_) thread->BeginLaunch();
  sync_drains_ = 0;
}

SchedulerCounters SchedulerGroup::Totals() const {
  SchedulerCounters totals;
  for (const SchedulerThread* thread : threads_) totals += thread->counters();
  return totals;
}

bool SchedulerGroup::TryLaunchDrain(SchedulerThread* caller, TimePs now, TimePs* cost) {
  Task* task = tasks_->Find(drain_task_);
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
  ++sync_drains_;
  lifecycle_->OnFullyPublished(*task, now + *cost);
  drain_task_ = kNoTask;
  return true;
}

}  // namespace pto
