#ifndef PTO_MODELS_AICPU_CORE_SLOTS_H_
#define PTO_MODELS_AICPU_CORE_SLOTS_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "models/aicpu/task.h"

namespace pto {

// A block published to a core, as the scheduler thread tracks it.
struct DispatchSlot {
  bool valid = false;
  TaskSeq task = kNoTask;
  uint32_t token = 0;  // the per-core register token the core echoes in COND
  bool gated = false;  // early-dispatched or staged: waiting for its doorbell
};

// A COND register value as the AICPU reads it: the token of the last block
// the core acknowledged (ACK) or finished (FIN).
struct CondReading {
  uint32_t token = 0;  // 0 = nothing yet
  bool fin = false;
};

// What one COND value did to a core's slots (the runtime's
// decide_slot_transition).
enum class SlotTransition : uint8_t {
  kUnchanged,           // the value was already acted on: no transition
  kStale,               // a token of neither slot (an old block): ignored
  kRunningAcked,        // the running block started: its pending slot may be filled
  kFinAwaitingPending,  // the running block's FIN, but an un-gated pending block
                        // is latched: its ACK or FIN completes both
  kRunningFinished,     // the running block finished; the core is idle
  kGatedPromoted,       // the running block finished; the gated pending block
                        // moves up, not ACKed yet
  kPendingAcked,        // the pending block started, so the running one finished
  kBothFinished,        // the pending block finished, so did the running one
};

// The outcome of a COND value: the transition and the subtasks it finished,
// the running slot's before the pending slot's. The caller reports and
// completes them; the slots have already moved on.
struct CondOutcome {
  SlotTransition transition = SlotTransition::kUnchanged;
  int finished = 0;
  DispatchSlot done[2];
};

// One scheduler thread's per-core dispatch bookkeeping (the runtime's
// CoreExecState): each owned core has a running and a pending slot, a token
// counter and the COND values seen. It decides which slots are free to
// publish into and what a COND value means; it does no I/O and keeps no time.
// Cores are indexed locally: AICs first, then AIVs, each in the given order
// (the order the dispatch scans follow).
class CoreSlots {
 public:
  // A core as the runtime sees it: `kind` is kAic or kAiv.
  struct CoreSpec {
    int id;
    TaskShape kind;
    int cluster;
  };
  // A unit of placement: one core, or for MIX a cluster's AIC and its two
  // AIVs (local indices).
  struct Unit {
    int members[3];
    int count;
  };

  explicit CoreSlots(std::vector<CoreSpec> cores);

  int size() const { return static_cast<int>(cores_.size()); }
  int id(int local) const { return cores_[local].spec.id; }
  TaskShape kind(int local) const { return cores_[local].spec.kind; }
  // The local index of chip core `core_id`, or -1 if this thread does not own it.
  int LocalOf(int core_id) const {
    return core_id >= 0 && core_id < static_cast<int>(local_of_core_.size())
               ? local_of_core_[core_id]
               : -1;
  }
  const DispatchSlot& running(int local) const { return cores_[local].running; }
  const DispatchSlot& pending(int local) const { return cores_[local].pending; }
  bool running_acked(int local) const { return cores_[local].running_acked; }
  size_t running_cores() const;

  // Whether core `local` can take a block in its running slot (it is idle)
  // or, with `pending`, in its pending slot: the running block is ACKed, not
  // gated, and nothing is latched yet.
  bool SlotFree(int local, bool pending) const { return Free(cores_[local], pending); }
  // Every core of `cluster` has a free slot; the idle phase takes fully idle
  // clusters, the pending phase the others.
  bool ClusterUsable(const Unit& cluster, bool pending) const;
  // Idle units (cores, or whole clusters for MIX) of `shape`, counted up to
  // `limit`.
  int IdleUnitCount(TaskShape shape, int limit = std::numeric_limits<int>::max()) const;
  // Whether a unit of `shape` is idle (IdleUnitCount(shape, 1) > 0).
  bool HasIdleUnit(TaskShape shape) const;
  // Appends up to `limit` units of `shape` with a free slot (running slot,
  // or with `pending` a busy core's second slot) in scan order.
  void AppendFreeUnits(TaskShape shape, bool pending, size_t limit, std::vector<Unit>* units) const;

  // Publishes a block of `task` on core `local`: into the running slot if
  // the core is idle, else into its pending slot. Returns its token.
  uint32_t Publish(int local, TaskSeq task, bool gated);
  // `task`'s doorbell on core `local`: un-gates its gated slots and returns
  // how many (a doorbell each).
  int ReleaseGated(int local, TaskSeq task);
  // Whether core `local` holds a gated block of `task`.
  bool HoldsGated(int local, TaskSeq task) const;

  // A new COND value of core `local` became visible to the AICPU.
  void SetVisible(int local, CondReading value) { cores_[local].visible = value; }
  // Whether the complete phase polls core `local`: it runs a block that is
  // not waiting for its doorbell.
  bool Polled(int local) const { return Polled(cores_[local]); }
  // Whether the visible COND value differs from the last one acted on.
  bool HasUnseenCond(int local) const { return Unseen(cores_[local]); }
  // The complete phase's poll from core `from` on: reads the COND of each
  // polled core, one read of `poll` each (added to `*cost`), up to the first
  // whose value has not been acted on. Returns that core, or size().
  int PollFrom(int from, TimePs poll, TimePs* cost) const;
  // Acts on the visible COND value (kUnchanged if already seen).
  CondOutcome ObserveVisible(int local) {
    if (!HasUnseenCond(local)) return CondOutcome{};
    return Observe(local, cores_[local].visible);
  }
  // Acts on COND value `value` of core `local`.
  CondOutcome Observe(int local, CondReading value);

 private:
  struct Core {
    CoreSpec spec;
    uint32_t next_token = 1;
    DispatchSlot running;
    DispatchSlot pending;
    bool running_acked = false;
    CondReading seen;     // last COND value acted on
    CondReading visible;  // latest COND value visible to the AICPU
  };
  static bool Free(const Core& core, bool pending) {
    if (!pending) return !core.running.valid;
    return core.running.valid && core.running_acked && !core.running.gated && !core.pending.valid;
  }
  static bool Polled(const Core& core) { return core.running.valid && !core.running.gated; }
  static bool Unseen(const Core& core) {
    return core.visible.token != core.seen.token || core.visible.fin != core.seen.fin;
  }

  // The cores of kind `shape` (kAic or kAiv): a contiguous run of cores_.
  const Core* KindBegin(TaskShape shape) const {
    return cores_.data() + (shape == TaskShape::kAic ? 0 : first_aiv_);
  }
  const Core* KindEnd(TaskShape shape) const {
    return cores_.data() + (shape == TaskShape::kAic ? first_aiv_ : cores_.size());
  }

  std::vector<Core> cores_;         // AICs first, then AIVs
  size_t first_aiv_ = 0;            // the local index of the first AIV
  std::vector<int> local_of_core_;  // chip core id -> local index, or -1
  std::vector<Unit> clusters_;      // [aic, aiv0, aiv1]
};

// Inline below: the loop calls these per core or per COND change.

inline bool CoreSlots::HasIdleUnit(TaskShape shape) const {
  if (shape == TaskShape::kMix) {
    for (const Unit& cluster : clusters_) {
      if (!cores_[cluster.members[0]].running.valid && !cores_[cluster.members[1]].running.valid &&
          !cores_[cluster.members[2]].running.valid) {
        return true;
      }
    }
    return false;
  }
  for (const Core* core = KindBegin(shape); core != KindEnd(shape); ++core) {
    if (!core->running.valid) return true;
  }
  return false;
}

inline uint32_t CoreSlots::Publish(int local, TaskSeq task, bool gated) {
  Core& core = cores_[local];
  const uint32_t token = core.next_token++;
  const DispatchSlot slot{true, task, token, gated};
  if (!core.running.valid) {
    core.running = slot;
    core.running_acked = false;
  } else {
    core.pending = slot;
  }
  return token;
}

inline int CoreSlots::PollFrom(int from, TimePs poll, TimePs* cost) const {
  TimePs spent = *cost;
  const Core* const begin = cores_.data();
  const Core* const end = begin + cores_.size();
  const Core* core = begin + from;
  for (; core != end; ++core) {
    if (!Polled(*core)) continue;  // idle, or gated until its doorbell rings
    spent += poll;
    if (Unseen(*core)) break;
  }
  *cost = spent;
  return static_cast<int>(core - begin);
}

inline CondOutcome CoreSlots::Observe(int local, CondReading value) {
  Core& core = cores_[local];
  core.seen = value;
  CondOutcome outcome;
  if (core.pending.valid && value.token == core.pending.token) {
    // The pending block ACKed or finished: the running one is done (a core
    // runs its slots in order).
    outcome.done[outcome.finished++] = core.running;
    const DispatchSlot pending = core.pending;
    core.pending.valid = false;
    if (value.fin) {
      core.running.valid = false;
      outcome.done[outcome.finished++] = pending;
      outcome.transition = SlotTransition::kBothFinished;
    } else {
      core.running = pending;
      core.running_acked = true;
      outcome.transition = SlotTransition::kPendingAcked;
    }
    return outcome;
  }
  if (!core.running.valid || value.token != core.running.token) {
    outcome.transition = SlotTransition::kStale;
    return outcome;
  }
  if (!value.fin) {
    core.running_acked = true;
    outcome.transition = SlotTransition::kRunningAcked;
    return outcome;
  }
  if (core.pending.valid && !core.pending.gated) {
    // COND holds one value: the pending block's ACK or FIN will follow.
    outcome.transition = SlotTransition::kFinAwaitingPending;
    return outcome;
  }
  outcome.done[outcome.finished++] = core.running;
  if (core.pending.valid) {  // gated: it has not started, so it cannot ACK yet
    core.running = core.pending;
    core.pending.valid = false;
    core.running_acked = false;
    outcome.transition = SlotTransition::kGatedPromoted;
  } else {
    core.running.valid = false;
    outcome.transition = SlotTransition::kRunningFinished;
  }
  return outcome;
}

}  // namespace pto

#endif  // PTO_MODELS_AICPU_CORE_SLOTS_H_
