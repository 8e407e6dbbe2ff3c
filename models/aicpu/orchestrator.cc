#include "models/aicpu/orchestrator.h"

#include <array>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "models/aicpu/task_lifecycle.h"

namespace pto {
Orchestrator::Orchestrator(absl::string_view name, const OrchestratorEnv& env)
    : calendar_(*env.calendar),
      wake_(calendar_.Add(this, name)),
      config_(*env.config),
      tasks_(*env.tasks),
      deps_(*env.deps),
      lifecycle_(*env.lifecycle),
      signals_(*env.signals),
      observer_(*env.observer),
      failure_(*env.failure),
      source_(env.source),
      events_(env.events),
      rings_(env.ring_limits),
      ring_limits_(env.ring_limits),
      launch_ring_limits_(env.launch_ring_limits),
      submitter_(*env.config, env.tensors, *env.tasks, *env.deps) {
  calendar_.WakeAt(wake_, 0);  // starts reading the trace
}

void Orchestrator::Wake() {
  // A pending publish has its own timed wake-up; an earlier notification
  // would override it.
  if (wait_ == Wait::kLaunchDrain || wait_ == Wait::kHostRead || wait_ == Wait::kRingSpace ||
      wait_ == Wait::kDepPool) {
    calendar_.WakeAt(wake_, Now());
  }
}

void Orchestrator::Fail(absl::Status status) {
  failure_.Fail(
      absl::Status(status.code(), absl::StrCat(source_->Where(), ": ", status.message())));
}

std::string Orchestrator::WaitingFor() const {
  switch (wait_) {
    case Wait::kLaunchDrain:
      return absl::StrCat("the end of launch ", launch_, ": ", tasks_.live_tasks(),
                          " task(s) never retired");
    case Wait::kHostRead:
      return absl::StrCat("a host read of tensor ", host_read_.tensor_id(),
                          " whose producer never completed");
    case Wait::kRingSpace:
      return absl::StrCat("space in ring ", rings_.blocked_ring());
    case Wait::kDepPool:
      return absl::StrCat("space in ring ", rings_.blocked_ring(), "'s dep pool");
    case Wait::kPublish:
      return "publishing a task";
    case Wait::kNone:
      return "the next record";
  }
  return "";
}

void Orchestrator::OnWake(TimePs /*now*/) {
  if (done_ || failure_.failed()) return;
  switch (wait_) {
    case Wait::kPublish:
      Publish(pending_publish_);
      pending_publish_ = kNoTask;
      break;
    case Wait::kLaunchDrain:
      if (!LaunchDrained()) return;
      EndLaunch();
      break;
    case Wait::kHostRead:
      if (!submitter_.HostReadReady(host_read_)) return;
      ReportHostRead();
      break;
    case Wait::kRingSpace:
      break;  // Process() re-checks the ring
    case Wait::kDepPool:
      HoldDepEntriesAndCharge();  // pays for the submit (a timed wake-up) or waits on
      return;
    case Wait::kNone:
      break;
  }
  if (wait_ != Wait::kRingSpace) wait_ = Wait::kNone;
  while (!failure_.failed()) {
    if (!have_record_) {
      absl::StatusOr<bool> more = source_->Next(&record_);
      // The source's error already names the record; Fail() would repeat it.
      if (!more.ok()) return failure_.Fail(more.status());
      if (!*more) {
        done_ = true;
        return;
      }
      have_record_ = true;
    }
    if (!Process()) return;
  }
}

void Orchestrator::ReportHostRead() {
  const Submitter::HostReadTarget target = submitter_.TargetOf(host_read_);
  observer_.OnHostRead(target.addr, target.size, target.producers, host_read_.origin());
}

bool Orchestrator::Process() {
  switch (record_.kind_case()) {
    case trace::StreamRecord::kLaunchBegin:
      BeginLaunch(record_.launch_begin());
      break;
    case trace::StreamRecord::kScopeBegin:
      submitter_.OpenScope(record_.scope_begin().mode(), record_.scope_begin().depth());
      break;
    case trace::StreamRecord::kScopeEnd:
      submitter_.CloseScope();
      break;
    case trace::StreamRecord::kAlloc: {
      if (!RingAdmits(submitter_.AllocHeapBytes(record_.alloc()))) return false;
      have_record_ = false;
      Task& task = submitter_.Alloc(record_.alloc());
      rings_.Enter(task);
      ++counters_.alloc_tasks;
      // Completed inline by the orchestrator: no scheduler work.
      const TimePs cost = Ns(config_.aicpu.alloc_ns);
      task.times.submit = task.times.ready = Now() + cost;
      observer_.OnTaskSubmitted(task, {}, Now(), Now() + cost);
      lifecycle_.CompleteTask(task, Now() + cost);
      counters_.busy += cost;
      wait_ = Wait::kPublish;  // nothing to publish; just pay the time
      calendar_.WakeAt(wake_, Now() + cost);
      return false;
    }
    case trace::StreamRecord::kSubmit:
    case trace::StreamRecord::kDummy: {
      if (!RingAdmits(0)) return false;
      have_record_ = false;
      const bool dummy = record_.has_dummy();
      absl::StatusOr<Submission> submission =
          dummy ? submitter_.SubmitDummy(record_.dummy()) : submitter_.Submit(record_.submit());
      if (!submission.ok()) {
        Fail(submission.status());
        return false;
      }
      submitting_ = *submission;
      Task& task = *submitting_.task;
      rings_.Enter(task);
      ++(dummy ? counters_.dummy_tasks : counters_.tasks);
      for (const DepEdge& edge : submitting_.edges) observer_.OnEdge(task, edge);
      counters_.edges += submitting_.edges.size();
      HoldDepEntriesAndCharge();
      return false;
    }
    case trace::StreamRecord::kHostRead:
      host_read_ = record_.host_read();
      if (!submitter_.HostReadReady(host_read_)) {
        have_record_ = false;
        wait_ = Wait::kHostRead;
        return false;
      }
      ReportHostRead();
      break;
    case trace::StreamRecord::kLaunchEnd:
      while (submitter_.scope_open()) submitter_.CloseScope();
      have_record_ = false;
      if (!LaunchDrained()) {
        wait_ = Wait::kLaunchDrain;
        return false;
      }
      EndLaunch();
      return true;
    case trace::StreamRecord::kCheck:
      events_->OnCheck(record_.check());
      break;
    case trace::StreamRecord::KIND_NOT_SET:
      Fail(absl::InvalidArgumentError("record has no kind"));
      return false;
  }
  have_record_ = false;
  return true;
}

bool Orchestrator::RingAdmits(int64_t heap) {
  const int ring = submitter_.ring();
  const Task* oldest_live = tasks_.ring_front(ring);
  rings_.Reclaim(ring, oldest_live);
  const RingResource short_of = rings_.Admit(ring, heap);
  if (short_of == RingResource::kNone) {
    if (wait_ == Wait::kRingSpace) {
      rings_.Unblock(Now());
      wait_ = Wait::kNone;
    }
    return true;
  }
  const ScopeFacts scope{submitter_.scope_depth(), submitter_.scope_tasks()};
  if (absl::Status verdict = rings_.ClassifyEntry(ring, short_of, heap, scope, oldest_live);
      !verdict.ok()) {
    Fail(std::move(verdict));
    return false;
  }
  if (wait_ != Wait::kRingSpace) {
    wait_ = Wait::kRingSpace;
    rings_.Block(ring, Now());
  }
  return false;  // woken when a task retires
}

void Orchestrator::HoldDepEntriesAndCharge() {
  Task& task = *submitting_.task;
  // Nothing retires between the ring admission, which reclaimed, and the
  // first try; retirements during a wait release entries.
  if (wait_ == Wait::kDepPool) rings_.Reclaim(task.ring, tasks_.ring_front(task.ring));
  const int64_t needed = submitting_.dep_entries_needed;
  if (!rings_.DepPoolFits(task.ring, needed)) {
    if (absl::Status verdict = rings_.ClassifyDepWait(task, needed, tasks_.ring_front(task.ring));
        !verdict.ok()) {
      return Fail(std::move(verdict));
    }
    wait_ = Wait::kDepPool;
    rings_.Block(task.ring, Now());
    return;  // woken when a task completes or retires
  }
  if (wait_ == Wait::kDepPool) rings_.Unblock(Now());
  rings_.HoldDepEntries(task, Submitter::DepListEntries(task));

  const SubmitCost& cost = submitting_.cost;
  counters_.submit.base += cost.base;
  counters_.submit.param_copy += cost.param_copy;
  counters_.submit.lookup += cost.lookup;
  counters_.submit.insert += cost.insert;
  ++counters_.submits;
  const TimePs total = cost.total();
  observer_.OnTaskSubmitted(task, submitting_.edges, Now(), Now() + total);
  counters_.busy += total;
  pending_publish_ = task.seq;
  wait_ = Wait::kPublish;
  calendar_.WakeAt(wake_, Now() + total);
}

void Orchestrator::BeginLaunch(const trace::LaunchBegin& begin) {
  ++launch_;
  counters_ = OrchestratorCounters{};
  counters_.launch_start = Now();
  deps_.Clear();
  const bool own_sizes = begin.has_ring_sizes() && launch_ring_limits_;
  rings_.BeginLaunch(own_sizes ? launch_ring_limits_(begin.ring_sizes()) : ring_limits_);
  submitter_.BeginLaunch(static_cast<uint32_t>(launch_));
  events_->OnLaunchBegin(launch_, begin.name());
}

void Orchestrator::EndLaunch() { events_->OnLaunchEnd(launch_); }

bool Orchestrator::LaunchDrained() const { return tasks_.live_tasks() == 0; }

void Orchestrator::Publish(TaskSeq seq) {
  if (seq == kNoTask) return;  // an alloc: completed inline already
  Task* task = tasks_.Find(seq);
  const TimePs now = Now();
  task->times.submit = now;
  if (TaskTable::ReleaseFanin(*task)) {
    lifecycle_.RouteReady(*task, now);
    signals_.WakeSchedulers(now);
  } else {
    lifecycle_.MaybeQueueEarly(*task, now);
  }
}

}  // namespace pto
