#ifndef PTO_MODELS_AICPU_READY_QUEUES_H_
#define PTO_MODELS_AICPU_READY_QUEUES_H_

#include <array>
#include <cstddef>
#include <deque>

#include "models/aicpu/task.h"

namespace pto {

// The runtime's shared ready queues: per shape (AIC, AIV, MIX) a normal
// lane, a sync_start lane and an early-dispatch lane, plus the dummy queue
// that dummies and predicate-false tasks are retired from. Entries carry the
// simulated time their push completes, so a thread whose activation runs
// earlier in the same instant cannot pop them before then.
class ReadyQueues {
 public:
  enum class Lane : uint8_t { kNormal, kSync, kEarly };
  struct Entry {
    TaskSeq seq;
    TimePs visible_at;
  };

  void Push(TaskShape shape, TaskSeq seq, TimePs visible_at, Lane lane = Lane::kNormal) {
    queue(shape, lane).push_back({seq, visible_at});
  }
  // Puts back a task whose remaining blocks another core can take.
  void PushFront(TaskShape shape, TaskSeq seq, TimePs visible_at, Lane lane = Lane::kNormal) {
    queue(shape, lane).push_front({seq, visible_at});
  }
  bool Empty(TaskShape shape, Lane lane = Lane::kNormal) const {
    return queue(shape, lane).empty();
  }
  size_t Size(TaskShape shape, Lane lane = Lane::kNormal) const {
    return queue(shape, lane).size();
  }
  // The head's visibility time, or kNever when empty.
  TimePs HeadVisibleAt(TaskShape shape, Lane lane = Lane::kNormal) const {
    return Empty(shape, lane) ? kNever : queue(shape, lane).front().visible_at;
  }
  bool HasVisible(TaskShape shape, TimePs now, Lane lane = Lane::kNormal) const {
    return !Empty(shape, lane) && queue(shape, lane).front().visible_at <= now;
  }
  TaskSeq Pop(TaskShape shape, Lane lane = Lane::kNormal) {
    auto& q = queue(shape, lane);
    const TaskSeq seq = q.front().seq;
    q.pop_front();
    return seq;
  }
  // Normal and sync lanes of the core shapes (what gates early dispatch).
  bool AllCoreQueuesEmpty() const {
    for (TaskShape shape : {TaskShape::kAic, TaskShape::kAiv, TaskShape::kMix}) {
      if (!Empty(shape) || !Empty(shape, Lane::kSync)) return false;
    }
    return true;
  }
  // The earliest visibility time of any head, or kNever.
  TimePs EarliestHead() const {
    TimePs earliest = kNever;
    for (const auto& q : queues_) {
      if (!q.empty() && (earliest == kNever || q.front().visible_at < earliest)) {
        earliest = q.front().visible_at;
      }
    }
    return earliest;
  }

 private:
  static size_t Index(TaskShape shape, Lane lane) {
    if (shape == TaskShape::kDummy) return 9;
    return static_cast<size_t>(lane) * 3 + static_cast<size_t>(shape);
  }
  std::deque<Entry>& queue(TaskShape shape, Lane lane) { return queues_[Index(shape, lane)]; }
  const std::deque<Entry>& queue(TaskShape shape, Lane lane) const {
    return queues_[Index(shape, lane)];
  }

  std::array<std::deque<Entry>, 10> queues_;
};

// The dispatch predicate: `value` is the operand element, already
// sign-extended to 64 bits as the runtime does.
bool PredicatePasses(trace::Predicate::Op op, int64_t value, int64_t target);

}  // namespace pto

#endif  // PTO_MODELS_AICPU_READY_QUEUES_H_
