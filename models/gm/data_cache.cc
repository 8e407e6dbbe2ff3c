#include "models/gm/data_cache.h"

#include <algorithm>
#include <cstring>

#include "absl/numeric/bits.h"
#include "absl/strings/str_cat.h"

namespace pto {
namespace {

// Bits [first, first + count) set (count in 1..64).
uint64_t BitRange(int first, int count) {
  const uint64_t ones = count == 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
  return ones << first;
}

}  // namespace

DataCache::DataCache(LineBackend* backend, int64_t line_bytes)
    : backend_(backend),
      line_bytes_(line_bytes),
      line_mask_(static_cast<uint64_t>(line_bytes) - 1),
      line_shift_(absl::countr_zero(static_cast<uint64_t>(line_bytes))),
      page_bytes_(static_cast<uint64_t>(line_bytes) * kLinesPerPage) {}

void DataCache::set_keeps_data(bool keeps) {
  keeps_data_ = keeps;
  scratch_.assign(keeps ? 0 : page_bytes_, 0);
  if (!keeps) std::vector<uint8_t>().swap(bytes_);
}

bool DataCache::CheckRange(uint64_t addr, size_t size, const char* what) {
  if (backend_->Contains(addr, size)) return true;
  if (status_.ok()) {
    status_ = absl::OutOfRangeError(absl::StrCat("GM ", what, " of ", size, " bytes at 0x",
                                                 absl::Hex(addr), " is outside every tensor"));
  }
  return false;
}

template <typename Fn>
void DataCache::ForEachPage(uint64_t addr, uint64_t end, Fn fn) {
  uint64_t page = addr - addr % page_bytes_;
  for (; page < end; page += page_bytes_) {
    const uint64_t from = std::max(addr, page);
    const uint64_t to = std::min(end, page + page_bytes_);
    const int first = static_cast<int>((from - page) >> line_shift_);
    const int last = static_cast<int>((to - 1 - page) >> line_shift_);
    fn(page, from, to, BitRange(first, last - first + 1));
  }
}

uint32_t DataCache::PageSlot(uint64_t page_addr) {
  auto [it, inserted] = slot_of_page_.try_emplace(page_addr, 0);
  if (!inserted) return it->second;
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = slots_used_;
    if (slot == pages_.size()) {
      pages_.emplace_back();
      if (keeps_data_) bytes_.resize(bytes_.size() + page_bytes_);
    }
  }
  it->second = slot;
  pages_[slot] = Page{page_addr, 0, 0};
  slots_used_ = std::max(slots_used_, slot + 1);
  return slot;
}

void DataCache::Fill(uint32_t slot, uint64_t mask, bool for_write) {
  Page& page = pages_[slot];
  const uint64_t missing = mask & ~page.valid;
  const int hits = absl::popcount(mask & page.valid);
  const int misses = absl::popcount(missing);
  (for_write ? counters_.write_hits : counters_.read_hits) += hits;
  (for_write ? counters_.write_misses : counters_.read_misses) += misses;
  // Write-allocate fetches the whole line too: the write-back will write it
  // all, so the bytes this core does not store must be GM's. Consecutive
  // missing lines come in one backend call.
  uint64_t rest = missing;
  while (rest != 0) {
    const int first = absl::countr_zero(rest);
    const int count = absl::countr_one(rest >> first);
    const uint64_t offset = static_cast<uint64_t>(first) << line_shift_;
    const uint64_t bytes = static_cast<uint64_t>(count) << line_shift_;
    backend_->ReadLine(page.addr + offset, PageData(slot) + offset, bytes);
    rest &= ~BitRange(first, count);
  }
  page.valid |= missing;
  counters_.lines_filled += misses;
  counters_.bytes_filled += static_cast<int64_t>(misses) * line_bytes_;
}

void DataCache::Read(uint64_t addr, void* dst, size_t size) {
  if (size == 0 || !CheckRange(addr, size, "read")) return;
  auto* out = static_cast<uint8_t*>(dst);
  ForEachPage(addr, addr + size, [&](uint64_t page, uint64_t from, uint64_t to, uint64_t mask) {
    const uint32_t slot = PageSlot(page);
    Fill(slot, mask, /*for_write=*/false);
    if (keeps_data_) std::memcpy(out + (from - addr), PageData(slot) + (from - page), to - from);
  });
}

void DataCache::Write(uint64_t addr, const void* src, size_t size) {
  if (size == 0 || !CheckRange(addr, size, "write")) return;
  const auto* in = static_cast<const uint8_t*>(src);
  ForEachPage(addr, addr + size, [&](uint64_t page, uint64_t from, uint64_t to, uint64_t mask) {
    const uint32_t slot = PageSlot(page);
    Fill(slot, mask, /*for_write=*/true);
    if (keeps_data_) std::memcpy(PageData(slot) + (from - page), in + (from - addr), to - from);
    pages_[slot].dirty |= mask;
  });
}

void DataCache::AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) {
  const size_t size = DTypeSize(dtype) * count;
  if (size == 0 || !CheckRange(addr, size, "atomic add")) return;
  backend_->AtomicAdd(addr, dtype, src, count);
  ++counters_.atomic_ops;
  counters_.atomic_bytes += static_cast<int64_t>(size);
}

void DataCache::WriteBack(uint32_t slot, uint64_t mask) {
  Page& page = pages_[slot];
  uint64_t rest = page.dirty & mask;
  const int lines = absl::popcount(rest);
  while (rest != 0) {
    const int first = absl::countr_zero(rest);
    const int count = absl::countr_one(rest >> first);
    const uint64_t offset = static_cast<uint64_t>(first) << line_shift_;
    backend_->WriteLine(page.addr + offset, PageData(slot) + offset,
                        static_cast<uint64_t>(count) << line_shift_);
    for (int line = 0; line < count; ++line) {
      write_backs_.push_back(page.addr + offset + (static_cast<uint64_t>(line) << line_shift_));
    }
    rest &= ~BitRange(first, count);
  }
  page.dirty &= ~mask;
  counters_.lines_written_back += lines;
  counters_.bytes_written_back += static_cast<int64_t>(lines) * line_bytes_;
}

void DataCache::FreePage(uint32_t slot) {
  slot_of_page_.erase(pages_[slot].addr);  // erase() keeps the map's storage
  pages_[slot] = Page{kFreePage, 0, 0};
  free_slots_.push_back(slot);
}

void DataCache::CleanInvalidateAll() {
  ++counters_.maintenance_ops;
  DropAll();
}

void DataCache::DropAll() {
  for (uint32_t slot = 0; slot < slots_used_; ++slot) {
    if (pages_[slot].addr == kFreePage) continue;
    WriteBack(slot, ~uint64_t{0});
    counters_.lines_invalidated += absl::popcount(pages_[slot].valid);
    slot_of_page_.erase(pages_[slot].addr);
    pages_[slot] = Page{kFreePage, 0, 0};
  }
  // Every slot is free again; reuse them from the lowest index up.
  slots_used_ = 0;
  free_slots_.clear();
}

void DataCache::CleanInvalidateLine(uint64_t addr) {
  ++counters_.maintenance_ops;
  const uint64_t page_addr = addr - addr % page_bytes_;
  auto it = slot_of_page_.find(page_addr);
  if (it == slot_of_page_.end()) return;
  const uint32_t slot = it->second;
  const uint64_t bit = uint64_t{1} << ((addr - page_addr) >> line_shift_);
  if ((pages_[slot].valid & bit) == 0) return;
  WriteBack(slot, bit);
  pages_[slot].valid &= ~bit;
  ++counters_.lines_invalidated;
  if (pages_[slot].valid == 0) FreePage(slot);
}

void DataCache::WriteBackAll() {
  for (uint32_t slot = 0; slot < slots_used_; ++slot) {
    if (pages_[slot].addr != kFreePage) WriteBack(slot, ~uint64_t{0});
  }
}

DataCacheCounters DataCache::TakeCounters() {
  DataCacheCounters taken = counters_;
  counters_ = DataCacheCounters();
  return taken;
}

bool DataCache::IsCached(uint64_t addr) const {
  const uint64_t page_addr = addr - addr % page_bytes_;
  auto it = slot_of_page_.find(page_addr);
  return it != slot_of_page_.end() &&
         (pages_[it->second].valid >> ((addr - page_addr) >> line_shift_) & 1) != 0;
}

bool DataCache::IsDirty(uint64_t addr) const {
  const uint64_t page_addr = addr - addr % page_bytes_;
  auto it = slot_of_page_.find(page_addr);
  return it != slot_of_page_.end() &&
         (pages_[it->second].dirty >> ((addr - page_addr) >> line_shift_) & 1) != 0;
}

int64_t DataCache::cached_lines() const {
  int64_t lines = 0;
  for (const Page& page : pages_) lines += absl::popcount(page.valid);
  return lines;
}

int64_t DataCache::dirty_lines() const {
  int64_t lines = 0;
  for (const Page& page : pages_) lines += absl::popcount(page.dirty);
  return lines;
}

}  // namespace pto
