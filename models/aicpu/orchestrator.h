#ifndef PTO_MODELS_AICPU_ORCHESTRATOR_H_
#define PTO_MODELS_AICPU_ORCHESTRATOR_H_

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "models/aicpu/aicpu_observer.h"
#include "models/aicpu/dep_inference.h"
#include "models/aicpu/ring_pool.h"
#include "models/aicpu/runtime_signals.h"
#include "models/aicpu/submitter.h"
#include "models/aicpu/task_lifecycle.h"
#include "models/aicpu/task_table.h"
#include "models/base/calendar.h"
#include "models/base/chip_config.h"
#include "models/base/run_failure.h"
#include "proto/task_stream.pb.h"

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

// Told about launch boundaries and checks as the orchestrator reaches them
// (the chip, which resets every component's counters when a launch begins
// and collects them when it ends).
class LaunchEvents {
 public:
  virtual ~LaunchEvents() = default;
  // The orchestrator has reset its own counters and its rings'.
  virtual void OnLaunchBegin(int launch, const std::string& name) = 0;
  // Every task of the launch has retired; counters are final.
  virtual void OnLaunchEnd(int launch) = 0;
  // A check record; the launch it follows has fully retired.
  virtual void OnCheck(const trace::Check& check) = 0;
};

// The orchestrator's counters of the current launch.
struct OrchestratorCounters {
  TimePs launch_start = 0;
  uint64_t tasks = 0;  // submits (dummies and allocs counted apart)
  uint64_t dummy_tasks = 0;
  uint64_t alloc_tasks = 0;
  uint64_t edges = 0;  // inferred edge records (before de-duplication)
  TimePs busy = 0;
  // The submit time by part, summed over the costed submits and dummies.
  SubmitCost submit;
  uint64_t submits = 0;
};

// What the orchestrator is wired to; everything outlives it.
struct OrchestratorEnv {
  Calendar* calendar = nullptr;               // keeps the orchestrator's time
  const ChipConfig* config = nullptr;         // submit costs, aicpu.alloc_ns
  std::vector<const trace::Tensor*> tensors;  // the header's, by id
  std::array<RingLimits, kNumRings> ring_limits;
  // A launch's own ring sizes (LaunchBegin.ring_sizes) as limits; unset:
  // every launch has `ring_limits`.
  std::function<std::array<RingLimits, kNumRings>(const trace::RingSizes&)> launch_ring_limits;
  TaskTable* tasks = nullptr;
  DependencyInference* deps = nullptr;
  TaskLifecycle* lifecycle = nullptr;
  RuntimeSignals* signals = nullptr;
  AicpuObserver* observer = nullptr;
  RunFailure* failure = nullptr;
  RecordSource* source = nullptr;
  LaunchEvents* events = nullptr;
};

// The AICPU orchestrator thread: it replays the launch records and owns their
// time. The decisions are the plain classes': Submitter turns each record into
// a wired task and says what it costs, RingPool admits it to its ring and
// classifies a wait that can never end. This class streams the records,
// waits (for ring space, a host read, the end of a launch), charges the
// costs on its own time (the calendar's wakes), publishes tasks and notifies
// the observer and the launch events. It starts at time zero.
class Orchestrator : private Calendar::Client {
 public:
  Orchestrator(absl::string_view name, const OrchestratorEnv& env);

  void Wake();
  bool done() const { return done_; }
  // A tensor a Declare record added after the header (the next id).
  void AddTensor(const trace::Tensor* tensor) { submitter_.AddTensor(tensor); }
  // This launch's counters (reset when it begins) and ring statistics.
  const OrchestratorCounters& counters() const { return counters_; }
  const RingPool& rings() const { return rings_; }
  // Why the orchestrator is not done, for deadlock reports.
  std::string WaitingFor() const;

 private:
  enum class Wait { kNone, kPublish, kLaunchDrain, kHostRead, kRingSpace, kDepPool };

  // Calendar::Client: goes on with the records.
  void OnWake(TimePs now) override;
  TimePs Now() const { return calendar_.now(); }
  // Handles record_; returns false when the orchestrator must stop this
  // activation (it charged time, blocks, or failed).
  bool Process();
  // Tells the observer what the host read that now proceeds reads and waited for.
  void ReportHostRead();
  // Whether the next task, with `heap` output bytes, can enter its ring now;
  // when not, either waits or fails with the runtime's deadlock
  // classification.
  bool RingAdmits(int64_t heap);
  // Gives the wired task of submitting_ its dep-list entries, then pays for
  // the submit and publishes the task after; or waits for dep-pool space, or
  // fails with the runtime's classification.
  void HoldDepEntriesAndCharge();
  void BeginLaunch(const trace::LaunchBegin& begin);
  // Every task of the launch has retired: tells the launch's end.
  void EndLaunch();
  bool LaunchDrained() const;
  void Publish(TaskSeq seq);
  void Fail(absl::Status status);

  Calendar& calendar_;
  Calendar::ClientId wake_;
  const ChipConfig& config_;
  TaskTable& tasks_;
  DependencyInference& deps_;
  TaskLifecycle& lifecycle_;
  RuntimeSignals& signals_;
  AicpuObserver& observer_;
  RunFailure& failure_;
  RecordSource* source_;
  LaunchEvents* events_;
  OrchestratorCounters counters_;
  RingPool rings_;
  const std::array<RingLimits, kNumRings> ring_limits_;  // a launch's without its own sizes
  const std::function<std::array<RingLimits, kNumRings>(const trace::RingSizes&)>
      launch_ring_limits_;
  Submitter submitter_;
  // One record, reused: the binary source merges each submit into the last
  // one's cleared fields, so steady-state parsing does not allocate.
  trace::StreamRecord record_;
  bool have_record_ = false;  // record_ is read but not yet processed
  Wait wait_ = Wait::kNone;
  Submission submitting_;              // the submit waiting for its dep-list entries (kDepPool)
  TaskSeq pending_publish_ = kNoTask;  // published at the kPublish wake-up; none after an alloc
  trace::HostRead host_read_;
  bool done_ = false;
  int launch_ = -1;
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_ORCHESTRATOR_H_
