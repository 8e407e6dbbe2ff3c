#include "models/gm/l2_cache.h"

#include <algorithm>

#include "absl/numeric/bits.h"

namespace pto {

L2Cache::L2Cache(const GmParams& params, int64_t region_lines) : L2Model(params) {
  const int64_t lines = capacity_lines_;
  ways_ =
      params.l2_associativity == 0 ? lines : std::clamp<int64_t>(params.l2_associativity, 1, lines);
  sets_ = lines / ways_;
  capacity_lines_ = sets_ * ways_;
  // A region's lines must fall in distinct sets, the same sets for every
  // region of a group: a power of two dividing the set count.
  region_lines_ = 1;
  const int64_t wanted = std::clamp<int64_t>(region_lines, 1, kRegionLines);
  while (region_lines_ * 2 <= wanted && sets_ % (region_lines_ * 2) == 0) region_lines_ *= 2;
  region_shift_ = absl::countr_zero(static_cast<uint64_t>(region_lines_));
  groups_count_ = static_cast<uint64_t>(sets_ / region_lines_);
  group_capacity_lines_ = ways_ * region_lines_;
  groups_.assign(groups_count_, Group());
}

uint64_t L2Cache::LineMask(uint64_t base, uint64_t first, uint64_t last) {
  const uint64_t lo = first - base;
  const uint64_t hi = last - base;
  const uint64_t upto = hi >= 63 ? ~uint64_t{0} : (uint64_t{1} << (hi + 1)) - 1;
  return upto & ~((uint64_t{1} << lo) - 1);
}

uint64_t L2Cache::LowestBits(uint64_t bits, int64_t n, int64_t* taken) {
  uint64_t picked = 0;
  for (; bits != 0 && n > 0; bits &= bits - 1, --n, ++*taken) picked |= bits & (~bits + 1);
  return picked;
}

bool L2Cache::Contains(uint64_t addr) const {
  const uint64_t line = addr >> line_shift_;
  auto it = entry_of_region_.find(line >> region_shift_);
  return it != entry_of_region_.end() &&
         ((entries_[it->second].lines >> (line & static_cast<uint64_t>(region_lines_ - 1))) & 1);
}

void L2Cache::Unlink(Group& group, uint32_t index) {
  Segment& segment = segments_[index];
  (segment.newer == kNil ? group.newest : segments_[segment.newer].older) = segment.older;
  (segment.older == kNil ? group.oldest : segments_[segment.older].newer) = segment.newer;
  segment.newer = segment.older = kNil;
}

void L2Cache::PushNewest(Group& group, uint32_t index) {
  Segment& segment = segments_[index];
  segment.newer = kNil;
  segment.older = group.newest;
  if (group.newest != kNil) segments_[group.newest].newer = index;
  group.newest = index;
  if (group.oldest == kNil) group.oldest = index;
}

void L2Cache::Drop(RegionEntry& region, uint32_t index, uint64_t lines) {
  Segment& segment = segments_[index];
  segment.lines &= ~lines;
  segment.dirty &= ~lines;
  region.lines &= ~lines;
  if (segment.lines != 0) return;
  Unlink(groups_[segment.region % groups_count_], index);
  (segment.newer_in_region == kNil ? region.newest
                                   : segments_[segment.newer_in_region].older_in_region) =
      segment.older_in_region;
  (segment.older_in_region == kNil ? region.oldest
                                   : segments_[segment.older_in_region].newer_in_region) =
      segment.newer_in_region;
  free_segments_.push_back(index);
  --region.segments;
}

void L2Cache::Prefetch(uint64_t number) const {
  // A tile's rows are far apart in GM, so each row's region, its newest
  // segment and the segment its group would evict next are cache misses
  // on the host; asking for them a few rows ahead overlaps those misses.
  auto it = entry_of_region_.find(number);
  if (it != entry_of_region_.end()) {
    const RegionEntry& region = entries_[it->second];
    __builtin_prefetch(&region);
    if (region.newest != kNil) __builtin_prefetch(&segments_[region.newest]);
  }
  const Group& group = groups_[number % groups_count_];
  if (group.oldest != kNil) __builtin_prefetch(&segments_[group.oldest]);
}

void L2Cache::Touch(uint64_t number, uint64_t mask, bool is_write, L2Access* out) {
  Group& group = groups_[number % groups_count_];
  auto [found, inserted] = entry_of_region_.try_emplace(number, kNil);
  if (inserted) {
    if (free_entries_.empty()) {
      found->second = static_cast<uint32_t>(entries_.size());
      entries_.emplace_back();
    } else {
      found->second = free_entries_.back();
      free_entries_.pop_back();
      entries_[found->second] = RegionEntry();
    }
  }
  const uint32_t entry = found->second;
  RegionEntry& region = entries_[entry];
  // The lines already resident leave their older segments.
  const uint64_t resident = region.lines & mask;
  uint64_t dirty = is_write ? mask : 0;
  uint64_t unfound = resident;  // stop once every resident line is found
  for (uint32_t s = region.newest; unfound != 0 && s != kNil;) {
    const uint32_t older = segments_[s].older_in_region;
    const uint64_t again = segments_[s].lines & mask;
    if (again != 0) {
      dirty |= segments_[s].dirty & again;
      unfound &= ~again;
      Drop(region, s, again);
    }
    s = older;
  }
  const int64_t fresh = absl::popcount(mask & ~resident);
  out->hit_lines += absl::popcount(resident);
  out->miss_lines += fresh;
  if (region.newest != kNil && region.newest == group.newest) {
    // Nothing else in the group was touched since: the same recency.
    segments_[region.newest].lines |= mask;
    segments_[region.newest].dirty |= dirty;
  } else {
    if (region.segments >= kMaxSegmentsPerRegion) {
      // Bounded work per touch: the region's two oldest segments merge, the
      // younger's lines taking the older's recency.
      Segment& oldest = segments_[region.oldest];
      Segment& next = segments_[oldest.newer_in_region];
      oldest.lines |= next.lines;
      oldest.dirty |= next.dirty;
      Drop(region, oldest.newer_in_region, next.lines);
      region.lines |= oldest.lines;  // Drop took the merged lines out
    }
    uint32_t index;
    if (free_segments_.empty()) {
      index = static_cast<uint32_t>(segments_.size());
      segments_.emplace_back();
    } else {
      index = free_segments_.back();
      free_segments_.pop_back();
    }
    segments_[index] = Segment{number, mask, dirty, kNil, kNil, kNil, region.newest, entry};
    if (region.newest != kNil) segments_[region.newest].newer_in_region = index;
    region.newest = index;
    if (region.oldest == kNil) region.oldest = index;
    ++region.segments;
    PushNewest(group, index);
  }
  region.lines |= mask;
  group.resident += fresh;
  resident_ += fresh;
  // Over capacity: the group's least recently used lines make room, those
  // in the sets the fresh lines went to first.
  uint64_t fresh_sets = mask & ~resident;
  while (group.resident > group_capacity_lines_) {
    const uint32_t victim = group.oldest;
    Segment& old = segments_[victim];
    const int64_t need = group.resident - group_capacity_lines_;
    uint64_t out_lines = old.lines;
    if (absl::popcount(out_lines) > need) {
      int64_t taken = 0;
      out_lines = LowestBits(old.lines & fresh_sets, need, &taken);
      out_lines |= LowestBits(old.lines & ~out_lines, need - taken, &taken);
    }
    fresh_sets &= ~out_lines;
    const int64_t count = absl::popcount(out_lines);
    evictions_ += count;
    out->dirty_evictions += absl::popcount(old.dirty & out_lines);
    group.resident -= count;
    resident_ -= count;
    const uint32_t old_entry = old.entry;
    const uint64_t old_region = old.region;
    Drop(entries_[old_entry], victim, out_lines);
    if (entries_[old_entry].segments == 0) {
      entry_of_region_.erase(old_region);
      free_entries_.push_back(old_entry);
    }
  }
}

void L2Cache::FlushPending(bool is_write, L2Access* out) {
  if (pending_mask_ == 0) return;
  Touch(pending_number_, pending_mask_, is_write, out);
  pending_mask_ = 0;
}

void L2Cache::Gather(uint64_t addr, uint64_t size, bool is_write, L2Access* out) {
  if (size == 0) return;
  const uint64_t region = static_cast<uint64_t>(region_lines_);
  uint64_t line = addr >> line_shift_;
  const uint64_t last = (addr + size - 1) >> line_shift_;
  while (line <= last) {
    const uint64_t number = line >> region_shift_;
    const uint64_t base = number << region_shift_;
    const uint64_t upto = std::min(last, base + region - 1);
    if (pending_mask_ != 0 && pending_number_ != number) FlushPending(is_write, out);
    pending_number_ = number;
    pending_mask_ |= LineMask(base, line, upto);
    line = upto + 1;
  }
}

L2Access L2Cache::TouchRange(uint64_t addr, uint64_t size, bool is_write) {
  L2Access access;
  Gather(addr, size, is_write, &access);
  FlushPending(is_write, &access);
  return access;
}

L2Access L2Cache::TouchRows(const GmRuns& runs, bool is_write) {
  // The lines a row shares with the rows before it were touched by them: as
  // when touched row by row, they hit.
  L2Access gathered;
  bool any = false;
  uint64_t last_line = 0;  // the last line the rows so far touched
  const auto region_of_row = [&](int64_t r) {
    return ((runs.base + static_cast<uint64_t>(r) * runs.stride) >> line_shift_) >> region_shift_;
  };
  for (int64_t r = 0; r < runs.rows; ++r) {
    if (r + 2 * kPrefetchRows < runs.rows) {
      entry_of_region_.prefetch(region_of_row(r + 2 * kPrefetchRows));
    }
    if (r + kPrefetchRows < runs.rows) Prefetch(region_of_row(r + kPrefetchRows));
    uint64_t addr = runs.base + static_cast<uint64_t>(r) * runs.stride;
    const uint64_t end = addr + runs.row_bytes;
    const uint64_t first = addr >> line_shift_;
    const uint64_t row_last = (end - 1) >> line_shift_;
    if (any && first <= last_line) {
      gathered.hit_lines += static_cast<int64_t>(std::min(row_last, last_line) - first + 1);
      if (row_last <= last_line) continue;
      addr = (last_line + 1) << line_shift_;
    }
    Gather(addr, end - addr, is_write, &gathered);
    last_line = row_last;
    any = true;
  }
  FlushPending(is_write, &gathered);
  return gathered;
}

}  // namespace pto
