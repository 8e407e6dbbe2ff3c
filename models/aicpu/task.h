#ifndef PTO_MODELS_AICPU_TASK_H_
#define PTO_MODELS_AICPU_TASK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
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
//
// Fields are grouped by when they are touched. A producer's completion
// visits each consumer (fanin, then routing: shape, lanes, times.ready,
// predicate), a consumer's release each retained producer (retain_pins),
// and the watermark the oldest task (completed, scope_released, pins): long
// after the task was submitted, so each is a cache miss. Those fields share
// the first two cache lines, and the edge lists keep a few entries inline
// (no heap buffer to chase); what submit and dispatch use follows.
struct Task {
  // Completion, routing and retirement (the first cache line).
  TaskSeq seq = kNoTask;
  // Dependency bookkeeping. `fanin_pending` counts unfinished producers plus
  // one hold the orchestrator releases when it publishes the task, so a task
  // never becomes ready half-submitted.
  int64_t fanin_pending = 1;
  int64_t retain_pins = 0;  // consumers pinning this task (see `retained`)
  int64_t block_num = 1;
  int64_t next_block = 0;  // dispatch progress: the next block to place
  TaskShape shape = TaskShape::kDummy;
  enum class EarlyState : uint8_t { kNone, kQueued, kStaged };
  EarlyState early_state = EarlyState::kNone;
  bool sync_start = false;
  bool completed = false;
  bool scope_released = false;  // its scope has ended
  bool predicated_skip = false;
  bool allow_early_resolve = false;
  uint8_t ring = 0;
  // Early dispatch (allow_early_resolve on producers): flagged producers not
  // yet fully published, whether an unflagged producer rules staging out,
  // and the state of this task as an early candidate (early_state above).
  int64_t early_waiting = 0;
  bool early_blocked = false;
  bool fully_published = false;  // every block dispatched
  bool manual_scope = false;
  int32_t first_core = -1;
  TaskTimes times;
  ResolvedPredicate predicate;
  // Consumers still waiting on this task. A consumer cannot complete (and so
  // cannot retire) before this task does, so the pointers stay valid for as
  // long as anything walks them (completion and early publication).
  absl::InlinedVector<Task*, 4> consumers;
  // Retention: producers this task pins (creator and explicit edges) until it
  // is released. A pinned producer cannot retire, so the pointers stay valid
  // (and save a lookup each).
  absl::InlinedVector<Task*, 4> retained;
  std::vector<int32_t> staged_cores;  // cores holding gated blocks

  // Submit and dispatch.
  uint32_t launch = 0;
  uint32_t index_in_launch = 0;  // the 0-based record index deps refer to
  // The runtime's 64-bit task id: ring (min(scope depth, 3)) in the high 32
  // bits, the ring-local sequence number in the low 32.
  uint64_t runtime_id = 0;
  std::string name;
  std::string origin;  // the submit's source line ("kernel.py:27"), if recorded
  int32_t kernel_ids[3] = {-1, -1, -1};
  int32_t kernel = -1;  // the program or cost kernel cores execute
  uint32_t scope_depth = 0;
  std::vector<TaskArg> args;
  int64_t producers = 0;    // unique producers wired at submit
  int64_t heap_bytes = 0;   // packed output buffers in its ring's heap
  int64_t dep_entries = 0;  // dep-list pool entries it holds
  int64_t blocks_done = 0;
  int64_t subtasks_per_block = 1;  // 3 for MIX (AIC + 2 AIV)
  int64_t subtasks_done = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_TASK_H_
