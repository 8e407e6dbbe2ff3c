#ifndef PTO_MODELS_AICPU_READY_QUEUES_H_
#define PTO_MODELS_AICPU_READY_QUEUES_H_

#include <array>
#include <cstddef>
#include <deque>

#include "models/aicpu/task.h"

namespace pto {

// The runtime's shared ready queues: one per shape (AIC, AIV, MIX) plus the
// dummy queue that dummies and predicate-false tasks are retired from.
// Entries carry the simulated time their push completes, so a thread whose
// activation runs earlier in the same instant cannot pop them before then.
class ReadyQueues {
 public:
  struct Entry {
    TaskSeq seq;
    TimePs visible_at;
  };

  void Push(TaskShape shape, TaskSeq seq, TimePs visible_at) {
    queue(shape).push_back({seq, visible_at});
  }
  // Puts back a task whose remaining blocks another core can take.
  void PushFront(TaskShape shape, TaskSeq seq, TimePs visible_at) {
    queue(shape).push_front({seq, visible_at});
  }
  bool Empty(TaskShape shape) const { return queue(shape).empty(); }
  size_t Size(TaskShape shape) const { return queue(shape).size(); }
  // The head's visibility time, or kNever when empty.
  TimePs HeadVisibleAt(TaskShape shape) const {
    return Empty(shape) ? kNever : queue(shape).front().visible_at;
  }
  bool HasVisible(TaskShape shape, TimePs now) const {
    return !Empty(shape) && queue(shape).front().visible_at <= now;
  }
  TaskSeq Pop(TaskShape shape) {
    auto& q = queue(shape);
    const TaskSeq seq = q.front().seq;
    q.pop_front();
    return seq;
  }
  bool AllCoreQueuesEmpty() const {
    return Empty(TaskShape::kAic) && Empty(TaskShape::kAiv) && Empty(TaskShape::kMix);
  }

 private:
  static size_t Index(TaskShape shape) {
    return shape == TaskShape::kDummy ? 3 : static_cast<size_t>(shape);
  }
  std::deque<Entry>& queue(TaskShape shape) { return queues_[Index(shape)]; }
  const std::deque<Entry>& queue(TaskShape shape) const { return queues_[Index(shape)]; }

  std::array<std::deque<Entry>, 4> queues_;
};

// The dispatch predicate: `value` is the operand element, already
// sign-extended to 64 bits as the runtime does.
bool PredicatePasses(trace::Predicate::Op op, int64_t value, int64_t target);

}  // namespace pto

#endif  // PTO_MODELS_AICPU_READY_QUEUES_H_
