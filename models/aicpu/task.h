#ifndef PTO_MODELS_AICPU_TASK_H_
#define PTO_MODELS_AICPU_TASK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "models/aicpu/tensor_view.h"
#include "models/base/ids.h"
#include "models/base/time.h"
#include "proto/task_stream.pb.h"

namespace pto {

// Which ready queue a task goes to and which cores it occupies.
enum class TaskShape : uint8_t { kAic = 0, kAiv = 1, kMix = 2, kDummy = 3, kAlloc = 4 };
inline constexpr int kNumCoreShapes = 3;  // AIC, AIV, MIX

const char* TaskShapeName(TaskShape shape);

// One argument of a submitted task: a view of a tensor or a scalar.
struct TaskArg {
  bool is_tensor = false;
  TensorView view;
  trace::ArgDirection direction = trace::ARG_DIRECTION_UNSPECIFIED;
  int64_t scalar_i = 0;
  double scalar_f = 0.0;
  bool scalar_is_float = false;
};

struct ResolvedPredicate {
  bool present = false;
  uint64_t addr = 0;
  trace::DType dtype = trace::DTYPE_UNSPECIFIED;
  trace::Predicate::Op op = trace::Predicate::OP_UNSPECIFIED;
  int64_t target = 0;
};

// When things happened to a task, for stats and swimlanes. kNever = did not.
struct TaskTimes {
  TimePs submit = kNever;          // orchestrator finished submitting it
  TimePs ready = kNever;           // last dependency satisfied (and submitted)
  TimePs first_dispatch = kNever;  // first block's dispatch register write
  TimePs first_start = kNever;     // first block starts executing
  TimePs last_end = kNever;        // last block stops executing
  TimePs finish = kNever;          // scheduler observed completion / retired
};

// The state of one in-flight task, owned by the TaskTable.
struct Task {
  TaskSeq seq = kNoTask;
  uint32_t launch = 0;
  uint32_t index_in_launch = 0;  // the 0-based record index deps refer to
  // The runtime's 64-bit task id: ring (min(scope depth, 3)) in the high 32
  // bits, the ring-local sequence number in the low 32.
  uint64_t runtime_id = 0;
  std::string name;
  TaskShape shape = TaskShape::kDummy;
  int32_t kernel_ids[3] = {-1, -1, -1};
  int32_t kernel = -1;  // the program or cost kernel cores execute
  uint32_t scope_depth = 0;
  bool manual_scope = false;
  bool sync_start = false;
  bool allow_early_resolve = false;
  int64_t block_num = 1;
  std::vector<TaskArg> args;
  ResolvedPredicate predicate;

  // Dependency bookkeeping. `fanin_pending` counts unfinished producers plus
  // one hold the orchestrator releases when it publishes the task, so a task
  // never becomes ready half-submitted.
  int64_t fanin_pending = 1;
  // Consumers still waiting on this task. A consumer cannot complete (and so
  // cannot retire) before this task does, so the pointers stay valid for as
  // long as anything walks them (completion and early publication).
  std::vector<Task*> consumers;
  int64_t producers = 0;  // unique producers wired at submit
  // Retention: producers this task pins (creator and explicit edges) until it
  // is released, and how many consumers pin this task. A pinned producer
  // cannot retire, so the pointers stay valid (and save a lookup each).
  std::vector<Task*> retained;
  int64_t retain_pins = 0;
  uint8_t ring = 0;
  int64_t heap_bytes = 0;   // packed output buffers in its ring's heap
  int64_t dep_entries = 0;  // dep-list pool entries it holds

  // Early dispatch (allow_early_resolve on producers): flagged producers not
  // yet fully published, whether an unflagged producer rules staging out,
  // and the state of this task as an early candidate.
  int64_t early_waiting = 0;
  bool early_blocked = false;
  enum class EarlyState : uint8_t { kNone, kQueued, kStaged };
  EarlyState early_state = EarlyState::kNone;
  std::vector<int32_t> staged_cores;  // cores holding gated blocks
  bool fully_published = false;       // every block dispatched

  // Dispatch progress.
  int64_t next_block = 0;
  int64_t blocks_done = 0;
  int64_t subtasks_per_block = 1;  // 3 for MIX (AIC + 2 AIV)
  int64_t subtasks_done = 0;
  bool completed = false;
  bool scope_released = false;  // its scope has ended
  bool predicated_skip = false;
  TaskTimes times;
  int32_t first_core = -1;
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_TASK_H_
