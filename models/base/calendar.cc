#include "models/base/calendar.h"

#include <cassert>
#include <string>

namespace pto {

Calendar::ClientId Calendar::Add(Client* client, absl::string_view name) {
  assert(slots_.size() <= kClientMask);
  slots_.push_back(Slot{client, kNever, 0, kNotPending});
  counts_.push_back(0);
  names_.emplace_back(name);
  return static_cast<ClientId>(slots_.size() - 1);
}

void Calendar::SiftUp(size_t i) {
  const Entry entry = heap_[i];
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!Later(heap_[parent], entry)) break;
    heap_[i] = heap_[parent];
    Place(i);
    i = parent;
  }
  heap_[i] = entry;
  Place(i);
}

void Calendar::SiftDown(size_t i) {
  const Entry entry = heap_[i];
  const size_t n = heap_.size();
  for (size_t child = 2 * i + 1; child < n; child = 2 * i + 1) {
    if (child + 1 < n && Later(heap_[child], heap_[child + 1])) ++child;
    if (!Later(entry, heap_[child])) break;
    heap_[i] = heap_[child];
    Place(i);
    i = child;
  }
  heap_[i] = entry;
  Place(i);
}

void Calendar::Remove(size_t i) {
  slots_[ClientOf(heap_[i])].pos = kNotPending;
  const Entry last = heap_.back();
  heap_.pop_back();
  if (i == heap_.size()) return;
  heap_[i] = last;
  SiftUp(i);
  SiftDown(static_cast<size_t>(slots_[ClientOf(last)].pos));
}

void Calendar::WakeAt(ClientId client, TimePs at) {
  assert(at >= now_);
  Slot& slot = slots_[client];
  if (slot.wake_at != kNever && slot.wake_at <= at) return;
  slot.wake_at = at;
  slot.key = (next_order_++ << kClientBits) | client;
  if (client == on_top_) {
    // The running client's spent entry is the top: reuse it.
    on_top_ = kNoClient;
    if (at == now_) {
      Remove(0);
    } else {
      heap_[0] = Entry{at, slot.key};
      SiftDown(0);
      return;
    }
  }
  if (running_ && at == now_) {
    // The next delta of this step.
    if (slot.pos >= 0) Remove(static_cast<size_t>(slot.pos));
    slot.pos = kInDelta;
    delta_.push_back(Entry{at, slot.key});
    return;
  }
  if (slot.pos >= 0) {
    heap_[static_cast<size_t>(slot.pos)] = Entry{at, slot.key};
    SiftUp(static_cast<size_t>(slot.pos));
  } else {
    heap_.push_back(Entry{at, slot.key});
    SiftUp(heap_.size() - 1);
  }
  // While running, the driver looks at the next wake when the run ends.
  if (!running_ && driver_ != nullptr) driver_->EarliestMoved(at);
}

void Calendar::Cancel(ClientId client) {
  Slot& slot = slots_[client];
  if (client == on_top_) {
    on_top_ = kNoClient;
    Remove(0);  // its spent entry
  } else if (slot.pos >= 0) {
    Remove(static_cast<size_t>(slot.pos));
  }
  slot.pos = kNotPending;  // a delta entry of it is now stale
  slot.wake_at = kNever;
}

void Calendar::Call(ClientId client, TimePs at) {
  ++counts_[client];
  ++events_;
  now_ = at;
  slots_[client].client->OnWake(at);
}

void Calendar::RunTop() {
  const Entry entry = heap_.front();
  const ClientId client = ClientOf(entry);
  slots_[client].wake_at = kNever;  // spent; its entry stays on top
  on_top_ = client;
  Call(client, entry.at);
  if (on_top_ == client) {
    // Not asked again: drop the spent entry (still on top: every other
    // entry is later, or went to the delta).
    on_top_ = kNoClient;
    Remove(0);
  }
}

void Calendar::RunDelta(const Entry& entry) {
  Slot& slot = slots_[ClientOf(entry)];
  slot.wake_at = kNever;
  slot.pos = kNotPending;
  Call(ClientOf(entry), entry.at);
}

uint64_t Calendar::RunUntil(TimePs until) {
  assert(!running_);
  running_ = true;
  stop_ = false;
  const uint64_t before = events_;
  std::vector<Entry>& current = running_delta_;
  while (!stop_ && !heap_.empty() && heap_.front().at <= until) {
    const TimePs step = heap_.front().at;
    // The step's first delta: every wake asked for earlier, first asked
    // first...
    while (!stop_ && !heap_.empty() && heap_.front().at == step) RunTop();
    // ...then the wakes asked for during it, delta by delta, each delta's
    // last asked first (as SystemC triggers a delta's notifications).
    while (!stop_ && !delta_.empty()) {
      current.swap(delta_);
      for (auto it = current.rbegin(); it != current.rend() && !stop_; ++it) {
        const Slot& slot = slots_[ClientOf(*it)];
        if (slot.pos == kInDelta && slot.key == it->key) RunDelta(*it);
      }
      current.clear();
    }
  }
  running_ = false;
  return events_ - before;
}

}  // namespace pto
