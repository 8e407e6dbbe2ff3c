#include "models/aicpu/task_table.h"

#include <cassert>
#include <string>
#include <utility>

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

namespace {

// Task{} except that its vectors and name keep their capacity (the edge
// lists keep theirs inline).
void ResetKeepingCapacity(Task& task) {
  std::string name = std::move(task.name);
  std::vector<TaskArg> args = std::move(task.args);
  std::vector<int32_t> staged_cores = std::move(task.staged_cores);
  task = Task{};
  name.clear();
  args.clear();
  staged_cores.clear();
  task.name = std::move(name);
  task.args = std::move(args);
  task.staged_cores = std::move(staged_cores);
}

}  // namespace

Task& TaskTable::Allocate() {
  if (free_.empty()) return storage_.emplace_back();
  Task* task = free_.back();
  free_.pop_back();
  ResetKeepingCapacity(*task);
  return *task;
}

Task& TaskTable::Create(TaskSeq seq, int ring) {
  assert(seq == next_seq_);
  ++next_seq_;
  Task& task = Allocate();
  rings_[ring].push_back(&task);
  task.seq = seq;
  task.ring = static_cast<uint8_t>(ring);
  index_.Insert(seq, &task);
  return task;
}

Task* TaskTable::Find(TaskSeq seq) {
  return const_cast<Task*>(static_cast<const TaskTable*>(this)->Find(seq));
}

const Task* TaskTable::Find(TaskSeq seq) const {
  Task* const* task = index_.Find(seq);
  return task == nullptr ? nullptr : *task;
}

const Task* TaskTable::ring_front(int ring) const {
  return rings_[ring].empty() ? nullptr : rings_[ring].front();
}

void TaskTable::ForEachLive(const std::function<bool(const Task&)>& visit) const {
  for (const auto& ring : rings_) {
    for (const Task* task : ring) {
      if (!visit(*task)) return;
    }
  }
}

bool TaskTable::AddDependencyOnFound(Task* producer, Task& consumer, bool retain) {
  if (producer == nullptr) return false;
  if (retain) {
    ++producer->retain_pins;
    consumer.retained.push_back(producer);
  }
  if (producer->completed) return false;
  producer->consumers.push_back(&consumer);
  ++consumer.fanin_pending;
  return true;
}

size_t TaskTable::Complete(Task& task, std::vector<Task*>* ready) {
  task.completed = true;
  // The consumers were last touched when they were submitted, long before:
  // start every miss at once rather than one after another.
  for (Task* consumer : task.consumers) __builtin_prefetch(&consumer->fanin_pending, 1);
  for (Task* consumer : task.consumers) {
    assert(!consumer->completed && consumer->fanin_pending > 0);
    if (ReleaseFanin(*consumer)) ready->push_back(consumer);
  }
  return task.consumers.size();
}

void TaskTable::ReleaseConsumer(Task& consumer) {
  for (Task* producer : consumer.retained) --producer->retain_pins;
  consumer.retained.clear();
}

void TaskTable::ReleaseScope(TaskSeq seq) {
  if (Task* task = Find(seq)) task->scope_released = true;
}

void TaskTable::AdvanceWatermarks() {
  for (auto& ring : rings_) {
    while (!ring.empty() && Consumed(*ring.front())) {
      Task* task = ring.front();
      on_retire_(*task);
      index_.Erase(task->seq);
      ring.pop_front();
      free_.push_back(task);
    }
  }
}

}  // namespace pto
