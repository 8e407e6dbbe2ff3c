#include "models/gm/l2_cache.h"

#include <algorithm>
#include <cmath>
#include <cstring>

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
  slots_.assign(static_cast<size_t>(sets_ * ways_), kEmpty);
}

bool L2Cache::Contains(uint64_t addr) const {
  const uint64_t line = addr >> line_shift_;
  const uint64_t* set = &slots_[static_cast<size_t>(line % static_cast<uint64_t>(sets_) * ways_)];
  for (int64_t way = 0; way < ways_ && set[way] != kEmpty; ++way) {
    if (LineOfSlot(set[way]) == line) return true;
  }
  return false;
}

L2Access L2Cache::Access(uint64_t addr, uint64_t size, bool is_write) {
  L2Access access;
  if (size == 0) return access;
  const uint64_t dirty = is_write ? 1 : 0;
  const uint64_t last = (addr + size - 1) >> line_shift_;
  for (uint64_t line = addr >> line_shift_; line <= last; ++line) {
    uint64_t* set = &slots_[static_cast<size_t>(line % static_cast<uint64_t>(sets_) * ways_)];
    int64_t way = 0;
    while (way < ways_ && set[way] != kEmpty && LineOfSlot(set[way]) != line) ++way;
    uint64_t slot;
    if (way < ways_ && set[way] != kEmpty) {
      ++access.hit_lines;
      slot = set[way] | dirty;
    } else {
      // A miss replaces the least recently used way: the last one, which is
      // empty while the set has room.
      ++access.miss_lines;
      way = ways_ - 1;
      if (set[way] == kEmpty) {
        ++resident_;
      } else {
        ++evictions_;
        access.dirty_evictions += static_cast<int64_t>(set[way] & 1);
      }
      slot = line << 1 | dirty;
    }
    std::memmove(set + 1, set, static_cast<size_t>(way) * sizeof(uint64_t));
    set[0] = slot;
  }
  hits_ += access.hit_lines;
  misses_ += access.miss_lines;
  dirty_evictions_ += access.dirty_evictions;
  return access;
}

L2Split L2Cache::AccessRuns(const GmRuns& runs, bool is_write, int64_t* dirty_evicted_bytes) {
  L2Access total;
  const auto add = [&](uint64_t addr, uint64_t size) {
    const L2Access a = Access(addr, size, is_write);
    total.hit_lines += a.hit_lines;
    total.miss_lines += a.miss_lines;
    total.dirty_evictions += a.dirty_evictions;
  };
  if (runs.rows == 1 || runs.stride == runs.row_bytes) {
    add(runs.base, runs.bytes());
  } else if (runs.stride == 0 && runs.rows > 2) {
    add(runs.base, runs.row_bytes);
    const L2Access first = total;
    add(runs.base, runs.row_bytes);
    const int64_t more = runs.rows - 2;  // as the second pass did
    const L2Access again{(total.hit_lines - first.hit_lines) * more,
                         (total.miss_lines - first.miss_lines) * more,
                         (total.dirty_evictions - first.dirty_evictions) * more};
    total.hit_lines += again.hit_lines;
    total.miss_lines += again.miss_lines;
    total.dirty_evictions += again.dirty_evictions;
    hits_ += again.hit_lines;
    misses_ += again.miss_lines;
    dirty_evictions_ += again.dirty_evictions;
  } else {
    for (int64_t r = 0; r < runs.rows; ++r) {
      add(runs.base + static_cast<uint64_t>(r) * runs.stride, runs.row_bytes);
    }
  }
  *dirty_evicted_bytes += total.dirty_evictions * line_bytes_;
  const int64_t bytes = static_cast<int64_t>(runs.bytes());
  if (is_write) return L2Split{bytes, 0};
  const int64_t lines = total.hit_lines + total.miss_lines;
  const int64_t miss =
      lines == 0 ? 0
                 : static_cast<int64_t>(static_cast<__int128>(bytes) * total.miss_lines / lines);
  return L2Split{bytes - miss, miss};
}

int64_t L2Cache::LatencyPs(const L2Access& access) const {
  return access.miss_lines > 0 ? miss_latency_ps_ : hit_latency_ps_;
}

}  // namespace pto
