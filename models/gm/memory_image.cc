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

const MemoryImage::Region* MemoryImage::Find(uint64_t addr, uint64_t size) const {
  auto it = std::upper_bound(regions_.begin(), regions_.end(), addr,
                             [](uint64_t a, const Region& r) { return a < r.addr; });
  if (it == regions_.begin()) return nullptr;
  const Region& region = *(it - 1);
  if (addr - region.addr > region.size || size > region.size - (addr - region.addr)) {
    return nullptr;
  }
  return region.bytes.empty() ? nullptr : &region;
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
  uint8_t* dst = Span(addr, size);
  if (dst == nullptr) return OutOfRange(addr, size);
  std::memcpy(dst, src, size);
  return absl::OkStatus();
}

absl::Status MemoryImage::AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) {
  const size_t elem = DTypeSize(dtype);
  uint8_t* dst = Span(addr, count * elem);
  if (dst == nullptr) return OutOfRange(addr, count * elem);
  const auto* in = static_cast<const uint8_t*>(src);
  for (size_t i = 0; i < count; ++i) {
    const double sum = LoadAsDouble(dtype, dst + i * elem) + LoadAsDouble(dtype, in + i * elem);
    StoreFromDouble(dtype, sum, dst + i * elem);
  }
  return absl::OkStatus();
}

}  // namespace pto
