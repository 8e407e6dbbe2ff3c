#ifndef PTO_MODELS_AICPU_RING_POOL_H_
#define PTO_MODELS_AICPU_RING_POOL_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "models/aicpu/task.h"
#include "models/aicpu/task_table.h"

namespace pto {

// The capacity of one of the four rings (hw-native-sys/simpler@6ebaf771
// src/a2a3/runtime/tensormap_and_ringbuffer/runtime/pto_runtime2_types.h, docs/MULTI_RING.md;
// the config keys ring.task_window, ring.heap_bytes and ring.dep_pool, whose
// schema ranges are the only validation).
struct RingLimits {
  int64_t task_window = 16384;  // slots; at most task_window - 1 tasks in flight
  int64_t heap_bytes = 256ll << 20;
  int64_t dep_pool = 16384;  // dep-list entries
};

// What a ring is short of.
enum class RingResource : uint8_t { kNone, kTaskWindow, kHeap, kDepPool };

// The open scope a task enters the ring from, for SCOPE_DEADLOCK.
struct ScopeFacts {
  uint32_t depth = 0;
  size_t tasks = 0;  // tasks submitted in it so far
};

// The runtime's four rings as the orchestrator sees them (PTO2TaskAllocator,
// PTO2DepListPool): per ring its limits, the tasks in flight with their
// ring-local ids, the heap bytes and dep-list entries they hold, admission
// of the next task, reclamation behind the retirement watermark, the launch's
// peaks and the time the orchestrator spent blocked, and the runtime's
// classification of a blocked orchestrator as a deadlock.
//
// Usage is kept as the runtime keeps it: linear counters (heap top, dep-pool
// top) that only grow within a launch, each task remembering where its share
// begins, and a tail that follows the ring's oldest live task
// (last_task_alive). Reclaim() moves the tail, so whatever retired since the
// last call is released at once, in ring order.
//
// The sequence per task: Reclaim, Admit (short of something: ClassifyEntry,
// then wait, Reclaim and Admit again); create the task and Enter it; wire
// it, DepPoolFits (short: ClassifyDepWait, then wait, Reclaim and retry);
// HoldDepEntries. The sources: PTO2TaskAllocator::alloc and
// PTO2DepListPool::ensure_space in hw-native-sys/simpler's
// src/a2a3/runtime/tensormap_and_ringbuffer/runtime/pto_ring_buffer.h.
class RingPool {
 public:
  struct Stats {
    uint64_t peak_tasks = 0;  // tasks in flight, including the entering one
    uint64_t peak_heap_bytes = 0;
    uint64_t peak_dep_entries = 0;
    TimePs blocked = 0;  // orchestrator time spent waiting for space
  };

  explicit RingPool(const std::array<RingLimits, kNumRings>& limits);

  const RingLimits& limits(int ring) const { return rings_[ring].limits; }
  const Stats& stats(int ring) const { return rings_[ring].stats; }
  // As of the last Reclaim of the ring.
  int64_t tasks_in_flight(int ring) const {
    return static_cast<uint32_t>(rings_[ring].next_local - rings_[ring].last_alive);
  }
  int64_t heap_used(int ring) const { return rings_[ring].heap_top - rings_[ring].heap_tail; }
  int64_t dep_used(int ring) const { return rings_[ring].dep_top - rings_[ring].dep_tail; }
  // The local id the ring's next task gets.
  uint32_t next_local_id(int ring) const { return rings_[ring].next_local; }

  // A launch begins with every ring empty: local ids restart at 0, the
  // peaks and the blocked time at zero, and the rings take `limits` (a
  // launch's RunConfig may size them).
  void BeginLaunch(const std::array<RingLimits, kNumRings>& limits);

  // Moves the ring's watermark (last_task_alive) to `oldest_live`, its
  // oldest task that has not retired (TaskTable::ring_front; nullptr when
  // none is left), and releases the heap bytes and dep-list entries of every
  // task before it.
  void Reclaim(int ring, const Task* oldest_live);

  // Whether one more task with `heap_bytes` of packed output can enter
  // `ring` now (PTO2TaskAllocator::alloc): a task slot first (at most
  // task_window - 1 tasks in flight), then the heap. kNone when it can.
  RingResource Admit(int ring, int64_t heap_bytes) const;

  // Counts `task` (just admitted to task.ring, heap_bytes set) in flight:
  // it gets the ring's next local id (task.runtime_id = ring << 32 | local
  // id) and takes its heap bytes. Returns the local id.
  uint32_t Enter(Task& task);

  // Whether `entries` more dep-list entries fit the ring's dep pool
  // (PTO2DepListPool::ensure_space).
  bool DepPoolFits(int ring, int64_t entries) const {
    return dep_used(ring) + entries <= rings_[ring].limits.dep_pool;
  }
  // Gives `task`, the newest task of its ring, `entries` dep-list entries
  // (at most what DepPoolFits allowed); they return when it retires.
  void HoldDepEntries(Task& task, int64_t entries);

  // The runtime's verdict on a task that cannot enter `ring` for lack of
  // `short_of`: an error when the wait can never end, OK when a retirement
  // may still make room. `heap_bytes` is what the task asks of the heap,
  // `scope` the scope it enters from, `oldest_live` the ring's oldest live
  // task (as for Reclaim).
  //   SCOPE_DEADLOCK: the scope alone holds a full window; its tasks keep
  //     their scope reference until it ends, which the blocked orchestrator
  //     cannot reach (found at submit).
  //   FLOW_CONTROL_DEADLOCK (task window) / HEAP_RING_DEADLOCK (heap): the
  //     oldest task has completed but is pinned by a scope still open, so
  //     nothing in the ring can ever retire.
  //   HEAP_RING_DEADLOCK also when the request exceeds the whole heap.
  absl::Status ClassifyEntry(int ring, RingResource short_of, int64_t heap_bytes,
                             const ScopeFacts& scope, const Task* oldest_live) const;
  // The same for `task`, wired and waiting for `entries` dep-list entries:
  // DEP_POOL_OVERFLOW when they exceed the whole pool, or when the ring's
  // oldest task is pinned as above.
  absl::Status ClassifyDepWait(const Task& task, int64_t entries, const Task* oldest_live) const;

  // The orchestrator starts or stops waiting for space in `ring`; the time in
  // between counts as the ring's blocked time. Block while blocked is a no-op.
  void Block(int ring, TimePs now);
  void Unblock(TimePs now);
  bool blocked() const { return blocked_ring_ >= 0; }
  int blocked_ring() const { return blocked_ring_; }

 private:
  // A task's share begins here: the ring's linear totals when it entered.
  struct Mark {
    int64_t heap = 0;
    int64_t deps = 0;
  };
  struct Ring {
    RingLimits limits;
    uint32_t next_local = 0;  // local ids wrap as the runtime's 32-bit ones do
    uint32_t last_alive = 0;  // the oldest live task's local id, or next_local
    int64_t heap_top = 0;     // bytes ever taken this launch
    int64_t heap_tail = 0;    // bytes released this launch
    int64_t dep_top = 0;
    int64_t dep_tail = 0;
    // Marks of the tasks in flight, at local id & (size - 1); the size is a
    // power of two, grown (never shrunk) to hold every task in flight.
    std::vector<Mark> marks;
    Stats stats;
  };

  static bool Pinned(const Task* oldest_live);
  void Grow(Ring& ring);

  std::array<Ring, kNumRings> rings_;
  int blocked_ring_ = -1;
  TimePs blocked_since_ = 0;
};

// The per-task calls, inline: they run once or twice for every submit.

inline void RingPool::Reclaim(int ring_index, const Task* oldest_live) {
  Ring& ring = rings_[ring_index];
  if (oldest_live == nullptr) {
    ring.last_alive = ring.next_local;
    ring.heap_tail = ring.heap_top;
    ring.dep_tail = ring.dep_top;
    return;
  }
  ring.last_alive = static_cast<uint32_t>(oldest_live->runtime_id);
  const Mark& mark = ring.marks[ring.last_alive & (ring.marks.size() - 1)];
  ring.heap_tail = mark.heap;
  ring.dep_tail = mark.deps;
}

inline RingResource RingPool::Admit(int ring, int64_t heap_bytes) const {
  const RingLimits& limits = rings_[ring].limits;
  if (tasks_in_flight(ring) + 1 >= limits.task_window) return RingResource::kTaskWindow;
  if (heap_used(ring) + heap_bytes > limits.heap_bytes) return RingResource::kHeap;
  return RingResource::kNone;
}

inline uint32_t RingPool::Enter(Task& task) {
  Ring& ring = rings_[task.ring];
  const uint32_t in_flight = ring.next_local - ring.last_alive;
  if (in_flight >= ring.marks.size()) Grow(ring);
  const uint32_t local = ring.next_local++;
  ring.marks[local & (ring.marks.size() - 1)] = Mark{ring.heap_top, ring.dep_top};
  task.runtime_id = (static_cast<uint64_t>(task.ring) << 32) | local;
  ring.stats.peak_tasks = std::max<uint64_t>(ring.stats.peak_tasks, uint64_t{in_flight} + 1);
  if (task.heap_bytes > 0) {  // usage only grows here; a task without heap cannot raise it
    ring.heap_top += task.heap_bytes;
    ring.stats.peak_heap_bytes =
        std::max<uint64_t>(ring.stats.peak_heap_bytes, ring.heap_top - ring.heap_tail);
  }
  return local;
}

inline void RingPool::HoldDepEntries(Task& task, int64_t entries) {
  Ring& ring = rings_[task.ring];
  task.dep_entries = entries;
  ring.dep_top += entries;
  ring.stats.peak_dep_entries =
      std::max<uint64_t>(ring.stats.peak_dep_entries, ring.dep_top - ring.dep_tail);
}

}  // namespace pto

#endif  // PTO_MODELS_AICPU_RING_POOL_H_
