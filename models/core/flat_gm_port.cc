#include "models/core/flat_gm_port.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/dtype.h"

namespace pto {

bool FlatGmPort::InRange(uint64_t addr, size_t size, const char* what) {
  if (addr >= base_ && size <= bytes_.size() && addr - base_ <= bytes_.size() - size) return true;
  if (status_.ok()) {
    status_ = absl::OutOfRangeError(absl::StrCat(
        "GM ", what, " of ", size, " bytes at 0x", absl::Hex(addr), " leaves the memory [0x",
        absl::Hex(base_), ", 0x", absl::Hex(base_ + bytes_.size()), ")"));
  }
  return false;
}

void FlatGmPort::Read(uint64_t addr, void* dst, size_t size) {
  ++reads_;
  if (!InRange(addr, size, "read")) return;
  std::memcpy(dst, data(addr), size);
  bytes_read_ += static_cast<int64_t>(size);
}

void FlatGmPort::Write(uint64_t addr, const void* src, size_t size) {
  ++writes_;
  if (!InRange(addr, size, "write")) return;
  std::memcpy(data(addr), src, size);
  bytes_written_ += static_cast<int64_t>(size);
}

void FlatGmPort::AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) {
  ++atomics_;
  const size_t esize = DTypeSize(dtype);
  if (!InRange(addr, esize * count, "atomic add")) return;
  const auto* in = static_cast<const uint8_t*>(src);
  for (size_t i = 0; i < count; ++i) {
    uint8_t* p = data(addr) + i * esize;
    const double sum = LoadAsDouble(dtype, p) + LoadAsDouble(dtype, in + i * esize);
    StoreFromDouble(dtype, sum, p);
  }
  bytes_written_ += static_cast<int64_t>(esize * count);
}

}  // namespace pto
