#ifndef PTO_COMMON_SEQ_INDEX_H_
#define PTO_COMMON_SEQ_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace pto {

// A map from sequence numbers to values for a sliding window of live ones
// (tasks in flight): entry seq % kSlots of a fixed array, or an overflow
// hash map when another live number holds that slot (only when live numbers
// are more than kSlots apart). A lookup is then one load and one compare,
// and memory does not grow with the length of the run.
template <typename V>
class SeqIndex {
 public:
  static constexpr size_t kSlots = size_t{1} << 16;

  SeqIndex() : slots_(kSlots) {}

  // `seq` must not be in the index.
  void Insert(uint64_t seq, V value) {
    Slot& slot = slots_[seq % kSlots];
    if (slot.seq == kEmpty) {
      slot = {seq, value};
    } else {
      overflow_.emplace(seq, value);
    }
    ++size_;
  }

  V* Find(uint64_t seq) {
    Slot& slot = slots_[seq % kSlots];
    if (slot.seq == seq) return &slot.value;
    if (overflow_.empty()) return nullptr;
    auto it = overflow_.find(seq);
    return it == overflow_.end() ? nullptr : &it->second;
  }
  const V* Find(uint64_t seq) const { return const_cast<SeqIndex*>(this)->Find(seq); }
  bool contains(uint64_t seq) const { return Find(seq) != nullptr; }

  void Erase(uint64_t seq) {
    Slot& slot = slots_[seq % kSlots];
    if (slot.seq == seq) {
      slot.seq = kEmpty;
      --size_;
    } else if (overflow_.erase(seq) > 0) {
      --size_;
    }
  }

  size_t size() const { return size_; }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  struct Slot {
    uint64_t seq = kEmpty;
    V value{};
  };
  std::vector<Slot> slots_;
  absl::flat_hash_map<uint64_t, V> overflow_;
  size_t size_ = 0;
};

}  // namespace pto

#endif  // PTO_COMMON_SEQ_INDEX_H_
