#ifndef PTO_MODELS_AICPU_TASK_TABLE_H_
#define PTO_MODELS_AICPU_TASK_TABLE_H_

#include <array>
#include <deque>
#include <functional>
#include <vector>

#include "common/seq_index.h"
#include "models/aicpu/task.h"

namespace pto {

inline constexpr int kNumRings = 4;  // PTO2_MAX_RING_DEPTH

// The ring a task of scope depth `depth` lives in: min(depth, 3).
inline int RingOf(uint32_t depth) { return depth < 3 ? static_cast<int>(depth) : 3; }

// The in-flight task window: four rings, each a FIFO of tasks in submission
// order. A task is CONSUMED (its slot reclaimable) once it has completed, its
// scope has ended and every retaining consumer has released it; a ring's
// watermark (last_task_alive) advances over its consumed prefix and the
// tasks behind it retire. Memory is bounded by the live window, not by the
// trace. A retired task's dependents treat it as satisfied.
class TaskTable {
 public:
  // Called for each task as it retires, in per-ring order.
  using RetireHook = std::function<void(Task&)>;
  explicit TaskTable(RetireHook on_retire);

  // Appends a task to `ring`. `seq` must be the next sequence number.
  Task& Create(TaskSeq seq, int ring);
  Task* Find(TaskSeq seq);
  const Task* Find(TaskSeq seq) const;
  bool IsRetired(TaskSeq seq) const { return seq < next_seq_ && Find(seq) == nullptr; }
  TaskSeq next_seq() const { return next_seq_; }
  size_t live_tasks() const { return index_.size(); }
  // Tasks from the ring's oldest unconsumed one to its newest: the runtime's
  // `local_id - last_task_alive + 1`.
  size_t ring_occupancy(int ring) const { return rings_[ring].size(); }
  const Task* ring_front(int ring) const;
  // Visits live tasks ring by ring, oldest first, until `visit` returns false.
  void ForEachLive(const std::function<bool(const Task&)>& visit) const;

  // Makes `consumer` wait for `producer`; `retain` pins the producer until the
  // consumer is released. Returns false, waiting on nothing, when the producer
  // has already completed or retired (the wait is satisfied; a retain pin is
  // still taken on a completed, unretired producer).
  bool AddDependency(TaskSeq producer, Task& consumer, bool retain) {
    return AddDependencyOnFound(Find(producer), consumer, retain);
  }
  // The same for a producer already looked up (nullptr: retired).
  bool AddDependencyOnFound(Task* producer, Task& consumer, bool retain);

  // Drops one count from the task's fanin; true when it reaches zero (ready).
  static bool ReleaseFanin(Task& task) { return --task.fanin_pending == 0; }

  // Marks `task` completed and releases its consumers' fanin; appends those
  // that became ready to `ready`. Returns the number of consumers visited.
  size_t Complete(Task& task, std::vector<Task*>* ready);

  // The consumer's release (on_task_release): unpins its retained producers.
  void ReleaseConsumer(Task& consumer);
  // The task's scope has ended.
  void ReleaseScope(TaskSeq seq);
  // Retires the consumed prefix of every ring.
  void AdvanceWatermarks();

 private:
  // A task that still pins producers waits for its own release (the
  // scheduler's deferred release refers to it) before its slot is reused.
  static bool Consumed(const Task& task) {
    return task.completed && task.scope_released && task.retain_pins == 0 && task.retained.empty();
  }

  // A Task from the free list (or new), reset but with the capacity of its
  // vectors and name kept: no allocation per task in steady state.
  Task& Allocate();

  RetireHook on_retire_;
  std::deque<Task> storage_;  // every Task ever allocated; references stay valid
  std::vector<Task*> free_;   // retired ones, ready for reuse
  std::array<std::deque<Task*>, kNumRings> rings_;  // live tasks in submission order
  SeqIndex<Task*> index_;                           // live tasks
  TaskSeq next_seq_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_TASK_TABLE_H_
