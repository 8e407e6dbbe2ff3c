#ifndef PTO_MODELS_GM_L2_TRANSFER_CACHE_H_
#define PTO_MODELS_GM_L2_TRANSFER_CACHE_H_

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "models/base/chip_config.h"
#include "models/gm/l2_model.h"
#include "models/gm/strided_lines.h"

namespace pto {

// The L2 as one fully associative LRU list of transfers rather than of
// lines, so that a tile of 64 strided rows costs a few operations, not 64
// or 256. Each entry is the lines one transfer left resident, as
// StridedLines, with one recency and a count of dirty lines; entries never
// share a line. A transfer's lines are counted against the entries it
// overlaps (closed form for a shared stride), taken out of them (the rest
// keeps its recency, split into as few strided entries as it takes), and
// become one new most recent entry. Over capacity, the oldest entry loses
// its lines from the front: its first rows were moved first. Touching a
// transfer's lines at once is exact unless its misses would push out lines
// it hits later; when the oldest lines it displaces may hold some, its
// halves are touched in turn (down to single lines, if need be). So this is
// per-line LRU over a fully associative cache but for one thing: an entry
// that mixes dirty and clean lines (a read of lines partly written) keeps a
// count, not which ones, and gives dirty lines up in proportion, also to a
// write over some of them. On random transfers of every shape that writes
// back 0.3 % more dirty lines than per-line LRU (L2TransferCacheTest).
// Conflict misses (lines of one set pushing each other out while other
// sets have room) are not modelled: gm.l2_associativity > 0 selects the
// set-associative L2Cache for that, at a higher host cost.
class L2TransferCache : public L2Model {
 public:
  explicit L2TransferCache(const GmParams& params);

  bool Contains(uint64_t addr) const override;
  int64_t resident_lines() const override { return resident_; }
  // The entries held: what the host pays for, not what the chip holds.
  int64_t entries() const { return live_; }

 protected:
  L2Access TouchRange(uint64_t addr, uint64_t size, bool is_write) override;
  L2Access TouchRows(const GmRuns& runs, bool is_write) override;

 private:
  static constexpr uint32_t kNil = ~uint32_t{0};
  // Entries are indexed by first line, at the level whose span (128 × 2^k
  // lines) is the smallest that covers theirs (the last takes any span). A
  // lookup looks back from a range by the widest span its level holds, so
  // that entries of one shape cost no scan over entries that end before it.
  static constexpr int kLevels = 56;
  struct Entry {
    StridedLines lines;
    int64_t dirty = 0;
    uint32_t newer = kNil;
    uint32_t older = kNil;
    int level = -1;
    uint64_t mark = 0;  // mark_ when the transfer being touched hits it
  };
  // What the index keeps of an entry, so that most entries a transfer's
  // span meets are ruled out without a look at the entry: one whose rows
  // share the transfer's stride but start at other offsets in it (another
  // core's columns of the same tensor) holds none of its lines.
  struct IndexedSpan {
    uint64_t end;     // the line past its last row
    uint64_t stride;  // 0: one row
    uint64_t length;
    uint64_t phase;  // first % stride
  };
  // How many of the oldest entries TailHoldsMarked looks at.
  static constexpr int kTailWalk = 32;

  void Touch(const StridedLines& set, bool is_write, L2Access* out);
  // Whether the `evict` oldest lines may include lines of a marked entry.
  bool TailHoldsMarked(int64_t evict) const;
  // The entries whose span meets `set`'s, into overlapping_.
  void FindOverlapping(const StridedLines& set);
  // Replaces entry `index`'s lines with what `set` leaves of them, in
  // `index` and new entries of the same recency.
  void KeepRest(uint32_t index, const StridedLines& set, int64_t dirty_left);
  // Extends the newest entry by `set` when its shape continues it and both
  // are all clean or all dirty.
  bool AppendToNewest(const StridedLines& set, int64_t dirty);
  void EvictToCapacity(L2Access* out);

  uint32_t Allocate(const StridedLines& lines, int64_t dirty);
  // Links entry `index` just newer than `older` (kNil: as the oldest).
  void LinkNewerThan(uint32_t older, uint32_t index);
  void Unlink(uint32_t index);
  void Index(uint32_t index);
  void Unindex(uint32_t index);
  void Release(uint32_t index);
  static int LevelOf(uint64_t span_lines);
  static uint64_t LevelSpan(int level) { return uint64_t{128} << level; }

  std::vector<Entry> entries_;
  std::vector<uint32_t> free_;
  uint32_t newest_ = kNil;
  uint32_t oldest_ = kNil;
  std::array<absl::btree_map<std::pair<uint64_t, uint32_t>, IndexedSpan>, kLevels> index_;
  uint64_t used_levels_ = 0;  // bit k: index_[k] is not empty
  // Per level, the widest span (lines) indexed there since it was empty.
  std::array<uint64_t, kLevels> widest_{};
  std::vector<uint32_t> overlapping_;
  std::vector<uint64_t> commons_;  // lines in common, per overlapping_ entry
  uint64_t mark_ = 0;
  StridedLinesBuilder rest_builder_;
  StridedLinesBuilder row_builder_;
  int64_t resident_ = 0;
  int64_t live_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_GM_L2_TRANSFER_CACHE_H_
