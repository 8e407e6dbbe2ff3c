#include "models/gm/l2_cache.h"

#include <algorithm>
#include <cmath>

namespace pto {

L2Cache::L2Cache(const GmParams& params)
    : line_bytes_(params.l2_line_bytes),
      line_mask_(static_cast<uint64_t>(params.l2_line_bytes) - 1),
      capacity_lines_(std::max<int64_t>(1, params.l2_capacity_bytes / params.l2_line_bytes)),
      hit_latency_ps_(std::llround(params.l2_hit_latency_ns * 1e3)),
      miss_latency_ps_(std::llround(params.l2_miss_latency_ns * 1e3)) {}

void L2Cache::Unlink(uint32_t node) {
  const uint32_t before = prev_[node];
  const uint32_t after = next_[node];
  (before == kNone ? head_ : next_[before]) = after;
  (after == kNone ? tail_ : prev_[after]) = before;
}

void L2Cache::PushFront(uint32_t node) {
  prev_[node] = kNone;
  next_[node] = head_;
  (head_ == kNone ? tail_ : prev_[head_]) = node;
  head_ = node;
}

L2Access L2Cache::Access(uint64_t addr, uint64_t size) {
  L2Access access;
  if (size == 0) return access;
  const uint64_t end = addr + size;
  for (uint64_t line = addr & ~line_mask_; line < end; line += line_bytes_) {
    auto [it, inserted] = node_of_line_.try_emplace(line, kNone);
    if (!inserted) {
      ++access.hit_lines;
      if (it->second != head_) {
        Unlink(it->second);
        PushFront(it->second);
      }
      continue;
    }
    ++access.miss_lines;
    uint32_t node;
    if (static_cast<int64_t>(line_.size()) < capacity_lines_) {
      node = static_cast<uint32_t>(line_.size());
      line_.push_back(line);
      prev_.push_back(kNone);
      next_.push_back(kNone);
    } else {
      node = tail_;
      Unlink(node);
      node_of_line_.erase(line_[node]);
      ++evictions_;
      line_[node] = line;
      // The erase may have moved `it`; look the new line up again.
      it = node_of_line_.find(line);
    }
    it->second = node;
    PushFront(node);
  }
  hits_ += access.hit_lines;
  misses_ += access.miss_lines;
  return access;
}

int64_t L2Cache::LatencyPs(const L2Access& access) const {
  return access.miss_lines > 0 ? miss_latency_ps_ : hit_latency_ps_;
}

}  // namespace pto
