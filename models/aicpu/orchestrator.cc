#include "models/aicpu/orchestrator.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "models/aicpu/task_lifecycle.h"

namespace pto {
namespace {

sc_core::sc_time Ps(TimePs ps) { return sc_core::sc_time::from_value(ps); }

TaskShape ShapeOf(const int32_t kernel_ids[3]) {
  const bool aic = kernel_ids[0] >= 0;
  const bool aiv = kernel_ids[1] >= 0 || kernel_ids[2] >= 0;
  if (aic && aiv) return TaskShape::kMix;
  return aic ? TaskShape::kAic : TaskShape::kAiv;
}

}  // namespace

Orchestrator::Orchestrator(sc_core::sc_module_name name, ChipContext* context,
                           RuntimeSignals* signals, RecordSource* source, LaunchListener* listener)
    : sc_module(name),
      context_(context),
      signals_(signals),
      source_(source),
      listener_(listener),
      record_(google::protobuf::Arena::CreateMessage<trace::StreamRecord>(&arena_)) {
  SC_METHOD(Step);
  sensitive << wake_;
  // Runs once at time zero to start reading the trace.
}

TimePs Orchestrator::Now() const { return sc_core::sc_time_stamp().value(); }

void Orchestrator::Wake() {
  // A pending publish has its own timed wake-up; an earlier notification
  // would override it.
  if (wait_ == Wait::kLaunchDrain || wait_ == Wait::kHostRead || wait_ == Wait::kRingSpace) {
    wake_.notify(sc_core::SC_ZERO_TIME);
  }
}

void Orchestrator::Fail(absl::Status status) {
  context_->Fail(
      absl::Status(status.code(), absl::StrCat(source_->Where(), ": ", status.message())));
}

std::string Orchestrator::WaitingFor() const {
  switch (wait_) {
    case Wait::kLaunchDrain:
      return absl::StrCat("the end of launch ", launch_, ": ", context_->tasks().live_tasks(),
                          " task(s) never retired");
    case Wait::kHostRead:
      return absl::StrCat("a host read of tensor ", host_read_.tensor_id(),
                          " whose producer never completed");
    case Wait::kRingSpace:
      return absl::StrCat("space in ring ", blocked_ring_);
    case Wait::kPublish:
      return "publishing a task";
    case Wait::kNone:
      return "the next record";
  }
  return "";
}

void Orchestrator::Step() {
  context_->CountActivation();
  if (done_ || !context_->fatal().ok()) return;
  switch (wait_) {
    case Wait::kPublish:
      Publish(pending_publish_);
      pending_publish_ = kNoTask;
      break;
    case Wait::kLaunchDrain:
      if (!LaunchDrained()) return;
      listener_->OnLaunchEnd(launch_, context_->counters());
      break;
    case Wait::kHostRead:
      if (!HostReadSatisfied()) return;
      break;
    case Wait::kRingSpace:
      break;  // Process() re-checks the ring
    case Wait::kNone:
      break;
  }
  if (wait_ != Wait::kRingSpace) wait_ = Wait::kNone;
  while (context_->fatal().ok()) {
    if (!have_record_) {
      if (++records_on_arena_ > kRecordsPerArena) {
        arena_.Reset();
        record_ = google::protobuf::Arena::CreateMessage<trace::StreamRecord>(&arena_);
        records_on_arena_ = 1;
      }
      absl::StatusOr<bool> more = source_->Next(record_);
      // The source's error already names the record; Fail() would repeat it.
      if (!more.ok()) return context_->Fail(more.status());
      if (!*more) {
        done_ = true;
        return;
      }
      have_record_ = true;
    }
    if (!Process()) return;
  }
}

bool Orchestrator::Process() {
  switch (record_->kind_case()) {
    case trace::StreamRecord::kLaunchBegin:
      BeginLaunch(record_->launch_begin());
      break;
    case trace::StreamRecord::kScopeBegin:
      scopes_.push_back(Scope{record_->scope_begin().mode(), record_->scope_begin().depth(), {}});
      break;
    case trace::StreamRecord::kScopeEnd:
      EndScope();
      break;
    case trace::StreamRecord::kAlloc: {
      int64_t heap = 0;
      for (uint32_t id : record_->alloc().tensor_ids()) heap += context_->tensor(id).size_bytes();
      if (!RingHasSpace(heap)) return false;
      have_record_ = false;
      const TimePs cost = Alloc(record_->alloc());
      context_->counters().orchestrator_busy += cost;
      wait_ = Wait::kPublish;  // nothing to publish; just pay the time
      wake_.notify(Ps(cost));
      return false;
    }
    case trace::StreamRecord::kSubmit:
    case trace::StreamRecord::kDummy: {
      if (!RingHasSpace(0)) return false;
      have_record_ = false;
      absl::StatusOr<TimePs> cost =
          record_->has_submit() ? Submit(record_->submit()) : SubmitDummy(record_->dummy());
      if (!cost.ok()) {
        Fail(cost.status());
        return false;
      }
      context_->counters().orchestrator_busy += *cost;
      wait_ = Wait::kPublish;
      wake_.notify(Ps(*cost));
      return false;
    }
    case trace::StreamRecord::kHostRead:
      host_read_ = record_->host_read();
      if (!HostReadSatisfied()) {
        have_record_ = false;
        wait_ = Wait::kHostRead;
        return false;
      }
      break;
    case trace::StreamRecord::kLaunchEnd:
      while (!scopes_.empty()) EndScope();
      have_record_ = false;
      if (!LaunchDrained()) {
        wait_ = Wait::kLaunchDrain;
        return false;
      }
      listener_->OnLaunchEnd(launch_, context_->counters());
      return true;
    case trace::StreamRecord::kCheck:
      listener_->OnCheck(record_->check());
      break;
    case trace::StreamRecord::KIND_NOT_SET:
      Fail(absl::InvalidArgumentError("record has no kind"));
      return false;
  }
  have_record_ = false;
  return true;
}

bool Orchestrator::RingHasSpace(int64_t heap) {
  const Scope& scope = scopes_.back();
  const int ring = RingOf(scope.depth);
  const RingLimits& limits = context_->ring_limits(ring);
  TaskTable& tasks = context_->tasks();
  const bool window_ok = static_cast<int64_t>(tasks.ring_occupancy(ring)) + 1 < limits.task_window;
  const bool heap_ok = context_->ring_heap_used(ring) + heap <= limits.heap_bytes;
  const bool deps_ok = context_->ring_dep_used(ring) < limits.dep_pool;
  if (window_ok && heap_ok && deps_ok) {
    if (wait_ == Wait::kRingSpace) {
      context_->counters().rings[ring].blocked += Now() - blocked_since_;
      wait_ = Wait::kNone;
    }
    return true;
  }
  const char* what = !window_ok ? "task window" : (!heap_ok ? "heap" : "dep pool");
  // A scope can never hold a full window: its tasks keep their scope
  // reference until the scope ends, which the blocked orchestrator cannot
  // reach (the runtime's SCOPE_DEADLOCK, found at submit).
  if (!window_ok && static_cast<int64_t>(scope.tasks.size()) >= limits.task_window - 1) {
    Fail(absl::ResourceExhaustedError(absl::StrCat(
        "ring ", ring, " full (SCOPE_DEADLOCK): the scope at depth ", scope.depth, " holds ",
        scope.tasks.size(), " tasks, but ring ", ring, "'s task window of ", limits.task_window,
        " allows only ", limits.task_window - 1,
        " in flight, and none can retire before the scope ends; split the scope (e.g. a "
        "pl.range loop gives each iteration its own scope) or raise ring.task_window")));
    return false;
  }
  // Structural deadlock: the oldest live task of the ring is pinned by a
  // scope that is still open, so nothing in the ring can ever retire.
  const Task* front = tasks.ring_front(ring);
  if (front != nullptr && !front->scope_released && front->completed && front->retain_pins == 0) {
    Fail(absl::ResourceExhaustedError(absl::StrCat(
        "ring ", ring, " ", what, " full (FLOW_CONTROL_DEADLOCK): its oldest task '", front->name,
        "' (launch index ", front->index_in_launch,
        ") has completed but its scope is still open, and the orchestrator cannot close it "
        "while waiting for space; raise the ring's ",
        what, " or close scopes sooner")));
    return false;
  }
  if (wait_ != Wait::kRingSpace) {
    wait_ = Wait::kRingSpace;
    blocked_since_ = Now();
    blocked_ring_ = ring;
  }
  return false;  // woken when a task retires
}

void Orchestrator::BeginLaunch(const trace::LaunchBegin& begin) {
  ++launch_;
  context_->counters() = LaunchCounters{};
  context_->counters().launch_start = Now();
  context_->deps().Clear();
  launch_first_seq_ = next_seq_;
  std::fill(std::begin(ring_next_local_), std::end(ring_next_local_), 0);
  scopes_.assign(1, Scope{trace::ScopeBegin::AUTO, 0, {}});
  creator_of_tensor_.assign(context_->tensor_count(), std::nullopt);
  listener_->OnLaunchBegin(launch_, begin.name());
}

void Orchestrator::EndScope() {
  Scope scope = std::move(scopes_.back());
  scopes_.pop_back();
  for (TaskSeq seq : scope.tasks) context_->tasks().ReleaseScope(seq);
  context_->tasks().AdvanceWatermarks();
}

bool Orchestrator::LaunchDrained() const { return context_->tasks().live_tasks() == 0; }

bool Orchestrator::HostReadSatisfied() const {
  const trace::Tensor& tensor = context_->tensor(host_read_.tensor_id());
  trace::TensorArg element;
  element.set_tensor_id(tensor.id());
  for (int64_t index : host_read_.indices()) {
    element.add_offsets(index);
    element.add_shape(1);
  }
  absl::StatusOr<TensorView> view = MakeView(tensor, element);
  if (!view.ok()) return true;  // the reader validated the indices
  std::vector<TensorMapMatch> matches;
  context_->deps().tensor_map().Lookup(*view, &matches);
  for (const TensorMapMatch& match : matches) {
    const Task* producer = context_->tasks().Find(match.producer);
    if (producer != nullptr && !producer->completed) return false;
  }
  return true;
}

Task& Orchestrator::NewTask(TaskShape shape, const std::string& name) {
  const int ring = RingOf(scopes_.back().depth);
  Task& task = context_->tasks().Create(next_seq_++, ring);
  LaunchCounters::Ring& stats = context_->counters().rings[ring];
  stats.peak_tasks = std::max<uint64_t>(stats.peak_tasks, context_->tasks().ring_occupancy(ring));
  task.launch = static_cast<uint32_t>(launch_);
  task.index_in_launch = static_cast<uint32_t>(task.seq - launch_first_seq_);
  task.shape = shape;
  task.name = name;
  task.scope_depth = scopes_.back().depth;
  task.runtime_id = (static_cast<uint64_t>(ring) << 32) | ring_next_local_[ring]++;
  task.manual_scope = scopes_.back().mode == trace::ScopeBegin::MANUAL;
  scopes_.back().tasks.push_back(task.seq);
  return task;
}

TimePs Orchestrator::Alloc(const trace::Alloc& alloc) {
  Task& task = NewTask(TaskShape::kAlloc, "alloc");
  ++context_->counters().alloc_tasks;
  for (uint32_t id : alloc.tensor_ids()) {
    creator_of_tensor_[id] = task.seq;
    task.heap_bytes += context_->tensor(id).size_bytes();
  }
  int64_t& heap = context_->ring_heap_used(task.ring);
  heap += task.heap_bytes;
  LaunchCounters::Ring& stats = context_->counters().rings[task.ring];
  stats.peak_heap_bytes = std::max<uint64_t>(stats.peak_heap_bytes, heap);
  // Completed inline by the orchestrator: no scheduler work.
  const TimePs cost = Ns(context_->config().aicpu.alloc_ns);
  task.fanin_pending = 0;
  task.allow_early_resolve = true;  // an alloc never holds up early dispatch
  task.fully_published = true;
  task.times.submit = task.times.ready = Now() + cost;
  context_->observer().OnTaskSubmitted(task, {}, Now(), Now() + cost);
  CompleteTask(*context_, task, Now() + cost);
  return cost;
}

absl::StatusOr<TimePs> Orchestrator::Submit(const trace::Submit& submit) {
  int32_t ids[3] = {submit.kernel_ids(0), submit.kernel_ids(1), submit.kernel_ids(2)};
  Task& task = NewTask(ShapeOf(ids), submit.name());
  ++context_->counters().tasks;
  std::copy(ids, ids + 3, task.kernel_ids);
  task.kernel = ids[0] >= 0 ? ids[0] : (ids[1] >= 0 ? ids[1] : ids[2]);
  task.subtasks_per_block = task.shape == TaskShape::kMix ? 3 : 1;
  task.sync_start = submit.sync_start();
  task.allow_early_resolve = submit.allow_early_resolve();
  switch (submit.blocks_case()) {
    case trace::Submit::kBlockSymbol:
      task.block_num = submit.block_symbol() == trace::AVAILABLE_AIV
                           ? context_->config().aiv_count()
                           : context_->config().aic_count();
      break;
    default:
      task.block_num = submit.block_num();
      break;
  }
  if (task.sync_start && task.block_num > 1) {
    const int64_t width = task.shape == TaskShape::kAiv ? context_->config().aiv_count()
                                                        : context_->config().aic_count();
    if (task.block_num > width) {
      // The runtime refuses it at submit (PTO2_ERROR_REQUIRE_SYNC_START_INVALID).
      return absl::AbortedError(
          absl::StrCat("submit '", task.name, "': sync_start with ", task.block_num,
                       " blocks, but the chip has only ", width,
                       task.shape == TaskShape::kAiv ? " AIV cores" : " clusters",
                       " (REQUIRE_SYNC_START_INVALID): every block must be co-resident"));
    }
  }
  if (submit.has_predicate()) {
    const trace::Predicate& p = submit.predicate();
    const trace::Tensor& tensor = context_->tensor(p.tensor_id());
    int64_t flat = 0;
    for (int d = 0; d < tensor.shape_size(); ++d) flat = flat * tensor.shape(d) + p.indices(d);
    task.predicate.present = true;
    task.predicate.dtype = tensor.dtype();
    task.predicate.addr = tensor.gm_addr() + flat * DTypeSize(tensor.dtype());
    task.predicate.op = p.op();
    task.predicate.target = p.target();
  }
  return InferAndWire(task, submit.args(), submit.deps());
}

absl::StatusOr<TimePs> Orchestrator::SubmitDummy(const trace::Dummy& dummy) {
  Task& task = NewTask(TaskShape::kDummy, dummy.name().empty() ? "dummy" : dummy.name());
  ++context_->counters().dummy_tasks;
  task.allow_early_resolve = dummy.allow_early_resolve();
  return InferAndWire(task, dummy.args(), dummy.deps());
}

absl::StatusOr<TimePs> Orchestrator::InferAndWire(
    Task& task, const google::protobuf::RepeatedPtrField<trace::Arg>& args,
    const google::protobuf::RepeatedField<uint32_t>& deps) {
  dep_args_.clear();
  dep_arg_to_task_arg_.clear();
  task.args.clear();
  task.args.reserve(args.size());
  for (const trace::Arg& arg : args) {
    TaskArg& out = task.args.emplace_back();
    if (arg.has_scalar()) {
      out.scalar_is_float = arg.scalar().value_case() == trace::ScalarArg::kF;
      out.scalar_f = arg.scalar().f();
      out.scalar_i = arg.scalar().i();
      continue;
    }
    const trace::TensorArg& tensor_arg = arg.tensor();
    const trace::Tensor& tensor = context_->tensor(tensor_arg.tensor_id());
    absl::StatusOr<TensorView> view = MakeView(tensor, tensor_arg);
    if (!view.ok()) return view.status();
    out.is_tensor = true;
    out.view = *view;
    out.direction = tensor_arg.direction();
    DepArg& dep = dep_args_.emplace_back();
    dep.view = *view;
    dep.direction = tensor_arg.direction();
    dep.manual_dep = tensor.manual_dep();
    dep.creator = creator_of_tensor_[tensor.id()];
    dep_arg_to_task_arg_.push_back(static_cast<int>(task.args.size() - 1));
    if (tensor_arg.direction() == trace::OUTPUT) creator_of_tensor_[tensor.id()] = task.seq;
  }
  explicit_deps_.clear();
  for (uint32_t index : deps) explicit_deps_.push_back(launch_first_seq_ + index);

  InferStats stats;
  const trace::ScopeBegin::Mode mode =
      task.manual_scope ? trace::ScopeBegin::MANUAL : trace::ScopeBegin::AUTO;
  context_->deps().Infer(task.seq, mode, dep_args_, explicit_deps_, &edges_, &stats);
  for (DepEdge& edge : edges_) {
    if (edge.arg_index >= 0) edge.arg_index = dep_arg_to_task_arg_[edge.arg_index];
    context_->observer().OnEdge(task, edge);
  }
  context_->counters().edges += edges_.size();
  UniqueProducers(task.seq, edges_, &producers_);
  task.producers = static_cast<int64_t>(producers_.size());
  TaskTable& tasks = context_->tasks();
  for (TaskSeq seq : producers_) {
    // Creator and explicit edges retain their producer; tensor-map edges
    // only wait (deps.json flags).
    bool retain = false;
    for (const DepEdge& edge : edges_) {
      retain |= edge.producer == seq && edge.source != EdgeSource::kTensorMap;
    }
    Task* producer = tasks.Find(seq);
    if (tasks.AddDependencyOnFound(producer, task, retain)) {
      // Early dispatch needs every unfinished producer flagged.
      if (producer->allow_early_resolve && producer->shape != TaskShape::kDummy) {
        if (!producer->fully_published) ++task.early_waiting;
      } else {
        task.early_blocked = true;
      }
    }
  }
  task.dep_entries = task.fanin_pending - 1;
  int64_t& deps_used = context_->ring_dep_used(task.ring);
  deps_used += task.dep_entries;
  LaunchCounters& counters = context_->counters();
  counters.rings[task.ring].peak_dep_entries =
      std::max<uint64_t>(counters.rings[task.ring].peak_dep_entries, deps_used);

  pending_publish_ = task.seq;
  const AicpuParams& aicpu = context_->config().aicpu;
  const TimePs base = Ns(aicpu.submit_base_ns);
  const TimePs param_copy = Ns(aicpu.submit_per_tensor_arg_ns * stats.tensor_args);
  const TimePs lookup = Ns(aicpu.submit_per_lookup_ns * stats.lookups +
                           aicpu.submit_per_probe_ns * static_cast<double>(stats.entries_probed));
  const TimePs insert = Ns(aicpu.submit_per_insert_ns * stats.registrations);
  counters.submit_base += base;
  counters.submit_param_copy += param_copy;
  counters.submit_lookup += lookup;
  counters.submit_insert += insert;
  ++counters.submits;
  const TimePs cost = base + param_copy + lookup + insert;
  context_->observer().OnTaskSubmitted(task, edges_, Now(), Now() + cost);
  return cost;
}

void Orchestrator::Publish(TaskSeq seq) {
  if (seq == kNoTask) return;  // an alloc: completed inline already
  Task* task = context_->tasks().Find(seq);
  const TimePs now = Now();
  task->times.submit = now;
  if (TaskTable::ReleaseFanin(*task)) {
    RouteReady(*context_, *task, now);
    signals_->WakeSchedulers(now);
  } else {
    MaybeQueueEarly(*context_, *task, now);
  }
}

}  // namespace pto
