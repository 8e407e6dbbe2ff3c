#ifndef PTO_MODELS_AICPU_AICPU_OBSERVER_H_
#define PTO_MODELS_AICPU_AICPU_OBSERVER_H_

// What the AICPU runtime (orchestrator, scheduler threads, task window)
// tells the outside world as the run goes. The chip's RunObserver
// (models/run_observer.h) is one of these; so is a test's recorder.

#include <array>
#include <cstdint>
#include <string>

#include "absl/types/span.h"
#include "models/aicpu/dep_inference.h"
#include "models/aicpu/task.h"
#include "models/core/core_observer.h"

namespace pto {

// The outer phases of a scheduler loop iteration (swimlane level 3), named as
// the runtime's records name them.
enum class SchedulerPhaseKind : uint8_t {
  kComplete,
  kDummy,
  kDispatch,
  kEarlyDispatch,
  kDrain,
  kRelease,
};
// The runtime's record names for the phases (hw-native-sys/simpler@6ebaf771
// docs/dfx/chip-swimlane-profiling.md).
inline const char* SchedulerPhaseName(SchedulerPhaseKind kind) {
  switch (kind) {
    case SchedulerPhaseKind::kComplete:
      return "complete";
    case SchedulerPhaseKind::kDummy:
      return "dummy";
    case SchedulerPhaseKind::kDispatch:
      return "dispatch";
    case SchedulerPhaseKind::kEarlyDispatch:
      return "early_dispatch";
    case SchedulerPhaseKind::kDrain:
      return "drain";
    case SchedulerPhaseKind::kRelease:
      return "release";
  }
  return "unknown";
}

struct SchedulerPhase {
  int32_t thread = 0;
  SchedulerPhaseKind kind = SchedulerPhaseKind::kComplete;
  TimePs start = 0;
  TimePs end = 0;
  uint64_t loop_iter = 0;
  uint32_t tasks_processed = 0;
  uint32_t pop_hit = 0;                          // dispatch only
  uint32_t pop_miss = 0;                         // dispatch only
  std::array<uint32_t, 3> shared_at_start = {};  // ready-queue depth [AIC, AIV, MIX]
  std::array<uint32_t, 3> shared_at_end = {};
};

// Every callback has a default so observers take only what they need.
class AicpuObserver {
 public:
  virtual ~AicpuObserver() = default;
  // The orchestrator submitted `task` between `start` and `end`; `edges` are
  // every inferred edge reason (arg_index is the task's argument index).
  virtual void OnTaskSubmitted(const Task& task, absl::Span<const DepEdge> edges, TimePs start,
                               TimePs end) {}
  virtual void OnEdge(const Task& consumer, const DepEdge& edge) {}
  // A core interval, reported when the scheduler observed its FIN.
  virtual void OnCoreInterval(const CoreInterval& interval) {}
  virtual void OnSchedulerPhase(const SchedulerPhase& phase) {}
  // A dummy or predicate-false task retired inline by a scheduler thread.
  virtual void OnInlineRetire(int thread, const Task& task, TimePs at) {}
  // Every block of `task` finished (or it was skipped): it makes no more
  // GM accesses.
  virtual void OnTaskCompleted(const Task& task) {}
  // A task left the in-flight window; its times are final.
  virtual void OnTaskRetired(const Task& task) {}
  // The orchestration read [addr, addr + size) of a tensor after waiting for
  // `waited`, the element's registered producers; `origin` is its source
  // line. It comes after every task submitted before it.
  virtual void OnHostRead(uint64_t addr, uint64_t size, absl::Span<const TaskSeq> waited,
                          const std::string& origin) {}
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_AICPU_OBSERVER_H_
