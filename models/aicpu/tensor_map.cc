#include "models/aicpu/tensor_map.h"

#include <algorithm>
#include <cassert>

namespace pto {

bool TensorMap::Layout::operator==(const Layout& other) const {
  return dtype == other.dtype && ndims == other.ndims &&
         std::equal(shape, shape + ndims, other.shape) &&
         std::equal(strides, strides + ndims, other.strides);
}

TensorView TensorMap::view(uint32_t e) const {
  const Entry& entry = entries_[e];
  const Layout& layout = layouts_[entry.layout];
  TensorView view;
  view.tensor_id = entry.tensor_id;
  view.base_addr = entry.base_addr;
  view.dtype = layout.dtype;
  view.ndims = layout.ndims;
  view.start_offset = entry.start_offset;
  std::copy(layout.shape, layout.shape + kMaxTensorDims, view.shape);
  std::copy(layout.strides, layout.strides + kMaxTensorDims, view.strides);
  return view;
}

Overlap TensorMap::Classify(const TensorView& view, const ByteRange& bytes, uint32_t e) const {
  const Entry& entry = entries_[e];
  // The cheap tests first: most entries of a buffer share no byte with it.
  if (entry.base_addr != view.base_addr || entry.bytes.end <= bytes.begin ||
      bytes.end <= entry.bytes.begin) {
    return Overlap::kNone;
  }
  return ClassifyOverlap(view, bytes, this->view(e), entry.bytes);
}

int TensorMap::Lookup(const TensorView& view, std::vector<TensorMapMatch>* matches) const {
  matches->clear();
  auto head = buffer_heads_.find(view.base_addr);
  if (head == buffer_heads_.end() || head->second.entries == 0) return 0;
  const ByteRange bytes = ByteRangeOf(view);
  if (indexed_ && head->second.entries >= kIndexUntil) {
    auto index = buffer_indexes_.find(view.base_addr);
    if (index != buffer_indexes_.end()) return IndexedLookup(index->second, view, bytes, matches);
  }
  int probed = 0;
  for (uint32_t e = head->second.newest; e != kNil; e = entries_[e].older_in_buffer) {
    ++probed;
    const Overlap overlap = Classify(view, bytes, e);
    if (overlap != Overlap::kNone) matches->push_back({e, entries_[e].producer, overlap});
  }
  return probed;
}

int TensorMap::IndexedLookup(const BufferIndex& index, const TensorView& view,
                             const ByteRange& bytes, std::vector<TensorMapMatch>* matches) const {
  int probed = 0;
  const uint64_t from = bytes.begin > index.widest ? bytes.begin - index.widest : 0;
  for (auto it = index.by_first_byte.lower_bound({from, 0});
       it != index.by_first_byte.end() && it->first < bytes.end; ++it) {
    ++probed;
    const Overlap overlap = Classify(view, bytes, it->second);
    if (overlap != Overlap::kNone) {
      matches->push_back({it->second, entries_[it->second].producer, overlap});
    }
  }
  std::sort(matches->begin(), matches->end(), [](const TensorMapMatch& a, const TensorMapMatch& b) {
    return a.producer != b.producer ? a.producer > b.producer : a.entry > b.entry;
  });
  return probed;
}

void TensorMap::AddToIndex(BufferIndex& index, uint32_t e) const {
  const ByteRange& bytes = entries_[e].bytes;
  index.by_first_byte.insert({bytes.begin, e});
  index.widest = std::max(index.widest, bytes.end - bytes.begin);
}

uint32_t TensorMap::InternLayout(const TensorView& view) {
  Layout layout;
  layout.dtype = view.dtype;
  layout.ndims = view.ndims;
  std::copy(view.shape, view.shape + view.ndims, layout.shape);
  std::copy(view.strides, view.strides + view.ndims, layout.strides);
  uint32_t id = last_layout_;
  if (id == kNil || layout_uses_[id] == 0 || !(layouts_[id] == layout)) {
    auto [it, is_new] = layout_ids_.try_emplace(layout, 0);
    if (is_new) {
      if (free_layouts_.empty()) {
        it->second = static_cast<uint32_t>(layouts_.size());
        layouts_.push_back(layout);
        layout_uses_.push_back(0);
      } else {
        it->second = free_layouts_.back();
        free_layouts_.pop_back();
        layouts_[it->second] = layout;
      }
    }
    id = it->second;
  }
  ++layout_uses_[id];
  last_layout_ = id;
  return id;
}

void TensorMap::ReleaseLayout(uint32_t id) {
  if (--layout_uses_[id] > 0) return;
  layout_ids_.erase(layouts_[id]);
  free_layouts_.push_back(id);
}

uint32_t TensorMap::NewEntry() {
  if (!free_entries_.empty()) {
    const uint32_t e = free_entries_.back();
    free_entries_.pop_back();
    return e;
  }
  return entries_.Add();
}

void TensorMap::Insert(const TensorView& view, TaskSeq producer) {
  const uint32_t e = NewEntry();
  Entry& entry = entries_[e];
  entry.base_addr = view.base_addr;
  entry.start_offset = view.start_offset;
  entry.bytes = ByteRangeOf(view);
  entry.producer = producer;
  entry.tensor_id = view.tensor_id;
  entry.layout = InternLayout(view);
  ++live_entries_;

  Buffer& buffer = buffer_heads_[view.base_addr];
  if (buffer.entries == 0) ++live_buffers_;
  entry.newer_in_buffer = kNil;
  entry.older_in_buffer = buffer.newest;
  if (buffer.newest != kNil) entries_[buffer.newest].newer_in_buffer = e;
  buffer.newest = e;
  ++buffer.entries;
  if (indexed_ && buffer.entries >= kIndexUntil) {
    auto index = buffer_indexes_.find(view.base_addr);
    if (index != buffer_indexes_.end()) {
      AddToIndex(index->second, e);
    } else if (buffer.entries >= kIndexFrom) {  // long enough now: index the chain
      BufferIndex& built = buffer_indexes_[view.base_addr];
      for (uint32_t c = e; c != kNil; c = entries_[c].older_in_buffer) AddToIndex(built, c);
    }
  }

  entry.prev_in_producer = kNil;
  if (uint32_t* head = producer_heads_.Find(producer)) {
    entry.next_in_producer = *head;
    entries_[*head].prev_in_producer = e;
    *head = e;
  } else {
    entry.next_in_producer = kNil;
    producer_heads_.Insert(producer, e);
  }
}

// Takes `e` out of its buffer chain and frees it; the caller fixes the
// producer chain.
void TensorMap::Unlink(uint32_t e) {
  Entry& entry = entries_[e];
  assert(entry.layout != kNil);
  auto buffer = buffer_heads_.find(entry.base_addr);
  assert(buffer != buffer_heads_.end());
  if (entry.older_in_buffer != kNil) {
    entries_[entry.older_in_buffer].newer_in_buffer = entry.newer_in_buffer;
  }
  if (entry.newer_in_buffer != kNil) {
    entries_[entry.newer_in_buffer].older_in_buffer = entry.older_in_buffer;
  } else {
    buffer->second.newest = entry.older_in_buffer;
  }
  const uint32_t left = --buffer->second.entries;
  if (indexed_ && left + 1 >= kIndexUntil) {
    auto index = buffer_indexes_.find(entry.base_addr);
    if (index != buffer_indexes_.end()) {
      if (left < kIndexUntil) {
        buffer_indexes_.erase(index);  // short again: the chain walk is cheaper
      } else {
        index->second.by_first_byte.erase({entry.bytes.begin, e});
      }
    }
  }
  if (left == 0) {
    --live_buffers_;
    // Empty slots outnumbering the live ones: drop them all, O(1)
    // amortised per emptied buffer.
    if (buffer_heads_.size() > 2 * live_buffers_ + 64) {
      absl::erase_if(buffer_heads_, [](const auto& slot) { return slot.second.entries == 0; });
    }
  }
  ReleaseLayout(entry.layout);
  entry.layout = kNil;
  --live_entries_;
  free_entries_.push_back(e);
}

void TensorMap::Remove(uint32_t e) {
  Entry& entry = entries_[e];
  if (entry.prev_in_producer != kNil) {
    entries_[entry.prev_in_producer].next_in_producer = entry.next_in_producer;
  } else if (entry.next_in_producer != kNil) {
    *producer_heads_.Find(entry.producer) = entry.next_in_producer;
  } else {
    producer_heads_.Erase(entry.producer);
  }
  if (entry.next_in_producer != kNil) {
    entries_[entry.next_in_producer].prev_in_producer = entry.prev_in_producer;
  }
  Unlink(e);
}

void TensorMap::EraseProducer(TaskSeq producer) {
  uint32_t* head = producer_heads_.Find(producer);
  if (head == nullptr) return;
  for (uint32_t e = *head; e != kNil;) {
    const uint32_t next = entries_[e].next_in_producer;
    Unlink(e);
    e = next;
  }
  producer_heads_.Erase(producer);
}

void TensorMap::Clear() {
  entries_.clear();
  free_entries_.clear();
  live_entries_ = 0;
  buffer_heads_.clear();
  live_buffers_ = 0;
  buffer_indexes_.clear();
  producer_heads_ = SeqIndex<uint32_t>(size_t{1} << 10);
  layouts_.clear();
  layout_uses_.clear();
  free_layouts_.clear();
  layout_ids_.clear();
  last_layout_ = kNil;
}

}  // namespace pto
