#include "models/gm/l2_cache.h"

#include <algorithm>
#include <cmath>

#include "absl/numeric/bits.h"

namespace pto {

L2Cache::L2Cache(const GmParams& params)
    : line_bytes_(params.l2_line_bytes),
      line_shift_(absl::countr_zero(static_cast<uint64_t>(params.l2_line_bytes))),
      hit_latency_ps_(std::llround(params.l2_hit_latency_ns * 1e3)),
      miss_latency_ps_(std::llround(params.l2_miss_latency_ns * 1e3)) {
  const int64_t lines = std::max<int64_t>(1, params.l2_capacity_bytes / params.l2_line_bytes);
  ways_ = std::clamp<int64_t>(params.l2_associativity, 1, lines);
  sets_ = lines / ways_;
  tag_.assign(static_cast<size_t>(sets_ * ways_), kEmpty);
  last_use_.assign(tag_.size(), 0);
  dirty_.assign(tag_.size(), 0);
}

bool L2Cache::Contains(uint64_t addr) const {
  const uint64_t line = addr >> line_shift_;
  const size_t base = static_cast<size_t>(line % static_cast<uint64_t>(sets_) * ways_);
  return std::find(tag_.begin() + base, tag_.begin() + base + ways_, line) !=
         tag_.begin() + base + ways_;
}

L2Access L2Cache::Access(uint64_t addr, uint64_t size, bool is_write) {
  L2Access access;
  if (size == 0) return access;
  const uint64_t last = (addr + size - 1) >> line_shift_;
  for (uint64_t line = addr >> line_shift_; line <= last; ++line) {
    if (++clock_ == 0) {  // the use clock wrapped: restart every age at 0
      std::fill(last_use_.begin(), last_use_.end(), 0);
      clock_ = 1;
    }
    const size_t base = static_cast<size_t>(line % static_cast<uint64_t>(sets_) * ways_);
    size_t victim = base;
    bool hit = false;
    for (size_t way = base; way < base + ways_; ++way) {
      if (tag_[way] == line) {
        victim = way;
        hit = true;
        break;
      }
      // Prefer an empty way, else the least recently used one.
      if (tag_[victim] != kEmpty && (tag_[way] == kEmpty || last_use_[way] < last_use_[victim])) {
        victim = way;
      }
    }
    if (hit) {
      ++access.hit_lines;
    } else {
      ++access.miss_lines;
      if (tag_[victim] == kEmpty) {
        ++resident_;
      } else {
        ++evictions_;
        access.dirty_evictions += dirty_[victim];
      }
      tag_[victim] = line;
      dirty_[victim] = 0;
    }
    last_use_[victim] = clock_;
    dirty_[victim] |= is_write ? 1 : 0;
  }
  hits_ += access.hit_lines;
  misses_ += access.miss_lines;
  dirty_evictions_ += access.dirty_evictions;
  return access;
}

int64_t L2Cache::LatencyPs(const L2Access& access) const {
  return access.miss_lines > 0 ? miss_latency_ps_ : hit_latency_ps_;
}

}  // namespace pto
