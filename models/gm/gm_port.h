#ifndef PTO_MODELS_GM_GM_PORT_H_
#define PTO_MODELS_GM_GM_PORT_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "common/dtype.h"

namespace pto {

// How a core's functional execution reaches global memory. The SystemC core
// implements it over its TLM-2.0 initiator socket; tests and ptoc's reference
// evaluation implement it over a flat byte array.
class GmPort {
 public:
  virtual ~GmPort() = default;
  virtual void Read(uint64_t addr, void* dst, size_t size) = 0;
  virtual void Write(uint64_t addr, const void* src, size_t size) = 0;
  // Atomic read-modify-write add of `count` elements of `dtype` in GM.
  virtual void AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) = 0;
  // A tile's rows: `rows` runs of `row_bytes` bytes, `stride` bytes apart
  // from `addr`, packed one after another at `dst` / `src`. By default one
  // Read / Write per row, in row order (so a cache or a recorder sees exactly
  // that); a port over plain memory does it in one checked loop.
  virtual void ReadRows(uint64_t addr, int64_t rows, size_t row_bytes, uint64_t stride, void* dst) {
    auto* out = static_cast<uint8_t*>(dst);
    for (int64_t r = 0; r < rows; ++r) {
      Read(addr + static_cast<uint64_t>(r) * stride, out + static_cast<size_t>(r) * row_bytes,
           row_bytes);
    }
  }
  virtual void WriteRows(uint64_t addr, int64_t rows, size_t row_bytes, uint64_t stride,
                         const void* src) {
    const auto* in = static_cast<const uint8_t*>(src);
    for (int64_t r = 0; r < rows; ++r) {
      Write(addr + static_cast<uint64_t>(r) * stride, in + static_cast<size_t>(r) * row_bytes,
            row_bytes);
    }
  }
  // Bracket the accesses of one tile transfer (one MTE instruction moving a
  // whole tile, row by row): a timed port issues them back to back and
  // charges the GM latency once, not once per row. Brackets do not nest.
  virtual void BeginTransfer() {}
  virtual void EndTransfer() {}
};

// Where a timing-only run's READs (pl.read of a tensor element) find their
// values: the tensors whose contents the stream carries because they decide
// control (trace::Tensor.control). A functional run reads GM through its port.
class ScalarMemory {
 public:
  virtual ~ScalarMemory() = default;
  // `size` bytes at `addr`, or an error saying why the value is not known
  // (the tensor has no contents in this run, or a task wrote it).
  virtual absl::Status ReadScalar(uint64_t addr, void* dst, size_t size) const = 0;
  // A timing-only task wrote [addr, addr + bytes) (with no values): a later
  // ReadScalar there has no answer.
  virtual void NoteDeviceWrite(uint64_t addr, uint64_t bytes) const = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_GM_GM_PORT_H_
