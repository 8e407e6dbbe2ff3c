#ifndef PTO_COMMON_SEQ_INDEX_H_
#define PTO_COMMON_SEQ_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace pto {

// A map from sequence numbers to values for a sliding window of live ones
// (tasks in flight): entry seq % slots of an array, or an overflow hash map
// when another live number holds that slot (when live numbers are more than
// `slots` apart). A lookup is then one load and one compare. The array
// doubles when the overflow outgrows a quarter of it, so memory follows the
// spread of the live numbers, never the length of the run. `Key` may be
// narrower than a sequence number where the caller keeps offsets from a base
// (a slot is then smaller); its all-ones value is reserved.
template <typename V, typename Key = uint64_t>
class SeqIndex {
 public:
  static constexpr size_t kSlots = size_t{1} << 16;
  static constexpr size_t kMaxSlots = size_t{1} << 22;

  // `slots`: a power of two.
  explicit SeqIndex(size_t slots = kSlots) : slots_(slots), mask_(slots - 1) {}

  // `seq` must not be in the index, nor all ones.
  void Insert(Key seq, V value) {
    Slot& slot = slots_[seq & mask_];
    if (slot.seq == kEmpty) {
      slot = {seq, value};
    } else {
      overflow_.emplace(seq, value);
      if (overflow_.size() > slots_.size() / 4 && slots_.size() < kMaxSlots) Grow();
    }
    ++size_;
  }

  V* Find(Key seq) {
    Slot& slot = slots_[seq & mask_];
    if (slot.seq == seq) return &slot.value;
    if (overflow_.empty()) return nullptr;
    auto it = overflow_.find(seq);
    return it == overflow_.end() ? nullptr : &it->second;
  }
  const V* Find(Key seq) const { return const_cast<SeqIndex*>(this)->Find(seq); }
  bool contains(Key seq) const { return Find(seq) != nullptr; }

  void Erase(Key seq) {
    Slot& slot = slots_[seq & mask_];
    if (slot.seq == seq) {
      slot.seq = kEmpty;
      --size_;
    } else if (overflow_.erase(seq) > 0) {
      --size_;
    }
  }

  size_t size() const { return size_; }
  size_t slots() const { return slots_.size(); }

 private:
  static constexpr Key kEmpty = ~Key{0};
  struct Slot {
    Key seq = kEmpty;
    V value{};
  };
  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    absl::flat_hash_map<Key, V> spilled;
    spilled.swap(overflow_);
    const size_t size = size_;
    for (const Slot& slot : old) {
      if (slot.seq != kEmpty) Insert(slot.seq, slot.value);
    }
    for (const auto& [seq, value] : spilled) Insert(seq, value);
    size_ = size;
  }

  std::vector<Slot> slots_;
  size_t mask_;
  absl::flat_hash_map<Key, V> overflow_;
  size_t size_ = 0;
};

}  // namespace pto

#endif  // PTO_COMMON_SEQ_INDEX_H_
