#include "models/aicpu/submitter.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "models/aicpu/tensor_map.h"
#include "models/aicpu/tensor_view.h"
#include "models/base/time.h"

namespace pto {
namespace {

TaskShape ShapeOf(const int32_t kernel_ids[3]) {
  const bool aic = kernel_ids[0] >= 0;
  const bool aiv = kernel_ids[1] >= 0 || kernel_ids[2] >= 0;
  if (aic && aiv) return TaskShape::kMix;
  return aic ? TaskShape::kAic : TaskShape::kAiv;
}

}  // namespace

Submitter::Submitter(const ChipConfig& config, std::vector<const trace::Tensor*> tensors,
                     TaskTable& tasks, DependencyInference& deps)
    : config_(config), tensors_(std::move(tensors)), tasks_(tasks), deps_(deps) {}

void Submitter::BeginLaunch(uint32_t launch) {
  launch_ = launch;
  launch_first_seq_ = tasks_.next_seq();
  scopes_.assign(1, Scope{trace::ScopeBegin::AUTO, 0, {}});
  creator_of_tensor_.assign(tensors_.size(), std::nullopt);
}

void Submitter::OpenScope(trace::ScopeBegin::Mode mode, uint32_t depth) {
  scopes_.push_back(Scope{mode, depth, {}});
}

void Submitter::CloseScope() {
  Scope scope = std::move(scopes_.back());
  scopes_.pop_back();
  for (TaskSeq seq : scope.tasks) tasks_.ReleaseScope(seq);
  tasks_.AdvanceWatermarks();
}

Task& Submitter::NewTask(TaskShape shape, const std::string& name) {
  Scope& scope = scopes_.back();
  Task& task = tasks_.Create(tasks_.next_seq(), RingOf(scope.depth));
  task.launch = launch_;
  task.index_in_launch = static_cast<uint32_t>(task.seq - launch_first_seq_);
  task.shape = shape;
  task.name = name;
  task.origin.clear();
  task.scope_depth = scope.depth;
  task.manual_scope = scope.mode == trace::ScopeBegin::MANUAL;
  scope.tasks.push_back(task.seq);
  return task;
}

int64_t Submitter::AllocHeapBytes(const trace::Alloc& alloc) const {
  int64_t heap = 0;
  for (uint32_t id : alloc.tensor_ids()) heap += tensor(id).size_bytes();
  return heap;
}

Task& Submitter::Alloc(const trace::Alloc& alloc) {
  Task& task = NewTask(TaskShape::kAlloc, "alloc");
  for (uint32_t id : alloc.tensor_ids()) {
    creator_of_tensor_[id] = task.seq;
    task.heap_bytes += tensor(id).size_bytes();
  }
  task.fanin_pending = 0;
  task.allow_early_resolve = true;  // an alloc never holds up early dispatch
  task.fully_published = true;
  return task;
}

absl::StatusOr<Submission> Submitter::Submit(const trace::Submit& submit) {
  int32_t ids[3] = {submit.kernel_ids(0), submit.kernel_ids(1), submit.kernel_ids(2)};
  Task& task = NewTask(ShapeOf(ids), submit.name());
  task.origin = submit.origin();
  std::copy(ids, ids + 3, task.kernel_ids);
  task.kernel = ids[0] >= 0 ? ids[0] : (ids[1] >= 0 ? ids[1] : ids[2]);
  task.subtasks_per_block = task.shape == TaskShape::kMix ? 3 : 1;
  task.sync_start = submit.sync_start();
  task.allow_early_resolve = submit.allow_early_resolve();
  switch (submit.blocks_case()) {
    case trace::Submit::kBlockSymbol:
      task.block_num =
          submit.block_symbol() == trace::AVAILABLE_AIV ? config_.aiv_count() : config_.aic_count();
      break;
    default:
      task.block_num = submit.block_num();
      break;
  }
  if (task.sync_start && task.block_num > 1) {
    const int64_t width = task.shape == TaskShape::kAiv ? config_.aiv_count() : config_.aic_count();
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
    const trace::Tensor& t = tensor(p.tensor_id());
    int64_t flat = 0;
    for (int d = 0; d < t.shape_size(); ++d) flat = flat * t.shape(d) + p.indices(d);
    task.predicate.present = true;
    task.predicate.dtype = t.dtype();
    task.predicate.addr = t.gm_addr() + flat * DTypeSize(t.dtype());
    task.predicate.op = p.op();
    task.predicate.target = p.target();
  }
  return InferAndWire(task, submit.args(), submit.deps());
}

absl::StatusOr<Submission> Submitter::SubmitDummy(const trace::Dummy& dummy) {
  Task& task = NewTask(TaskShape::kDummy, dummy.name().empty() ? "dummy" : dummy.name());
  task.origin = dummy.origin();
  task.allow_early_resolve = dummy.allow_early_resolve();
  return InferAndWire(task, dummy.args(), dummy.deps());
}

absl::StatusOr<Submission> Submitter::InferAndWire(
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
    const trace::Tensor& t = tensor(tensor_arg.tensor_id());
    absl::StatusOr<TensorView> view = MakeView(t, tensor_arg);
    if (!view.ok()) return view.status();
    out.is_tensor = true;
    out.view = *view;
    out.direction = tensor_arg.direction();
    DepArg& dep = dep_args_.emplace_back();
    dep.view = *view;
    dep.direction = tensor_arg.direction();
    dep.manual_dep = t.manual_dep();
    dep.creator = creator_of_tensor_[t.id()];
    dep_arg_to_task_arg_.push_back(static_cast<int>(task.args.size() - 1));
    if (tensor_arg.direction() == trace::OUTPUT) creator_of_tensor_[t.id()] = task.seq;
  }
  explicit_deps_.clear();
  for (uint32_t index : deps) explicit_deps_.push_back(launch_first_seq_ + index);

  InferStats stats;
  const trace::ScopeBegin::Mode mode =
      task.manual_scope ? trace::ScopeBegin::MANUAL : trace::ScopeBegin::AUTO;
  deps_.Infer(task.seq, mode, dep_args_, explicit_deps_, &edges_, &stats);
  for (DepEdge& edge : edges_) {
    if (edge.arg_index >= 0) edge.arg_index = dep_arg_to_task_arg_[edge.arg_index];
  }
  UniqueProducers(task.seq, edges_, &producers_);
  task.producers = static_cast<int64_t>(producers_.size());
  int64_t claimed = 0;
  for (TaskSeq seq : producers_) {
    // Creator and explicit edges retain their producer; tensor-map edges
    // only wait (deps.json flags).
    bool retain = false;
    for (const DepEdge& edge : edges_) {
      retain |= edge.producer == seq && edge.source != EdgeSource::kTensorMap;
    }
    Task* producer = tasks_.Find(seq);
    claimed += producer != nullptr;
    if (tasks_.AddDependencyOnFound(producer, task, retain)) {
      // Early dispatch needs every unfinished producer flagged.
      if (producer->allow_early_resolve && producer->shape != TaskShape::kDummy) {
        if (!producer->fully_published) ++task.early_waiting;
      } else {
        task.early_blocked = true;
      }
    }
  }

  const AicpuParams& aicpu = config_.aicpu;
  Submission submission;
  submission.task = &task;
  submission.edges = edges_;
  submission.dep_entries_needed = DepListEntries(task) > 0 ? claimed : 0;
  submission.cost.base = Ns(aicpu.submit_base_ns);
  submission.cost.param_copy = Ns(aicpu.submit_per_tensor_arg_ns * stats.tensor_args);
  submission.cost.lookup =
      Ns(aicpu.submit_per_lookup_ns * stats.lookups +
         aicpu.submit_per_probe_ns * static_cast<double>(stats.entries_probed));
  submission.cost.insert = Ns(aicpu.submit_per_insert_ns * stats.registrations);
  return submission;
}

bool Submitter::HostReadReady(const trace::HostRead& read) const {
  for (TaskSeq seq : TargetOf(read).producers) {
    const Task* producer = tasks_.Find(seq);
    if (producer != nullptr && !producer->completed) return false;
  }
  return true;
}

Submitter::HostReadTarget Submitter::TargetOf(const trace::HostRead& read) const {
  HostReadTarget target;
  const trace::Tensor& t = tensor(read.tensor_id());
  trace::TensorArg element;
  element.set_tensor_id(t.id());
  for (int64_t index : read.indices()) {
    element.add_offsets(index);
    element.add_shape(1);
  }
  absl::StatusOr<TensorView> view = MakeView(t, element);
  if (!view.ok()) return target;  // the reader validated the indices
  target.addr = view->first_byte();
  target.size = view->end_byte() - view->first_byte();
  std::vector<TensorMapMatch> matches;
  deps_.tensor_map().Lookup(*view, &matches);
  for (const TensorMapMatch& match : matches) target.producers.push_back(match.producer);
  return target;
}

}  // namespace pto
