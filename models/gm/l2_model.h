#ifndef PTO_MODELS_GM_L2_MODEL_H_
#define PTO_MODELS_GM_L2_MODEL_H_

#include <cstdint>
#include <memory>

#include "models/base/chip_config.h"
#include "models/gm/gm_request.h"

namespace pto {

// How one transfer fared in L2, line by line.
struct L2Access {
  int64_t hit_lines = 0;
  int64_t miss_lines = 0;
  int64_t dirty_evictions = 0;  // written lines pushed out: HBM writes owed

  L2Access& operator+=(const L2Access& other) {
    hit_lines += other.hit_lines;
    miss_lines += other.miss_lines;
    dirty_evictions += other.dirty_evictions;
    return *this;
  }
};

// The chip's shared L2 as a tag store (no data: GM's image holds the bytes):
// lines of gm.l2_line_bytes, gm.l2_capacity_bytes in total, least recently
// used first out. Reads and writes both allocate; written lines are dirty,
// and evicting one is reported (L2Access::dirty_evictions) so the caller can
// charge the HBM write. Two models keep the tags: L2TransferCache (fully
// associative, one entry per transfer) and L2Cache (set-associative, one
// entry per 32 KiB region); MakeL2Model picks by gm.l2_associativity.
class L2Model {
 public:
  explicit L2Model(const GmParams& params);
  virtual ~L2Model() = default;
  L2Model(const L2Model&) = delete;
  L2Model& operator=(const L2Model&) = delete;

  // Touches every line of [addr, addr + size): hits become most recently
  // used, misses are allocated; a write marks its lines dirty. Counters
  // accumulate.
  L2Access Access(uint64_t addr, uint64_t size, bool is_write = false);

  // Access for every row of a transfer. A read's bytes split into hit and
  // miss bytes in proportion to its lines (a line two rows share counts
  // once as a miss at most: the second row hits it); a write's bytes all land
  // in L2 (write-back). Adds the bytes of the dirty lines evicted to
  // `*dirty_evicted_bytes`. Rows that repeat one range (stride 0, a stream
  // read or written over and over) touch it twice; the passes after the
  // second fare as the second did, so the cost is bounded.
  L2Split AccessRuns(const GmRuns& runs, bool is_write, int64_t* dirty_evicted_bytes);

  // Latency to the first byte of a transfer: the miss latency when any line
  // missed, else the hit latency (ps). Bandwidth time is the HBM model's.
  int64_t LatencyPs(const L2Access& access) const;

  virtual bool Contains(uint64_t addr) const = 0;
  virtual int64_t resident_lines() const = 0;

  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }
  int64_t evictions() const { return evictions_; }
  int64_t dirty_evictions() const { return dirty_evictions_; }
  void ResetCounters() { hits_ = misses_ = evictions_ = dirty_evictions_ = 0; }

  int64_t line_bytes() const { return line_bytes_; }
  int64_t capacity_lines() const { return capacity_lines_; }

 protected:
  // The lines of [addr, addr + size), touched as one transfer.
  virtual L2Access TouchRange(uint64_t addr, uint64_t size, bool is_write) = 0;
  // The rows of a transfer that are neither contiguous nor repeated
  // (stride > 0, several rows): a line a row shares with the rows before it
  // hits.
  virtual L2Access TouchRows(const GmRuns& runs, bool is_write) = 0;

  int64_t line_bytes_;
  int line_shift_;
  int64_t capacity_lines_;
  int64_t evictions_ = 0;  // the models count their own evictions

 private:
  void Count(const L2Access& access);

  int64_t hit_latency_ps_;
  int64_t miss_latency_ps_;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
  int64_t dirty_evictions_ = 0;
};

// gm.l2_associativity 0: L2TransferCache; N > 0: L2Cache of N-way sets.
std::unique_ptr<L2Model> MakeL2Model(const GmParams& params);

}  // namespace pto

#endif  // PTO_MODELS_GM_L2_MODEL_H_
