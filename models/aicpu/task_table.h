#ifndef PTO_MODELS_AICPU_TASK_TABLE_H_
#define PTO_MODELS_AICPU_TASK_TABLE_H_

#include <deque>
#include <functional>
#include <vector>

#include "models/aicpu/task.h"

namespace pto {

// The in-flight task window. Tasks enter in sequence order and leave from the
// front once they are completed and their scope has ended (the runtime's
// last_task_alive watermark), so memory is bounded by the window, not by the
// trace. A task that has left the window is retired: any later dependency on
// it is already satisfied.
class TaskTable {
 public:
  // Called for each task as it leaves the window, in sequence order.
  using RetireHook = std::function<void(Task&)>;
  explicit TaskTable(RetireHook on_retire);

  Task& Create(TaskSeq seq);
  Task* Find(TaskSeq seq);
  bool IsRetired(TaskSeq seq) const { return seq < base_seq_; }
  TaskSeq next_seq() const { return base_seq_ + tasks_.size(); }
  size_t live_tasks() const { return tasks_.size(); }

  // Makes `consumer` wait for `producer`. Returns false, wiring nothing, when
  // the producer has already completed or retired (the edge is satisfied).
  bool AddDependency(TaskSeq producer, Task& consumer);

  // Drops one count from the task's fanin; true when it reaches zero (ready).
  static bool ReleaseFanin(Task& task) { return --task.fanin_pending == 0; }

  // Marks `task` completed and releases its consumers; appends those that
  // became ready to `ready`. Returns the number of consumers visited.
  size_t Complete(Task& task, std::vector<TaskSeq>* ready);

  // Marks the task's scope as ended and retires what the watermark allows.
  void ReleaseScope(TaskSeq seq);
  // Retires the completed, scope-released prefix of the window.
  void AdvanceWatermark();

 private:
  RetireHook on_retire_;
  std::deque<Task> tasks_;
  TaskSeq base_seq_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_TASK_TABLE_H_
