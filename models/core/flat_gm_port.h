#ifndef PTO_MODELS_CORE_FLAT_GM_PORT_H_
#define PTO_MODELS_CORE_FLAT_GM_PORT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "models/core/gm_port.h"

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

  uint64_t base_;
  std::vector<uint8_t> bytes_;
  absl::Status status_;
  int64_t reads_ = 0, writes_ = 0, atomics_ = 0;
  int64_t bytes_read_ = 0, bytes_written_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_FLAT_GM_PORT_H_
