#ifndef PTO_MODELS_AICPU_TENSOR_MAP_H_
#define PTO_MODELS_AICPU_TENSOR_MAP_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "common/block_pool.h"
#include "common/seq_index.h"
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
// and visited newest first. Entries live in a pool of fixed blocks, linked by
// index into a per-buffer chain and a per-producer chain, so lookup, insert,
// remove and retirement allocate nothing once the pool has grown to the
// in-flight window.
class TensorMap {
 public:
  TensorMap() = default;
  // `indexed`: a buffer whose chain grows past kIndexFrom entries gets an
  // index by first byte, and lookups in it visit only the entries that can
  // overlap instead of the whole chain (the same matches, ordered newest
  // producer first). For a map that, unlike the runtime's, holds far more
  // than the in-flight window (the hazard detector's program-order map);
  // the probe count is then the entries the index visited.
  explicit TensorMap(bool indexed) : indexed_(indexed) {}
  // A buffer's chain length at which an indexed map starts its index, and
  // at which it drops it again (apart, so that a buffer at the edge does
  // not rebuild it over and over).
  static constexpr uint32_t kIndexFrom = 32;
  static constexpr uint32_t kIndexUntil = 8;
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

  // The view `entry` registered.
  TensorView view(uint32_t entry) const;
  TaskSeq producer(uint32_t entry) const { return entries_[entry].producer; }
  // Live entries.
  size_t size() const { return live_entries_; }
  // Root buffers with at least one live entry.
  size_t buffer_count() const { return live_buffers_; }
  // Producers with at least one live entry.
  size_t producer_count() const { return producer_heads_.size(); }
  // Distinct layouts (dtype, shape, strides) of the live entries.
  size_t layout_count() const { return layout_ids_.size(); }
  // Buffer slots held, live or emptied (at most twice the live ones + 64).
  size_t buffer_slots() const { return buffer_heads_.size(); }

 private:
  static constexpr uint32_t kNil = UINT32_MAX;

  // What views share beyond their buffer and offset: kept once per
  // distinct value (a map holds thousands of views of a few layouts).
  struct Layout {
    DType dtype = trace::DTYPE_UNSPECIFIED;
    int32_t ndims = 0;
    int64_t shape[kMaxTensorDims] = {};
    int64_t strides[kMaxTensorDims] = {};

    bool operator==(const Layout& other) const;
    template <typename H>
    friend H AbslHashValue(H h, const Layout& layout) {
      return H::combine(std::move(h), layout.dtype, layout.ndims,
                        absl::MakeConstSpan(layout.shape, layout.ndims),
                        absl::MakeConstSpan(layout.strides, layout.ndims));
    }
  };

  // A registered view: its buffer and place, its layout by id, and its
  // chains. 64 bytes: a lookup walks them.
  struct Entry {
    uint64_t base_addr = 0;
    int64_t start_offset = 0;
    ByteRange bytes;  // of the view, computed once at insert
    TaskSeq producer = 0;
    uint32_t tensor_id = 0;
    uint32_t layout = kNil;  // kNil: free
    // Per-buffer chain, newest first.
    uint32_t newer_in_buffer = kNil;
    uint32_t older_in_buffer = kNil;
    // Per-producer chain.
    uint32_t prev_in_producer = kNil;
    uint32_t next_in_producer = kNil;
  };
  static_assert(sizeof(Entry) == 64, "a lookup walks entries: one cache line each");

  // A root buffer's chain. A buffer whose chain empties keeps its slot (a
  // buffer rewritten task after task would otherwise leave and re-enter
  // the table each time) until the empty ones outnumber the rest.
  struct Buffer {
    uint32_t newest = kNil;
    uint32_t entries = 0;
  };
  // A long chain's index: (first byte, entry) of each of its entries, and
  // the widest span any of them ever had, which bounds how far before a
  // view an overlapping entry can start.
  struct BufferIndex {
    absl::btree_set<std::pair<uint64_t, uint32_t>> by_first_byte;
    uint64_t widest = 0;
  };

  uint32_t NewEntry();
  void Unlink(uint32_t entry);
  void AddToIndex(BufferIndex& index, uint32_t entry) const;
  uint32_t InternLayout(const TensorView& view);
  void ReleaseLayout(uint32_t layout);
  // Classifies `view` against `entry`, expanding the entry's view only when
  // their bytes meet.
  Overlap Classify(const TensorView& view, const ByteRange& bytes, uint32_t entry) const;

  int IndexedLookup(const BufferIndex& index, const TensorView& view, const ByteRange& bytes,
                    std::vector<TensorMapMatch>* matches) const;

  bool indexed_ = false;
  BlockPool<Entry> entries_;  // never moves nor doubles
  std::vector<uint32_t> free_entries_;
  size_t live_entries_ = 0;
  // Root buffer address -> its chain.
  absl::flat_hash_map<uint64_t, Buffer> buffer_heads_;
  size_t live_buffers_ = 0;
  // With indexed_: root buffer address -> the index of a long chain.
  absl::flat_hash_map<uint64_t, BufferIndex> buffer_indexes_;
  // Producer -> first entry of its chain; producers are a sliding window.
  SeqIndex<uint32_t> producer_heads_{size_t{1} << 10};
  // Layouts by id, with how many live entries use each.
  std::vector<Layout> layouts_;
  std::vector<uint32_t> layout_uses_;
  std::vector<uint32_t> free_layouts_;
  absl::flat_hash_map<Layout, uint32_t> layout_ids_;
  uint32_t last_layout_ = kNil;  // the last interned: views come in runs
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_TENSOR_MAP_H_
