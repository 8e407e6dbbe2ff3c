#ifndef PTO_MODELS_AICPU_ORCHESTRATOR_H_
#define PTO_MODELS_AICPU_ORCHESTRATOR_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/arena.h"
#include "models/aicpu/runtime_signals.h"
#include "models/chip_context.h"
#include "proto/task_stream.pb.h"
#include "systemc"

namespace pto {

// Where the orchestrator's records come from (the trace reader, streaming).
class RecordSource {
 public:
  virtual ~RecordSource() = default;
  // False at the end of the stream.
  virtual absl::StatusOr<bool> Next(trace::StreamRecord* record) = 0;
  // Where the last record came from, for messages.
  virtual std::string Where() const = 0;
};

// Told about launch boundaries and checks as the orchestrator reaches them.
class LaunchListener {
 public:
  virtual ~LaunchListener() = default;
  virtual void OnLaunchBegin(int launch, const std::string& name) = 0;
  // Every task of the launch has retired; counters are final.
  virtual void OnLaunchEnd(int launch, const LaunchCounters& counters) = 0;
  // A check record; the launch it follows has fully retired.
  virtual void OnCheck(const trace::Check& check) = 0;
};

// The AICPU orchestrator thread: it replays the launch records, submitting
// each task (dependency inference through the tensor map, fan-in wiring,
// readiness publication) and charging the per-submit cost on its own time.
class Orchestrator : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Orchestrator);

  Orchestrator(sc_core::sc_module_name name, ChipContext* context, RuntimeSignals* signals,
               RecordSource* source, LaunchListener* listener);

  void Wake();
  bool done() const { return done_; }
  // Why the orchestrator is not done, for deadlock reports.
  std::string WaitingFor() const;

 private:
  struct Scope {
    trace::ScopeBegin::Mode mode = trace::ScopeBegin::AUTO;
    uint32_t depth = 0;
    std::vector<TaskSeq> tasks;
  };
  enum class Wait { kNone, kPublish, kLaunchDrain, kHostRead, kRingSpace };

  void Step();
  TimePs Now() const;
  // Handles record_; returns false when the orchestrator must stop this
  // activation (it charged time, blocks, or failed).
  bool Process();
  // Whether the current scope's ring can take one more task with `heap`
  // output bytes; when not, either waits or fails with the runtime's
  // deadlock classification.
  bool RingHasSpace(int64_t heap);
  // Each returns the orchestrator time the record costs, or an error.
  absl::StatusOr<TimePs> Submit(const trace::Submit& submit);
  absl::StatusOr<TimePs> SubmitDummy(const trace::Dummy& dummy);
  TimePs Alloc(const trace::Alloc& alloc);
  void BeginLaunch(const trace::LaunchBegin& begin);
  void EndScope();
  bool LaunchDrained() const;
  bool HostReadSatisfied() const;
  // Creates a task in the current scope with the next sequence number.
  Task& NewTask(TaskShape shape, const std::string& name);
  absl::StatusOr<TimePs> InferAndWire(Task& task,
                                      const google::protobuf::RepeatedPtrField<trace::Arg>& args,
                                      const google::protobuf::RepeatedField<uint32_t>& deps);
  void Publish(TaskSeq seq);
  void Fail(absl::Status status);

  ChipContext* context_;
  RuntimeSignals* signals_;
  RecordSource* source_;
  LaunchListener* listener_;
  sc_core::sc_event wake_;
  // Records are parsed into an arena, reset every kRecordsPerArena records:
  // a heap message frees and reallocates its oneof payload on every parse.
  static constexpr int kRecordsPerArena = 1024;
  google::protobuf::Arena arena_;
  trace::StreamRecord* record_;
  int records_on_arena_ = 0;
  bool have_record_ = false;  // record_ is read but not yet processed
  Wait wait_ = Wait::kNone;
  TimePs blocked_since_ = 0;
  int blocked_ring_ = 0;
  TaskSeq pending_publish_ = kNoTask;
  trace::HostRead host_read_;
  bool done_ = false;
  int launch_ = -1;
  TaskSeq launch_first_seq_ = 0;
  TaskSeq next_seq_ = 0;
  std::vector<Scope> scopes_;  // [0] is the launch's implicit outer scope
  uint32_t ring_next_local_[4] = {};
  std::vector<std::optional<TaskSeq>> creator_of_tensor_;
  // Reused per submit.
  std::vector<DepArg> dep_args_;
  std::vector<int> dep_arg_to_task_arg_;
  std::vector<TaskSeq> explicit_deps_;
  std::vector<DepEdge> edges_;
  std::vector<TaskSeq> producers_;
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_ORCHESTRATOR_H_
