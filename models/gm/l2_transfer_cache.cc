#include "models/gm/l2_transfer_cache.h"

#include <algorithm>

namespace pto {
namespace {

// `dirty` of `lines` in proportion to `part` of them: exact when all or
// none are dirty.
int64_t DirtyShare(int64_t dirty, uint64_t part, uint64_t lines) {
  if (dirty == 0 || lines == 0) return 0;
  return static_cast<int64_t>(static_cast<__int128>(dirty) * part / lines);
}

}  // namespace

L2TransferCache::L2TransferCache(const GmParams& params) : L2Model(params) {}

int L2TransferCache::LevelOf(uint64_t span_lines) {
  if (span_lines <= LevelSpan(0)) return 0;
  // The smallest k with 128 << k >= span_lines.
  const int level = 64 - __builtin_clzll(span_lines - 1) - 7;
  return std::min(level, kLevels - 1);
}

uint32_t L2TransferCache::Allocate(const StridedLines& lines, int64_t dirty) {
  uint32_t index;
  if (free_.empty()) {
    index = static_cast<uint32_t>(entries_.size());
    entries_.emplace_back();
  } else {
    index = free_.back();
    free_.pop_back();
  }
  entries_[index] = Entry{lines, dirty, kNil, kNil, -1, 0};
  ++live_;
  return index;
}

void L2TransferCache::LinkNewerThan(uint32_t older, uint32_t index) {
  Entry& entry = entries_[index];
  entry.older = older;
  entry.newer = older == kNil ? oldest_ : entries_[older].newer;
  (older == kNil ? oldest_ : entries_[older].newer) = index;
  (entry.newer == kNil ? newest_ : entries_[entry.newer].older) = index;
}

void L2TransferCache::Unlink(uint32_t index) {
  Entry& entry = entries_[index];
  (entry.newer == kNil ? newest_ : entries_[entry.newer].older) = entry.older;
  (entry.older == kNil ? oldest_ : entries_[entry.older].newer) = entry.newer;
  entry.newer = entry.older = kNil;
}

void L2TransferCache::Index(uint32_t index) {
  Entry& entry = entries_[index];
  const StridedLines& lines = entry.lines;
  const uint64_t span = lines.end() - lines.first;
  entry.level = LevelOf(span);
  widest_[entry.level] = std::max(widest_[entry.level], span);
  const uint64_t stride = lines.rows > 1 ? lines.stride : 0;
  index_[entry.level].insert(
      {{lines.first, index},
       IndexedSpan{lines.end(), stride, lines.length, stride > 0 ? lines.first % stride : 0}});
  used_levels_ |= uint64_t{1} << entry.level;
}

void L2TransferCache::Unindex(uint32_t index) {
  Entry& entry = entries_[index];
  auto& level = index_[entry.level];
  level.erase({entry.lines.first, index});
  if (level.empty()) {
    used_levels_ &= ~(uint64_t{1} << entry.level);
    widest_[entry.level] = 0;
  }
  entry.level = -1;
}

void L2TransferCache::Release(uint32_t index) {
  Unindex(index);
  Unlink(index);
  free_.push_back(index);
  --live_;
}

void L2TransferCache::FindOverlapping(const StridedLines& set) {
  overlapping_.clear();
  const uint64_t lo = set.first;
  const uint64_t hi = set.end();
  const uint64_t stride = set.rows > 1 ? set.stride : 0;
  const uint64_t phase = stride > 0 ? set.first % stride : 0;
  // Rows at one stride meet only if their offsets in it do, mod stride.
  const auto offsets_meet = [&](const IndexedSpan& span) {
    const uint64_t d = phase >= span.phase ? phase - span.phase : phase + stride - span.phase;
    return d < span.length || stride - d < set.length;
  };
  for (uint64_t levels = used_levels_; levels != 0; levels &= levels - 1) {
    const int level = __builtin_ctzll(levels);
    const uint64_t span = widest_[level];
    // An entry at this level spans at most `span` lines: one that starts
    // further back than that ends before lo.
    const uint64_t from = lo >= span ? lo - span + 1 : 0;
    const auto& entries = index_[level];
    for (auto it = entries.lower_bound({from, 0}); it != entries.end() && it->first.first < hi;
         ++it) {
      const IndexedSpan& span = it->second;
      if (span.end <= lo || (stride > 0 && span.stride == stride && !offsets_meet(span))) continue;
      overlapping_.push_back(it->first.second);
    }
  }
}

bool L2TransferCache::Contains(uint64_t addr) const {
  const uint64_t line = addr >> line_shift_;
  for (uint64_t levels = used_levels_; levels != 0; levels &= levels - 1) {
    const int level = __builtin_ctzll(levels);
    const uint64_t span = widest_[level];
    const uint64_t from = line >= span ? line - span + 1 : 0;
    const auto& entries = index_[level];
    for (auto it = entries.lower_bound({from, 0}); it != entries.end() && it->first.first <= line;
         ++it) {
      if (entries_[it->first.second].lines.Contains(line)) return true;
    }
  }
  return false;
}

void L2TransferCache::KeepRest(uint32_t index, const StridedLines& set, int64_t dirty_left) {
  AddDifference(entries_[index].lines, set, &rest_builder_);
  const std::vector<StridedLines>& rest = rest_builder_.Take();
  uint64_t lines_left = 0;
  for (const StridedLines& part : rest) lines_left += part.lines();
  // The parts take the entry's place on the recency list, in address order
  // (its first rows were moved first).
  Unindex(index);
  uint32_t previous = index;
  for (size_t i = 0; i < rest.size(); ++i) {
    const int64_t dirty =
        i + 1 == rest.size() ? dirty_left : DirtyShare(dirty_left, rest[i].lines(), lines_left);
    dirty_left -= dirty;
    lines_left -= rest[i].lines();
    if (i == 0) {
      entries_[index].lines = rest[0];
      entries_[index].dirty = dirty;
    } else {
      const uint32_t part = Allocate(rest[i], dirty);
      LinkNewerThan(previous, part);
      previous = part;
    }
    Index(i == 0 ? index : previous);
  }
}

bool L2TransferCache::AppendToNewest(const StridedLines& set, int64_t dirty) {
  if (newest_ == kNil) return false;
  Entry& entry = entries_[newest_];
  const StridedLines& s = entry.lines;
  const bool all_clean = entry.dirty == 0 && dirty == 0;
  const bool all_dirty =
      entry.dirty == static_cast<int64_t>(s.lines()) && dirty == static_cast<int64_t>(set.lines());
  if (!all_clean && !all_dirty) return false;
  StridedLines merged;
  if (s.rows == 1 && set.rows == 1 && set.first == s.end()) {
    merged = StridedLines{s.first, s.length + set.length, 0, 1};
  } else if (set.length != s.length) {
    return false;
  } else if (s.rows > 1 && set.first == s.row_first(s.rows) &&
             (set.rows == 1 || set.stride == s.stride)) {
    merged = StridedLines{s.first, s.length, s.stride, s.rows + set.rows};
  } else if (s.rows == 1 && set.rows > 1 && set.first > s.first &&
             set.first - s.first == set.stride) {
    merged = StridedLines{s.first, s.length, set.stride, set.rows + 1};
  } else {
    return false;
  }
  Unindex(newest_);
  entry.lines = merged;
  entry.dirty += dirty;
  Index(newest_);
  return true;
}

void L2TransferCache::EvictToCapacity(L2Access* out) {
  while (resident_ > capacity_lines_) {
    const uint32_t victim = oldest_;
    const uint64_t need = static_cast<uint64_t>(resident_ - capacity_lines_);
    const uint64_t lines = entries_[victim].lines.lines();
    if (lines <= need) {
      out->dirty_evictions += entries_[victim].dirty;
      evictions_ += static_cast<int64_t>(lines);
      resident_ -= static_cast<int64_t>(lines);
      Release(victim);
      continue;
    }
    // Its first `need` lines go: whole rows, then the front of the next.
    Unindex(victim);
    StridedLines set = entries_[victim].lines;
    int64_t dirty = entries_[victim].dirty;
    const int64_t gone_dirty = DirtyShare(dirty, need, lines);
    dirty -= gone_dirty;
    out->dirty_evictions += gone_dirty;
    const uint64_t whole_rows = need / set.length;
    const uint64_t part = need % set.length;
    set.first += whole_rows * set.stride;
    set.rows -= static_cast<int64_t>(whole_rows);
    StridedLines head;  // rows == 0: none
    int64_t head_dirty = 0;
    if (part > 0 && set.rows == 1) {
      set.first += part;
      set.length -= part;
    } else if (part > 0) {
      // What is left of the row becomes an entry of its own, the oldest.
      head = StridedLines{set.first + part, set.length - part, 0, 1};
      head_dirty = DirtyShare(dirty, head.lines(), lines - need);
      dirty -= head_dirty;
      set.first += set.stride;
      set.rows -= 1;
    }
    entries_[victim].lines = set;
    entries_[victim].dirty = dirty;
    Index(victim);
    if (head.rows > 0) {
      const uint32_t index = Allocate(head, head_dirty);
      LinkNewerThan(kNil, index);
      Index(index);
    }
    evictions_ += static_cast<int64_t>(need);
    resident_ -= static_cast<int64_t>(need);
  }
}

bool L2TransferCache::TailHoldsMarked(int64_t evict) const {
  int64_t seen = 0;
  uint32_t index = oldest_;
  for (int walked = 0; walked < kTailWalk && index != kNil; ++walked) {
    const Entry& entry = entries_[index];
    if (entry.mark == mark_) return true;
    seen += static_cast<int64_t>(entry.lines.lines());
    if (seen >= evict) return false;
    index = entry.newer;
  }
  return index != kNil;  // not seen far enough: assume it might
}

void L2TransferCache::Touch(const StridedLines& set, bool is_write, L2Access* out) {
  FindOverlapping(set);
  ++mark_;
  commons_.clear();
  int64_t hits = 0;
  for (const uint32_t index : overlapping_) {
    const uint64_t common = CountCommon(entries_[index].lines, set);
    commons_.push_back(common);
    if (common == 0) continue;
    entries_[index].mark = mark_;
    hits += static_cast<int64_t>(common);
  }
  const int64_t lines = static_cast<int64_t>(set.lines());
  // Touched line by line, a transfer that misses pushes out the oldest
  // lines as it goes: if some of those are lines it would hit later, they
  // miss instead. Halves touched in turn keep that order.
  const int64_t evict = resident_ + (lines - hits) - capacity_lines_;
  if (hits > 0 && evict > 0 && lines > 1 && TailHoldsMarked(evict)) {
    if (set.rows > 1) {
      Touch(set.Rows(0, set.rows / 2), is_write, out);
      Touch(set.Rows(set.rows / 2, set.rows), is_write, out);
    } else {
      const uint64_t half = set.length / 2;
      Touch(StridedLines{set.first, half, 0, 1}, is_write, out);
      Touch(StridedLines{set.first + half, set.length - half, 0, 1}, is_write, out);
    }
    return;
  }
  int64_t dirty_met = 0;
  for (size_t i = 0; i < overlapping_.size(); ++i) {
    const uint64_t common = commons_[i];
    if (common == 0) continue;
    const uint32_t index = overlapping_[i];
    const uint64_t entry_lines = entries_[index].lines.lines();
    const int64_t dirty = entries_[index].dirty;
    const int64_t dirty_common = DirtyShare(dirty, common, entry_lines);
    dirty_met += dirty_common;
    resident_ -= static_cast<int64_t>(common);
    if (common == entry_lines) {
      Release(index);
    } else {
      KeepRest(index, set, dirty - dirty_common);
    }
  }
  out->hit_lines += hits;
  out->miss_lines += lines - hits;
  const int64_t dirty = is_write ? lines : dirty_met;
  if (!AppendToNewest(set, dirty)) {
    const uint32_t index = Allocate(set, dirty);
    LinkNewerThan(newest_, index);
    Index(index);
  }
  resident_ += lines;
  EvictToCapacity(out);
}

L2Access L2TransferCache::TouchRange(uint64_t addr, uint64_t size, bool is_write) {
  const uint64_t first = addr >> line_shift_;
  const uint64_t last = (addr + size - 1) >> line_shift_;
  L2Access access;
  Touch(StridedLines{first, last - first + 1, 0, 1}, is_write, &access);
  return access;
}

L2Access L2TransferCache::TouchRows(const GmRuns& runs, bool is_write) {
  L2Access access;
  const uint64_t line_bytes = static_cast<uint64_t>(line_bytes_);
  const uint64_t first = runs.base >> line_shift_;
  const uint64_t length = ((runs.base + runs.row_bytes - 1) >> line_shift_) - first + 1;
  if (runs.stride % line_bytes == 0) {
    // Every row covers the same lines, shifted: one set, or one run when
    // the rows' lines abut or overlap (the shared lines hit).
    const uint64_t stride = runs.stride >> line_shift_;
    if (stride > length) {
      Touch(StridedLines{first, length, stride, runs.rows}, is_write, &access);
    } else {
      const uint64_t span = static_cast<uint64_t>(runs.rows - 1) * stride + length;
      access.hit_lines += static_cast<int64_t>(length * static_cast<uint64_t>(runs.rows) - span);
      Touch(StridedLines{first, span, 0, 1}, is_write, &access);
    }
    return access;
  }
  // Rows that start at different offsets in their lines: run by run, the
  // lines a row shares with the one before it hitting.
  uint64_t last_line = 0;
  for (int64_t r = 0; r < runs.rows; ++r) {
    const uint64_t addr = runs.base + static_cast<uint64_t>(r) * runs.stride;
    uint64_t row_first = addr >> line_shift_;
    const uint64_t row_last = (addr + runs.row_bytes - 1) >> line_shift_;
    if (r > 0 && row_first <= last_line) {
      access.hit_lines += static_cast<int64_t>(std::min(row_last, last_line) - row_first + 1);
      if (row_last <= last_line) continue;
      row_first = last_line + 1;
    }
    row_builder_.AddRun(row_first, row_last - row_first + 1);
    last_line = row_last;
  }
  for (const StridedLines& set : row_builder_.Take()) Touch(set, is_write, &access);
  return access;
}

}  // namespace pto
