#ifndef PTO_MODELS_RUN_OBSERVER_H_
#define PTO_MODELS_RUN_OBSERVER_H_

#include <array>
#include <cstdint>

#include "absl/types/span.h"
#include "models/aicpu/dep_inference.h"
#include "models/aicpu/task.h"

namespace pto {

// One block (or one core's share of a MIX block) on one core.
struct CoreInterval {
  int32_t core = -1;
  TaskSeq task = kNoTask;
  int64_t block = 0;
  uint32_t reg_task_id = 0;  // per-core dispatch token, unique on that core
  int32_t thread = -1;       // the scheduler thread that dispatched it
  TimePs dispatch = 0;       // the scheduler's dispatch register write
  TimePs receive = 0;        // the core saw the dispatch
  TimePs start = 0;          // the kernel started
  TimePs end = 0;            // the kernel ended (FIN raised)
  TimePs finish = 0;         // the scheduler observed the FIN
};

// A stretch of one engine's busy time inside a MIX block, on the core that
// runs it: the cube on the AIC, the vector side on each AIV.
struct EngineInterval {
  int32_t core = -1;
  TaskSeq task = kNoTask;
  int64_t block = 0;
  bool cube = false;
  TimePs start = 0;
  TimePs end = 0;
};

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

// What the chip tells the outside world as the run goes. The output writers
// implement it; the models never format output themselves. Every callback has
// a default so writers take only what they need.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // The orchestrator submitted `task` between `start` and `end`; `edges` are
  // every inferred edge reason (arg_index is the task's argument index).
  virtual void OnTaskSubmitted(const Task& task, absl::Span<const DepEdge> edges, TimePs start,
                               TimePs end) {}
  virtual void OnEdge(const Task& consumer, const DepEdge& edge) {}
  // A core interval, reported when the scheduler observed its FIN.
  virtual void OnCoreInterval(const CoreInterval& interval) {}
  virtual void OnSchedulerPhase(const SchedulerPhase& phase) {}
  // A MIX block's engine was busy (reported when the core's segment ends).
  virtual void OnEngineBusy(const EngineInterval& interval) {}
  // A dummy or predicate-false task retired inline by a scheduler thread.
  virtual void OnInlineRetire(int thread, const Task& task, TimePs at) {}
  // A core's kernel touched GM on behalf of `task` (block `block`): every
  // load row, store row and atomic add, as the executor issued it.
  enum class GmAccess : uint8_t { kRead, kWrite, kAtomicAdd };
  virtual void OnGmAccess(TaskSeq task, int64_t block, int core, GmAccess kind, uint64_t addr,
                          uint64_t size) {}
  // A core's kernel ordered or published GM data between the blocks of
  // `task`: a dcci over the whole cache or over the line holding `addr`, a
  // fence, or arriving at a syncall; in the block's program order with its
  // OnGmAccess calls.
  enum class BlockSync : uint8_t { kCacheInvalidAll, kCacheInvalidLine, kFence, kSyncall };
  virtual void OnBlockSync(TaskSeq task, int64_t block, int core, BlockSync kind, uint64_t addr) {}
  // A task left the in-flight window; its times are final.
  virtual void OnTaskRetired(const Task& task) {}
};

}  // namespace pto

#endif  // PTO_MODELS_RUN_OBSERVER_H_
