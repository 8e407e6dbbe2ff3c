#include "models/aicpu/task_table.h"

#include <cassert>

namespace pto {

const char* TaskShapeName(TaskShape shape) {
  switch (shape) {
    case TaskShape::kAic:
      return "AIC";
    case TaskShape::kAiv:
      return "AIV";
    case TaskShape::kMix:
      return "MIX";
    case TaskShape::kDummy:
      return "DUMMY";
    case TaskShape::kAlloc:
      return "ALLOC";
  }
  return "?";
}

TaskTable::TaskTable(RetireHook on_retire) : on_retire_(std::move(on_retire)) {}

Task& TaskTable::Create(TaskSeq seq) {
  assert(seq == next_seq());
  Task& task = tasks_.emplace_back();
  task.seq = seq;
  return task;
}

Task* TaskTable::Find(TaskSeq seq) {
  if (seq < base_seq_ || seq >= next_seq()) return nullptr;
  return &tasks_[seq - base_seq_];
}

bool TaskTable::AddDependency(TaskSeq producer_seq, Task& consumer) {
  Task* producer = Find(producer_seq);
  if (producer == nullptr || producer->completed) return false;
  producer->consumers.push_back(consumer.seq);
  ++consumer.fanin_pending;
  return true;
}

size_t TaskTable::Complete(Task& task, std::vector<TaskSeq>* ready) {
  task.completed = true;
  for (TaskSeq seq : task.consumers) {
    Task* consumer = Find(seq);
    if (consumer != nullptr && ReleaseFanin(*consumer)) ready->push_back(seq);
  }
  return task.consumers.size();
}

void TaskTable::ReleaseScope(TaskSeq seq) {
  if (Task* task = Find(seq)) task->scope_released = true;
}

void TaskTable::AdvanceWatermark() {
  while (!tasks_.empty() && tasks_.front().completed && tasks_.front().scope_released) {
    on_retire_(tasks_.front());
    tasks_.pop_front();
    ++base_seq_;
  }
}

}  // namespace pto
