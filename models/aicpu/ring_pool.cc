#include "models/aicpu/ring_pool.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace pto {
namespace {

// Marks a ring keeps room for before it first grows.
constexpr size_t kMinMarks = 64;

}  // namespace

RingPool::RingPool(const std::array<RingLimits, kNumRings>& limits) {
  for (int r = 0; r < kNumRings; ++r) rings_[r].limits = limits[r];
}

void RingPool::BeginLaunch(const std::array<RingLimits, kNumRings>& limits) {
  for (int r = 0; r < kNumRings; ++r) rings_[r].limits = limits[r];
  for (Ring& ring : rings_) {
    ring.next_local = ring.last_alive = 0;
    ring.heap_top = ring.heap_tail = 0;
    ring.dep_top = ring.dep_tail = 0;
    ring.stats = Stats{};
  }
  blocked_ring_ = -1;
}

void RingPool::Grow(Ring& ring) {
  const size_t in_flight = static_cast<uint32_t>(ring.next_local - ring.last_alive);
  size_t size = std::max(ring.marks.size(), kMinMarks);
  while (size <= in_flight) size *= 2;
  if (size == ring.marks.size()) return;
  std::vector<Mark> marks(size);
  for (uint32_t local = ring.last_alive; local != ring.next_local; ++local) {
    marks[local & (size - 1)] = ring.marks[local & (ring.marks.size() - 1)];
  }
  ring.marks.swap(marks);
}

bool RingPool::Pinned(const Task* oldest_live) {
  return oldest_live != nullptr && oldest_live->completed && !oldest_live->scope_released &&
         oldest_live->retain_pins == 0;
}

absl::Status RingPool::ClassifyEntry(int ring, RingResource short_of, int64_t heap_bytes,
                                     const ScopeFacts& scope, const Task* oldest_live) const {
  const RingLimits& limits = rings_[ring].limits;
  if (short_of == RingResource::kTaskWindow &&
      static_cast<int64_t>(scope.tasks) >= limits.task_window - 1) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "ring ", ring, " full (SCOPE_DEADLOCK): the scope at depth ", scope.depth, " holds ",
        scope.tasks, " tasks, but ring ", ring, "'s task window of ", limits.task_window,
        " allows only ", limits.task_window - 1,
        " in flight, and none can retire before the scope ends; split the scope (e.g. a "
        "pl.range loop gives each iteration its own scope) or raise ring.task_window"));
  }
  if (short_of == RingResource::kHeap && heap_bytes > limits.heap_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("ring ", ring, " heap full (HEAP_RING_DEADLOCK): an alloc of ", heap_bytes,
                     " bytes can never fit ring ", ring, "'s heap of ", limits.heap_bytes,
                     " bytes; raise ring.heap_bytes to at least ", heap_bytes));
  }
  if ((short_of == RingResource::kTaskWindow || short_of == RingResource::kHeap) &&
      Pinned(oldest_live)) {
    const bool heap = short_of == RingResource::kHeap;
    const char* what = heap ? "heap" : "task window";
    return absl::ResourceExhaustedError(absl::StrCat(
        "ring ", ring, " ", what, " full (", heap ? "HEAP_RING_DEADLOCK" : "FLOW_CONTROL_DEADLOCK",
        "): its oldest task '", oldest_live->name, "' (launch index ", oldest_live->index_in_launch,
        ") has completed but its scope is still open, and the orchestrator cannot close it "
        "while waiting for space; raise the ring's ",
        what, " or close scopes sooner"));
  }
  return absl::OkStatus();
}

absl::Status RingPool::ClassifyDepWait(const Task& task, int64_t entries,
                                       const Task* oldest_live) const {
  const int ring = task.ring;
  const RingLimits& limits = rings_[ring].limits;
  if (entries > limits.dep_pool) {
    return absl::ResourceExhaustedError(
        absl::StrCat("ring ", ring, " dep pool full (DEP_POOL_OVERFLOW): task '", task.name,
                     "' (launch index ", task.index_in_launch, ") needs ", entries,
                     " dep-list entries, one per live producer, but ring ", ring,
                     "'s dep pool holds only ", limits.dep_pool,
                     "; raise ring.dep_pool to at least ", entries, " or cut the task's fan-in"));
  }
  if (Pinned(oldest_live)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "ring ", ring, " dep pool full (DEP_POOL_OVERFLOW): task '", task.name, "' (launch index ",
        task.index_in_launch, ") needs ", entries, " dep-list entries and ", dep_used(ring),
        " of the pool's ", limits.dep_pool, " are held; the ring's oldest task '",
        oldest_live->name, "' (launch index ", oldest_live->index_in_launch,
        ") has completed but its scope is still open, and the orchestrator cannot close it "
        "while waiting for space; raise ring.dep_pool or close scopes sooner"));
  }
  return absl::OkStatus();
}

void RingPool::Block(int ring, TimePs now) {
  if (blocked_ring_ >= 0) return;
  blocked_ring_ = ring;
  blocked_since_ = now;
}

void RingPool::Unblock(TimePs now) {
  if (blocked_ring_ < 0) return;
  rings_[blocked_ring_].stats.blocked += now - blocked_since_;
  blocked_ring_ = -1;
}

}  // namespace pto
