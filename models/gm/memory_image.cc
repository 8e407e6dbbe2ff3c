#include "models/gm/memory_image.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace pto {

void MemoryImage::AddRegion(uint64_t addr, uint64_t size, std::string name, bool allocate) {
  Region region{addr, size, std::move(name), {}};
  if (allocate) {
    region.bytes.assign(size, 0);
    allocated_ = true;
  }
  auto it = std::lower_bound(regions_.begin(), regions_.end(), addr,
                             [](const Region& r, uint64_t a) { return r.addr < a; });
  regions_.insert(it, std::move(region));
}

void MemoryImage::AddControlRegion(uint64_t addr, uint64_t size, std::string name) {
  Region region{addr, size, std::move(name), std::vector<uint8_t>(size, 0)};
  region.control = true;
  auto it = std::lower_bound(regions_.begin(), regions_.end(), addr,
                             [](const Region& r, uint64_t a) { return r.addr < a; });
  regions_.insert(it, std::move(region));
}

absl::Status MemoryImage::ReadScalar(uint64_t addr, void* dst, size_t size) const {
  const Region* region = Find(addr, size, /*any=*/true);
  if (region == nullptr) return OutOfRange(addr, size);
  if (region->bytes.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "tensor '", region->name,
        "' has no contents in this timing-only run; the values that decide control must come "
        "from the host (a CPU tensor, or TensorSpec(init_value=...)) or from a functional run"));
  }
  if (region->written) {
    return absl::FailedPreconditionError(absl::StrCat(
        "tensor '", region->name,
        "' was written by a task on the device, and a timing-only run has no device values; "
        "run functionally (without --timing-only) to follow device-produced control"));
  }
  std::memcpy(dst, region->bytes.data() + (addr - region->addr), size);
  return absl::OkStatus();
}

void MemoryImage::NoteDeviceWrite(uint64_t addr, uint64_t bytes) const {
  // The regions overlapping [addr, addr + bytes): from the last one starting
  // at or before addr.
  auto it = std::upper_bound(regions_.begin(), regions_.end(), addr,
                             [](uint64_t a, const Region& r) { return a < r.addr; });
  if (it != regions_.begin()) --it;
  for (; it != regions_.end() && it->addr < addr + bytes; ++it) {
    if (it->control && it->addr + it->size > addr) it->written = true;
  }
}

uint8_t* MemoryImage::WritableSpan(uint64_t addr, uint64_t size) {
  const Region* region = Find(addr, size);
  if (region == nullptr) return nullptr;
  if (region->control) {
    region->written = true;
    return nullptr;
  }
  return const_cast<uint8_t*>(region->bytes.data()) + (addr - region->addr);
}

const MemoryImage::Region* MemoryImage::Find(uint64_t addr, uint64_t size, bool any) const {
  auto it = std::upper_bound(regions_.begin(), regions_.end(), addr,
                             [](uint64_t a, const Region& r) { return a < r.addr; });
  if (it == regions_.begin()) return nullptr;
  const Region& region = *(it - 1);
  if (addr - region.addr > region.size || size > region.size - (addr - region.addr)) {
    return nullptr;
  }
  return region.bytes.empty() && !any ? nullptr : &region;
}

uint8_t* MemoryImage::Span(uint64_t addr, uint64_t size) {
  return const_cast<uint8_t*>(static_cast<const MemoryImage*>(this)->Span(addr, size));
}

const uint8_t* MemoryImage::Span(uint64_t addr, uint64_t size) const {
  const Region* region = Find(addr, size);
  return region == nullptr ? nullptr : region->bytes.data() + (addr - region->addr);
}

absl::Status MemoryImage::OutOfRange(uint64_t addr, size_t size) const {
  return absl::OutOfRangeError(absl::StrCat(
      "GM access of ", size, " bytes at 0x", absl::Hex(addr),
      allocated_ ? " is outside every tensor" : " in a timing-only run (no contents)"));
}

absl::Status MemoryImage::Read(uint64_t addr, void* dst, size_t size) const {
  const uint8_t* src = Span(addr, size);
  if (src == nullptr) return OutOfRange(addr, size);
  std::memcpy(dst, src, size);
  return absl::OkStatus();
}

absl::Status MemoryImage::Write(uint64_t addr, const void* src, size_t size) {
  uint8_t* dst = WritableSpan(addr, size);
  if (dst == nullptr) {
    const Region* region = Find(addr, size);
    return region != nullptr && region->control ? absl::OkStatus() : OutOfRange(addr, size);
  }
  std::memcpy(dst, src, size);
  return absl::OkStatus();
}

absl::Status MemoryImage::AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) {
  const size_t elem = DTypeSize(dtype);
  uint8_t* dst = WritableSpan(addr, count * elem);
  if (dst == nullptr) {
    const Region* region = Find(addr, count * elem);
    return region != nullptr && region->control ? absl::OkStatus() : OutOfRange(addr, count * elem);
  }
  const auto* in = static_cast<const uint8_t*>(src);
  for (size_t i = 0; i < count; ++i) {
    const double sum = LoadAsDouble(dtype, dst + i * elem) + LoadAsDouble(dtype, in + i * elem);
    StoreFromDouble(dtype, sum, dst + i * elem);
  }
  return absl::OkStatus();
}

}  // namespace pto
