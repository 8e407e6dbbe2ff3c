#include "models/gm/data_cache.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace pto {

DataCache::DataCache(LineBackend* backend, int64_t line_bytes)
    : backend_(backend),
      line_bytes_(line_bytes),
      line_mask_(static_cast<uint64_t>(line_bytes) - 1) {}

bool DataCache::CheckRange(uint64_t addr, size_t size, const char* what) {
  if (backend_->Contains(addr, size)) return true;
  if (status_.ok()) {
    status_ = absl::OutOfRangeError(absl::StrCat("GM ", what, " of ", size, " bytes at 0x",
                                                 absl::Hex(addr), " is outside every tensor"));
  }
  return false;
}

uint32_t DataCache::Lookup(uint64_t line, bool for_write) {
  auto [it, inserted] = slot_of_line_.try_emplace(line, 0);
  if (!inserted) {
    ++(for_write ? counters_.write_hits : counters_.read_hits);
    return it->second;
  }
  ++(for_write ? counters_.write_misses : counters_.read_misses);
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slot_line_.size());
    slot_line_.push_back(kFreeSlot);
    slot_dirty_.push_back(0);
    bytes_.resize(bytes_.size() + line_bytes_);
  }
  it->second = slot;
  slot_line_[slot] = line;
  slot_dirty_[slot] = 0;
  // Write-allocate fetches the whole line too: the write-back will write it
  // all, so the bytes this core does not store must be GM's.
  backend_->ReadLine(line, SlotData(slot), line_bytes_);
  ++counters_.lines_filled;
  counters_.bytes_filled += line_bytes_;
  return slot;
}

void DataCache::Read(uint64_t addr, void* dst, size_t size) {
  if (size == 0 || !CheckRange(addr, size, "read")) return;
  auto* out = static_cast<uint8_t*>(dst);
  const uint64_t end = addr + size;
  for (uint64_t line = LineOf(addr); line < end; line += line_bytes_) {
    const uint64_t from = std::max(addr, line);
    const uint64_t to = std::min(end, line + line_bytes_);
    const uint32_t slot = Lookup(line, /*for_write=*/false);
    std::memcpy(out + (from - addr), SlotData(slot) + (from - line), to - from);
  }
}

void DataCache::Write(uint64_t addr, const void* src, size_t size) {
  if (size == 0 || !CheckRange(addr, size, "write")) return;
  const auto* in = static_cast<const uint8_t*>(src);
  const uint64_t end = addr + size;
  for (uint64_t line = LineOf(addr); line < end; line += line_bytes_) {
    const uint64_t from = std::max(addr, line);
    const uint64_t to = std::min(end, line + line_bytes_);
    const uint32_t slot = Lookup(line, /*for_write=*/true);
    std::memcpy(SlotData(slot) + (from - line), in + (from - addr), to - from);
    slot_dirty_[slot] = 1;
  }
}

void DataCache::AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) {
  const size_t size = DTypeSize(dtype) * count;
  if (size == 0 || !CheckRange(addr, size, "atomic add")) return;
  backend_->AtomicAdd(addr, dtype, src, count);
  ++counters_.atomic_ops;
  counters_.atomic_bytes += static_cast<int64_t>(size);
}

void DataCache::WriteBack(uint32_t slot) {
  if (!slot_dirty_[slot]) return;
  backend_->WriteLine(slot_line_[slot], SlotData(slot), line_bytes_);
  slot_dirty_[slot] = 0;
  write_backs_.push_back(slot_line_[slot]);
  ++counters_.lines_written_back;
  counters_.bytes_written_back += line_bytes_;
}

void DataCache::Invalidate(uint32_t slot) {
  slot_of_line_.erase(slot_line_[slot]);
  slot_line_[slot] = kFreeSlot;
  ++counters_.lines_invalidated;
}

void DataCache::CleanInvalidateAll() {
  ++counters_.maintenance_ops;
  for (uint32_t slot = 0; slot < slot_line_.size(); ++slot) {
    if (slot_line_[slot] == kFreeSlot) continue;
    WriteBack(slot);
    // erase() per key keeps the map's storage (clear() may free it).
    Invalidate(slot);
  }
  // Every slot is free again; reuse them from the lowest index up.
  free_slots_.clear();
  for (uint32_t slot = static_cast<uint32_t>(slot_line_.size()); slot > 0; --slot) {
    free_slots_.push_back(slot - 1);
  }
}

void DataCache::CleanInvalidateLine(uint64_t addr) {
  ++counters_.maintenance_ops;
  auto it = slot_of_line_.find(LineOf(addr));
  if (it == slot_of_line_.end()) return;
  const uint32_t slot = it->second;
  WriteBack(slot);
  Invalidate(slot);
  free_slots_.push_back(slot);
}

void DataCache::WriteBackAll() {
  for (uint32_t slot = 0; slot < slot_line_.size(); ++slot) {
    if (slot_line_[slot] != kFreeSlot) WriteBack(slot);
  }
}

DataCacheCounters DataCache::TakeCounters() {
  DataCacheCounters taken = counters_;
  counters_ = DataCacheCounters();
  return taken;
}

bool DataCache::IsDirty(uint64_t addr) const {
  auto it = slot_of_line_.find(LineOf(addr));
  return it != slot_of_line_.end() && slot_dirty_[it->second] != 0;
}

int64_t DataCache::dirty_lines() const {
  int64_t dirty = 0;
  for (uint32_t slot = 0; slot < slot_line_.size(); ++slot) {
    dirty += slot_line_[slot] != kFreeSlot && slot_dirty_[slot] != 0;
  }
  return dirty;
}

}  // namespace pto
