#ifndef PTO_MODELS_AICPU_TENSOR_MAP_H_
#define PTO_MODELS_AICPU_TENSOR_MAP_H_

#include <cstdint>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "models/aicpu/overlap.h"
#include "models/aicpu/tensor_view.h"
#include "models/base/ids.h"

namespace pto {

// One registered producer region whose view overlaps a looked-up view.
struct TensorMapMatch {
  // Handle for TensorMap::view() / Remove(); stays valid until that entry is
  // removed (removing other entries does not move it).
  uint32_t entry;
  TaskSeq producer;
  Overlap overlap;  // kCovered or kOther
};

// The runtime's TensorMap: which in-flight task last wrote which region of
// which root buffer. Entries are grouped by root buffer (the runtime hashes
// on the buffer address only, so all views of one buffer meet in one chain)
// and visited newest first. Entries live in a pooled vector linked by index
// into a per-buffer chain and a per-producer chain, so lookup, insert, remove
// and retirement allocate nothing once the pool has grown to the in-flight
// window.
class TensorMap {
 public:
  TensorMap() = default;
  // `indexed`: lookups find overlapping entries through an index by first
  // byte instead of walking the buffer's chain (the same matches, ordered
  // newest producer first). For a map that, unlike the runtime's, holds far
  // more than the in-flight window (the hazard detector's program-order
  // map); the probe count is then the entries the index visited.
  explicit TensorMap(bool indexed) : indexed_(indexed) {}
  TensorMap(const TensorMap&) = delete;
  TensorMap& operator=(const TensorMap&) = delete;

  // Replaces `*matches` with every entry of `view`'s root buffer that overlaps
  // it, newest first. Returns how many entries were probed (the chain length,
  // which the orchestrator charges time for).
  int Lookup(const TensorView& view, std::vector<TensorMapMatch>* matches) const;

  // Registers `producer` as the newest writer of `view`.
  void Insert(const TensorView& view, TaskSeq producer);

  // Drops one entry returned by Lookup (INOUT covering an older write).
  void Remove(uint32_t entry);

  // Drops every entry `producer` registered; O(its entries). Called when the
  // task retires, so the map holds only the in-flight window.
  void EraseProducer(TaskSeq producer);

  // Forgets everything (the next launch starts with an empty map).
  void Clear();

  const TensorView& view(uint32_t entry) const { return entries_[entry].view; }
  TaskSeq producer(uint32_t entry) const { return entries_[entry].producer; }
  // Live entries.
  size_t size() const { return live_entries_; }
  // Root buffers with at least one live entry.
  size_t buffer_count() const { return buffer_heads_.size(); }
  // Producers with at least one live entry.
  size_t producer_count() const { return producer_heads_.size(); }

 private:
  static constexpr uint32_t kNil = UINT32_MAX;

  struct Entry {
    TensorView view;
    ByteRange bytes;  // of view, computed once at insert
    TaskSeq producer = 0;
    // Per-buffer chain, newest first.
    uint32_t newer_in_buffer = kNil;
    uint32_t older_in_buffer = kNil;
    // Per-producer chain.
    uint32_t prev_in_producer = kNil;
    uint32_t next_in_producer = kNil;
    bool live = false;
  };

  uint32_t NewEntry();
  void Unlink(uint32_t entry);

  int IndexedLookup(const TensorView& view, const ByteRange& bytes,
                    std::vector<TensorMapMatch>* matches) const;

  bool indexed_ = false;
  // With indexed_: (first byte, entry) of every live entry, and the widest
  // span any entry ever had, which bounds how far before a view an
  // overlapping entry can start.
  absl::btree_set<std::pair<uint64_t, uint32_t>> by_first_byte_;
  uint64_t widest_ = 0;
  std::vector<Entry> entries_;
  std::vector<uint32_t> free_entries_;
  size_t live_entries_ = 0;
  // Root buffer address -> newest entry.
  absl::flat_hash_map<uint64_t, uint32_t> buffer_heads_;
  // Producer -> first entry of its chain.
  absl::flat_hash_map<TaskSeq, uint32_t> producer_heads_;
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_TENSOR_MAP_H_
