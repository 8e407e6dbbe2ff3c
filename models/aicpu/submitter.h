#ifndef PTO_MODELS_AICPU_SUBMITTER_H_
#define PTO_MODELS_AICPU_SUBMITTER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "models/aicpu/dep_inference.h"
#include "models/aicpu/task.h"
#include "models/aicpu/task_table.h"
#include "models/base/chip_config.h"
#include "proto/task_stream.pb.h"

namespace pto {

// What one submit costs the orchestrator, by part (LaunchCounters' submit_* fields; the
// runtime's split in hw-native-sys/simpler@6ebaf771
// src/a2a3/runtime/tensormap_and_ringbuffer/docs/device_log_profiling.md).
struct SubmitCost {
  TimePs base = 0;        // aicpu.submit_base_ns
  TimePs param_copy = 0;  // aicpu.submit_per_tensor_arg_ns per tensor argument
  TimePs lookup = 0;      // per tensor-map lookup and per entry probed
  TimePs insert = 0;      // per tensor-map registration
  TimePs total() const { return base + param_copy + lookup + insert; }
};

// A submit or dummy turned into a wired task.
struct Submission {
  Task* task = nullptr;
  // Every edge inference found, in the runtime's order (deps.json), with
  // arg_index into task->args; valid until the next submit.
  absl::Span<const DepEdge> edges;
  SubmitCost cost;
  // The dep-list entries the runtime reserves before it links the task to
  // its producers (PTO2DepListPool::ensure_space(wait_count)): one per
  // producer claimed at submit (not yet retired), none when every claimed
  // producer has already completed. The task then holds DepListEntries().
  int64_t dep_entries_needed = 0;
};

// The orchestrator's submit path (submit_task_common) without its time:
// turns submit, dummy and alloc records into tasks of the task table — shape,
// kernels, blocks, arguments, the resolved dispatch predicate, the
// sync_start check — infers their dependencies (DependencyInference), wires
// them to their producers and says what the submit costs. It keeps the
// launch's scopes and which task created each tensor. The caller admits each
// task to its ring (RingPool) before, and charges the cost, notifies the
// observer and publishes the task after.
class Submitter {
 public:
  // `tensors[id]` is the header's tensor `id`; all four outlive the Submitter.
  Submitter(const ChipConfig& config, std::vector<const trace::Tensor*> tensors, TaskTable& tasks,
            DependencyInference& deps);

  // A tensor declared after the header (a Declare record): id tensors().size().
  void AddTensor(const trace::Tensor* tensor) { tensors_.push_back(tensor); }

  // Launch `launch` begins (its first task is the table's next): only the
  // implicit outer scope (depth 0) is open and no tensor has a creator.
  void BeginLaunch(uint32_t launch);
  void OpenScope(trace::ScopeBegin::Mode mode, uint32_t depth);
  // scope_end: releases the scope reference of each of its tasks and retires
  // what that frees.
  void CloseScope();
  bool scope_open() const { return !scopes_.empty(); }
  // The innermost open scope, which the next task enters from.
  uint32_t scope_depth() const { return scopes_.back().depth; }
  size_t scope_tasks() const { return scopes_.back().tasks.size(); }
  // The ring the next task enters: min(scope depth, 3).
  int ring() const { return RingOf(scopes_.back().depth); }

  // The heap bytes an alloc asks of its ring: the sizes of its tensors.
  int64_t AllocHeapBytes(const trace::Alloc& alloc) const;
  // An alloc_tensors task: it creates its tensors and holds their bytes in
  // its ring's heap. It has no producers and no scheduler work; the caller
  // completes it inline.
  Task& Alloc(const trace::Alloc& alloc);
  // A kernel task. Fails, with the runtime's reason, when a sync_start
  // cohort cannot be co-resident (REQUIRE_SYNC_START_INVALID) or an argument
  // names no valid view.
  absl::StatusOr<Submission> Submit(const trace::Submit& submit);
  // A dependency-only task.
  absl::StatusOr<Submission> SubmitDummy(const trace::Dummy& dummy);

  // The dep-list entries a wired task holds: one per producer it still
  // waits on (fanin_pending's extra count is the publish hold).
  static int64_t DepListEntries(const Task& task) { return task.fanin_pending - 1; }

  // Whether every producer of the host read's element has completed (the
  // orchestrator's blocking read waits until then).
  bool HostReadReady(const trace::HostRead& read) const;
  // The GM bytes a host read reads, and the registered producers it waits
  // for (those still in flight and those retired alike).
  struct HostReadTarget {
    uint64_t addr = 0;
    uint64_t size = 0;
    std::vector<TaskSeq> producers;
  };
  HostReadTarget TargetOf(const trace::HostRead& read) const;

 private:
  struct Scope {
    trace::ScopeBegin::Mode mode = trace::ScopeBegin::AUTO;
    uint32_t depth = 0;
    std::vector<TaskSeq> tasks;
  };

  const trace::Tensor& tensor(uint32_t id) const { return *tensors_[id]; }
  // Creates a task in the current scope with the next sequence number.
  Task& NewTask(TaskShape shape, const std::string& name);
  absl::StatusOr<Submission> InferAndWire(
      Task& task, const google::protobuf::RepeatedPtrField<trace::Arg>& args,
      const google::protobuf::RepeatedField<uint32_t>& deps);

  const ChipConfig& config_;
  std::vector<const trace::Tensor*> tensors_;
  TaskTable& tasks_;
  DependencyInference& deps_;
  uint32_t launch_ = 0;
  TaskSeq launch_first_seq_ = 0;
  std::vector<Scope> scopes_;  // [0] is the launch's implicit outer scope
  std::vector<std::optional<TaskSeq>> creator_of_tensor_;
  // Reused per submit.
  std::vector<DepArg> dep_args_;
  std::vector<int> dep_arg_to_task_arg_;
  std::vector<TaskSeq> explicit_deps_;
  std::vector<DepEdge> edges_;
  std::vector<TaskSeq> producers_;
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_SUBMITTER_H_
