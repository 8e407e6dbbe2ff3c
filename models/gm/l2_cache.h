#ifndef PTO_MODELS_GM_L2_CACHE_H_
#define PTO_MODELS_GM_L2_CACHE_H_

#include <cstdint>
#include <vector>

#include "models/base/chip_config.h"
#include "models/gm/gm_request.h"

namespace pto {

// How one transfer fared in L2, line by line.
struct L2Access {
  int64_t hit_lines = 0;
  int64_t miss_lines = 0;
  int64_t dirty_evictions = 0;  // written lines pushed out: HBM writes owed
};

// The chip's shared L2 as a tag store (no data: GM's image holds the bytes):
// lines of gm.l2_line_bytes, gm.l2_capacity_bytes in total, in sets of
// gm.l2_associativity ways, least recently used way replaced first (ways =
// capacity in lines makes it fully associative). Consecutive lines fall in
// consecutive sets. Reads and writes both allocate; written lines are dirty,
// and evicting one is reported (L2Access::dirty_evictions) so the caller can
// charge the HBM write. The tag store is allocated once (8 bytes per line:
// 3 MiB for 192 MiB of 512 B lines); accesses never allocate.
class L2Cache {
 public:
  explicit L2Cache(const GmParams& params);

  // Touches every line of [addr, addr + size): hits become most recently
  // used, misses are allocated; a write marks its lines dirty. Counters
  // accumulate.
  L2Access Access(uint64_t addr, uint64_t size, bool is_write = false);

  // Access for each row of a transfer (one call when the rows abut). A
  // read's bytes split into hit and miss bytes in proportion to its lines
  // (a row sharing a line with the next is not charged twice); a write's
  // bytes all land in L2 (write-back). Adds the bytes of the dirty lines
  // evicted to `*dirty_evicted_bytes`. Rows that repeat one range (stride
  // 0, a stream read or written over and over) touch it twice; the passes
  // after the second fare as the second did, so the cost is bounded.
  L2Split AccessRuns(const GmRuns& runs, bool is_write, int64_t* dirty_evicted_bytes);

  // Latency to the first byte of a transfer: the miss latency when any line
  // missed, else the hit latency (ps). Bandwidth time is the HBM model's.
  int64_t LatencyPs(const L2Access& access) const;

  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }
  int64_t evictions() const { return evictions_; }
  int64_t dirty_evictions() const { return dirty_evictions_; }
  void ResetCounters() { hits_ = misses_ = evictions_ = dirty_evictions_ = 0; }

  int64_t line_bytes() const { return line_bytes_; }
  int64_t capacity_lines() const { return sets_ * ways_; }
  int64_t ways() const { return ways_; }
  int64_t resident_lines() const { return resident_; }
  bool Contains(uint64_t addr) const;

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  static uint64_t LineOfSlot(uint64_t slot) { return slot >> 1; }

  int64_t line_bytes_;
  int line_shift_;
  int64_t ways_;
  int64_t sets_;
  int64_t hit_latency_ps_;
  int64_t miss_latency_ps_;
  // Set s at [s * ways, (s + 1) * ways), most recently used way first: the
  // line number it holds shifted left by one, the dirty bit in bit 0; empty
  // ways (kEmpty) trail the used ones. A set is two host cache lines at 16
  // ways, so a lookup touches little memory; LRU order is kept by moving
  // the way used to the front.
  std::vector<uint64_t> slots_;
  int64_t resident_ = 0;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
  int64_t evictions_ = 0;
  int64_t dirty_evictions_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_GM_L2_CACHE_H_
