#include "models/gm/memory_service.h"

namespace pto {

MemoryService::MemoryService(Calendar* calendar, const MemorySystemParams& params)
    : calendar_(*calendar), wake_(calendar->Add(this, "gm")), system_(params) {}

MemorySystem::RequesterId MemoryService::AddRequester(const RequesterCaps& caps,
                                                      TransferSink* sink) {
  sinks_.push_back(sink);
  return system_.AddRequester(caps);
}

MemorySystem::TransferId MemoryService::Start(MemorySystem::RequesterId requester,
                                              GmDirection direction, const L2Split& split,
                                              double bandwidth_factor) {
  // Flows ending now are finished first (their wake may not have run yet in
  // this delta), so the new flow shares only with those still moving,
  // whichever of the two the calendar ran first.
  const TimePs now = calendar_.now();
  FinishDue(now);
  const MemorySystem::TransferId id =
      system_.Start(now, requester, direction, split, bandwidth_factor);
  ArmNow(now);
  return id;
}

void MemoryService::StartWriteBack(int64_t bytes) {
  const TimePs now = calendar_.now();
  FinishDue(now);
  system_.StartWriteBack(now, bytes);
  ArmNow(now);
}

void MemoryService::FinishDue(TimePs now) {
  // The bound needs no recompute of the rates the starts at this instant
  // left stale (they only delay the others).
  const TimePs due = system_.next_flow_end_bound();
  if (due != kNever && due <= now) OnWake(now);
}

void MemoryService::ArmNow(TimePs now) {
  // Stale rates wait for the next delta of this instant: every transfer
  // started in this one shares one recompute, then Arm finds the next end.
  if (system_.rates_stale()) {
    calendar_.WakeAt(wake_, now);
  } else {
    Arm();
  }
}

void MemoryService::OnWake(TimePs now) {
  completed_.clear();
  system_.AdvanceTo(now, &completed_);
  // A sink may start transfers, which re-enters Start and so this: deliver
  // from a vector of our own, and keep its capacity for the next wake
  // unless a nested wake has taken the member's place.
  std::vector<MemorySystem::Completion> done;
  done.swap(completed_);
  for (const MemorySystem::Completion& c : done) {
    sinks_[static_cast<size_t>(c.requester)]->OnTransferDone(c.transfer, c.done);
  }
  if (completed_.capacity() < done.capacity()) {
    done.clear();
    completed_.swap(done);
  }
  Arm();
}

void MemoryService::Arm() {
  const TimePs next = system_.next_flow_end();
  if (next != kNever) calendar_.WakeAt(wake_, next);
}

}  // namespace pto
