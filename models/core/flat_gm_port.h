#ifndef PTO_MODELS_CORE_FLAT_GM_PORT_H_
#define PTO_MODELS_CORE_FLAT_GM_PORT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "models/gm/gm_port.h"

namespace pto {

// A GmPort over one flat byte array covering [base, base + size): for unit
// tests and for reference evaluation outside the chip model. Accesses outside
// the array touch nothing and are remembered; status() reports the first one.
class FlatGmPort : public GmPort {
 public:
  FlatGmPort(uint64_t base, size_t size) : base_(base), bytes_(size, 0) {}

  void Read(uint64_t addr, void* dst, size_t size) override;
  void Write(uint64_t addr, const void* src, size_t size) override;
  // Adds element-wise in double and rounds back to `dtype` (as the GM's
  // atomic unit does in the element's own type).
  void AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) override;
  // One range check for the whole tile, then plain copies (one when the rows
  // are contiguous); row by row, as GmPort does, when some row is outside.
  void ReadRows(uint64_t addr, int64_t rows, size_t row_bytes, uint64_t stride, void* dst) override;
  void WriteRows(uint64_t addr, int64_t rows, size_t row_bytes, uint64_t stride,
                 const void* src) override;

  uint8_t* data(uint64_t addr) { return bytes_.data() + (addr - base_); }
  std::vector<uint8_t>& bytes() { return bytes_; }
  uint64_t base() const { return base_; }

  absl::Status status() const { return status_; }
  int64_t reads() const { return reads_; }
  int64_t writes() const { return writes_; }
  int64_t atomics() const { return atomics_; }
  int64_t bytes_read() const { return bytes_read_; }
  int64_t bytes_written() const { return bytes_written_; }

 private:
  bool InRange(uint64_t addr, size_t size, const char* what);
  // Whether [addr, addr + size) lies inside the array (records nothing).
  bool Covers(uint64_t addr, size_t size) const {
    return addr >= base_ && size <= bytes_.size() && addr - base_ <= bytes_.size() - size;
  }
  // The bytes the rows span, first row start to last row end.
  static size_t RowsSpan(int64_t rows, size_t row_bytes, uint64_t stride) {
    return rows <= 0 ? 0 : static_cast<size_t>(rows - 1) * stride + row_bytes;
  }

  uint64_t base_;
  std::vector<uint8_t> bytes_;
  absl::Status status_;
  int64_t reads_ = 0, writes_ = 0, atomics_ = 0;
  int64_t bytes_read_ = 0, bytes_written_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_FLAT_GM_PORT_H_
