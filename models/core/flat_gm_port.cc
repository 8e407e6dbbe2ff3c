#include "models/core/flat_gm_port.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/dtype.h"

namespace pto {

bool FlatGmPort::InRange(uint64_t addr, size_t size, const char* what) {
  if (Covers(addr, size)) return true;
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

namespace {

// Copies `rows` runs of `row_bytes`, each `*_stride` bytes after the last.
void CopyRows(uint8_t* dst, uint64_t dst_stride, const uint8_t* src, uint64_t src_stride,
              int64_t rows, size_t row_bytes) {
  if (dst_stride == row_bytes && src_stride == row_bytes) {
    std::memcpy(dst, src, static_cast<size_t>(rows) * row_bytes);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(dst + r * dst_stride, src + r * src_stride, row_bytes);
  }
}

}  // namespace

void FlatGmPort::ReadRows(uint64_t addr, int64_t rows, size_t row_bytes, uint64_t stride,
                          void* dst) {
  if (rows <= 0 || !Covers(addr, RowsSpan(rows, row_bytes, stride))) {
    GmPort::ReadRows(addr, rows, row_bytes, stride, dst);
    return;
  }
  reads_ += rows;
  bytes_read_ += rows * static_cast<int64_t>(row_bytes);
  CopyRows(static_cast<uint8_t*>(dst), row_bytes, data(addr), stride, rows, row_bytes);
}

void FlatGmPort::WriteRows(uint64_t addr, int64_t rows, size_t row_bytes, uint64_t stride,
                           const void* src) {
  if (rows <= 0 || !Covers(addr, RowsSpan(rows, row_bytes, stride))) {
    GmPort::WriteRows(addr, rows, row_bytes, stride, src);
    return;
  }
  writes_ += rows;
  bytes_written_ += rows * static_cast<int64_t>(row_bytes);
  CopyRows(data(addr), stride, static_cast<const uint8_t*>(src), row_bytes, rows, row_bytes);
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
