#ifndef PTO_MODELS_GM_L2_CACHE_H_
#define PTO_MODELS_GM_L2_CACHE_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "models/base/chip_config.h"
#include "models/gm/gm_request.h"
#include "models/gm/l2_model.h"

namespace pto {

// The L2 as sets of gm.l2_associativity ways, least recently used line
// replaced first (ways = capacity in lines makes it fully associative).
// Consecutive lines fall in consecutive sets.
//
// Tracked by regions, so that a streamed megabyte costs a few dozen
// operations, not one per line: a region is up to kRegionLines consecutive
// lines (32 KiB of 512 B lines), which fall in as many consecutive sets, and
// the regions whose lines share those sets form a group. A touch of some of
// a region's lines records them, with one recency, as a segment; a later
// touch takes its lines out of older segments, so every line's recency is
// that of its last touch, as under per-line LRU. Two approximations: a
// group pools the ways of its sets, so it holds its `ways × region lines`
// most recently used lines wherever they fall, where per-line LRU would
// evict inside the one set a line maps to; and a region keeps at most
// kMaxSegmentsPerRegion recencies, its oldest two merging into the older
// (L2RegionTrackingTest bounds the difference on a reuse pattern).
// region_lines = 1 is exact per-line LRU.
class L2Cache : public L2Model {
 public:
  static constexpr int64_t kRegionLines = 64;
  // `region_lines` is rounded down to a power of two that divides the set
  // count.
  explicit L2Cache(const GmParams& params, int64_t region_lines = kRegionLines);

  bool Contains(uint64_t addr) const override;
  int64_t resident_lines() const override { return resident_; }
  int64_t ways() const { return ways_; }
  int64_t region_lines() const { return region_lines_; }

 protected:
  L2Access TouchRange(uint64_t addr, uint64_t size, bool is_write) override;
  // Rows in ascending order gather their lines region by region (rows
  // sharing a region touch it once).
  L2Access TouchRows(const GmRuns& runs, bool is_write) override;

 private:
  static constexpr uint32_t kNil = ~uint32_t{0};
  static constexpr int kMaxSegmentsPerRegion = 16;
  // Lines of one region last touched together, on its group's recency list
  // and on its region's chain.
  struct Segment {
    uint64_t region = 0;  // first line / region_lines
    uint64_t lines = 0;   // bit i: line i of the region
    uint64_t dirty = 0;
    uint32_t newer = kNil;  // toward the group's most recently used segment
    uint32_t older = kNil;
    uint32_t newer_in_region = kNil;
    uint32_t older_in_region = kNil;
    uint32_t entry = kNil;  // its region's, in entries_
  };
  // A region with resident lines: its segments, newest first.
  struct RegionEntry {
    uint32_t newest = kNil;
    uint32_t oldest = kNil;
    int32_t segments = 0;
    uint64_t lines = 0;  // the union of its segments' lines
  };
  struct Group {
    uint32_t newest = kNil;
    uint32_t oldest = kNil;
    int64_t resident = 0;  // lines
  };

  // Touches the lines `mask` of region `number`, with the counters in `out`.
  void Touch(uint64_t number, uint64_t mask, bool is_write, L2Access* out);
  // Takes `lines` out of segment `index` of `region`, freeing the segment
  // when none are left (the caller erases a region left with none).
  void Drop(RegionEntry& region, uint32_t index, uint64_t lines);
  // The lowest `n` set bits of `bits` (all when fewer), adding their count
  // to *taken.
  static uint64_t LowestBits(uint64_t bits, int64_t n, int64_t* taken);
  // Mask of the lines [first, last] of the region starting at line `base`.
  static uint64_t LineMask(uint64_t base, uint64_t first, uint64_t last);
  // Touches the lines of [addr, addr + size), gathering the bits of a
  // region across calls in pending_* so consecutive rows touch it once.
  void Gather(uint64_t addr, uint64_t size, bool is_write, L2Access* out);
  void FlushPending(bool is_write, L2Access* out);
  // Brings region `number`'s state toward the host's cache (no effect on
  // the model), kPrefetchRows rows before a strided transfer touches it;
  // its hash slot is asked for twice as far ahead, so that the lookup here
  // finds it.
  static constexpr int64_t kPrefetchRows = 4;
  void Prefetch(uint64_t number) const;
  void Unlink(Group& group, uint32_t index);
  void PushNewest(Group& group, uint32_t index);

  int64_t ways_;
  int64_t sets_;
  int64_t region_lines_;
  int region_shift_;
  uint64_t groups_count_;
  int64_t group_capacity_lines_;
  std::vector<Segment> segments_;
  std::vector<uint32_t> free_segments_;
  std::vector<RegionEntry> entries_;
  std::vector<uint32_t> free_entries_;
  absl::flat_hash_map<uint64_t, uint32_t> entry_of_region_;
  std::vector<Group> groups_;
  uint64_t pending_number_ = 0;
  uint64_t pending_mask_ = 0;
  int64_t resident_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_GM_L2_CACHE_H_
