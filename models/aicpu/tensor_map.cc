#include "models/aicpu/tensor_map.h"

#include <algorithm>
#include <cassert>

namespace pto {

int TensorMap::Lookup(const TensorView& view, std::vector<TensorMapMatch>* matches) const {
  matches->clear();
  auto head = buffer_heads_.find(view.base_addr);
  if (head == buffer_heads_.end()) return 0;
  const ByteRange bytes = ByteRangeOf(view);
  if (indexed_) return IndexedLookup(view, bytes, matches);
  int probed = 0;
  for (uint32_t e = head->second; e != kNil; e = entries_[e].older_in_buffer) {
    ++probed;
    const Entry& entry = entries_[e];
    const Overlap overlap = ClassifyOverlap(view, bytes, entry.view, entry.bytes);
    if (overlap != Overlap::kNone) matches->push_back({e, entry.producer, overlap});
  }
  return probed;
}

int TensorMap::IndexedLookup(const TensorView& view, const ByteRange& bytes,
                             std::vector<TensorMapMatch>* matches) const {
  int probed = 0;
  const uint64_t from = bytes.begin > widest_ ? bytes.begin - widest_ : 0;
  for (auto it = by_first_byte_.lower_bound({from, 0});
       it != by_first_byte_.end() && it->first < bytes.end; ++it) {
    ++probed;
    const Entry& entry = entries_[it->second];
    if (entry.bytes.end <= bytes.begin || entry.view.base_addr != view.base_addr) continue;
    const Overlap overlap = ClassifyOverlap(view, bytes, entry.view, entry.bytes);
    if (overlap != Overlap::kNone) matches->push_back({it->second, entry.producer, overlap});
  }
  std::sort(matches->begin(), matches->end(), [](const TensorMapMatch& a, const TensorMapMatch& b) {
    return a.producer != b.producer ? a.producer > b.producer : a.entry > b.entry;
  });
  return probed;
}

uint32_t TensorMap::NewEntry() {
  if (!free_entries_.empty()) {
    const uint32_t e = free_entries_.back();
    free_entries_.pop_back();
    return e;
  }
  entries_.emplace_back();
  return static_cast<uint32_t>(entries_.size() - 1);
}

void TensorMap::Insert(const TensorView& view, TaskSeq producer) {
  const uint32_t e = NewEntry();
  Entry& entry = entries_[e];
  entry.view = view;
  entry.bytes = ByteRangeOf(view);
  entry.producer = producer;
  entry.live = true;
  ++live_entries_;
  if (indexed_) {
    by_first_byte_.insert({entry.bytes.begin, e});
    widest_ = std::max(widest_, entry.bytes.end - entry.bytes.begin);
  }

  auto [buffer, buffer_is_new] = buffer_heads_.try_emplace(view.base_addr, e);
  entry.newer_in_buffer = kNil;
  entry.older_in_buffer = buffer_is_new ? kNil : buffer->second;
  if (!buffer_is_new) {
    entries_[buffer->second].newer_in_buffer = e;
    buffer->second = e;
  }

  auto [task, task_is_new] = producer_heads_.try_emplace(producer, e);
  entry.prev_in_producer = kNil;
  entry.next_in_producer = task_is_new ? kNil : task->second;
  if (!task_is_new) {
    entries_[task->second].prev_in_producer = e;
    task->second = e;
  }
}

// Takes `e` out of its buffer chain and frees it; the caller fixes the
// producer chain.
void TensorMap::Unlink(uint32_t e) {
  Entry& entry = entries_[e];
  assert(entry.live);
  if (entry.older_in_buffer != kNil) {
    entries_[entry.older_in_buffer].newer_in_buffer = entry.newer_in_buffer;
  }
  if (entry.newer_in_buffer != kNil) {
    entries_[entry.newer_in_buffer].older_in_buffer = entry.older_in_buffer;
  } else if (entry.older_in_buffer != kNil) {
    buffer_heads_[entry.view.base_addr] = entry.older_in_buffer;
  } else {
    buffer_heads_.erase(entry.view.base_addr);
  }
  entry.live = false;
  --live_entries_;
  if (indexed_) by_first_byte_.erase({entry.bytes.begin, e});
  free_entries_.push_back(e);
}

void TensorMap::Remove(uint32_t e) {
  Entry& entry = entries_[e];
  if (entry.prev_in_producer != kNil) {
    entries_[entry.prev_in_producer].next_in_producer = entry.next_in_producer;
  } else if (entry.next_in_producer != kNil) {
    producer_heads_[entry.producer] = entry.next_in_producer;
  } else {
    producer_heads_.erase(entry.producer);
  }
  if (entry.next_in_producer != kNil) {
    entries_[entry.next_in_producer].prev_in_producer = entry.prev_in_producer;
  }
  Unlink(e);
}

void TensorMap::EraseProducer(TaskSeq producer) {
  auto head = producer_heads_.find(producer);
  if (head == producer_heads_.end()) return;
  for (uint32_t e = head->second; e != kNil;) {
    const uint32_t next = entries_[e].next_in_producer;
    Unlink(e);
    e = next;
  }
  producer_heads_.erase(head);
}

void TensorMap::Clear() {
  by_first_byte_.clear();
  widest_ = 0;
  entries_.clear();
  free_entries_.clear();
  live_entries_ = 0;
  buffer_heads_.clear();
  producer_heads_.clear();
}

}  // namespace pto
