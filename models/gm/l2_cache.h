#ifndef PTO_MODELS_GM_L2_CACHE_H_
#define PTO_MODELS_GM_L2_CACHE_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "models/chip_config.h"

namespace pto {

// How one transfer fared in L2, line by line.
struct L2Access {
  int64_t hit_lines = 0;
  int64_t miss_lines = 0;
};

// The chip's shared L2 as a tag store (no data: GM's image holds the bytes):
// lines of gm.l2_line_bytes, gm.l2_capacity_bytes in total, fully
// associative with LRU replacement. Reads and writes both allocate. Evicting
// a dirty line costs nothing extra here: write-back traffic from L2 to HBM is
// not modelled (a simplification; HBM time is charged for misses only).
class L2Cache {
 public:
  explicit L2Cache(const GmParams& params);

  // Touches every line of [addr, addr + size): hits move to most recently
  // used, misses are allocated (evicting the least recently used line when
  // full). Counters accumulate.
  L2Access Access(uint64_t addr, uint64_t size);

  // Latency to the first byte of a transfer: the miss latency when any line
  // missed, else the hit latency (ps). Bandwidth time is the HBM model's.
  int64_t LatencyPs(const L2Access& access) const;

  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }
  int64_t evictions() const { return evictions_; }
  void ResetCounters() { hits_ = misses_ = evictions_ = 0; }

  int64_t line_bytes() const { return line_bytes_; }
  int64_t capacity_lines() const { return capacity_lines_; }
  int64_t resident_lines() const { return static_cast<int64_t>(node_of_line_.size()); }
  bool Contains(uint64_t addr) const { return node_of_line_.contains(addr & ~line_mask_); }

 private:
  static constexpr uint32_t kNone = ~uint32_t{0};

  void Unlink(uint32_t node);
  void PushFront(uint32_t node);

  int64_t line_bytes_;
  uint64_t line_mask_;
  int64_t capacity_lines_;
  int64_t hit_latency_ps_;
  int64_t miss_latency_ps_;
  // LRU list over nodes held in vectors (grown up to capacity, then reused):
  // head = most recently used, tail = next victim.
  absl::flat_hash_map<uint64_t, uint32_t> node_of_line_;
  std::vector<uint64_t> line_;
  std::vector<uint32_t> prev_;
  std::vector<uint32_t> next_;
  uint32_t head_ = kNone;
  uint32_t tail_ = kNone;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
  int64_t evictions_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_GM_L2_CACHE_H_
