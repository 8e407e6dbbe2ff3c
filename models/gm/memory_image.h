#ifndef PTO_MODELS_GM_MEMORY_IMAGE_H_
#define PTO_MODELS_GM_MEMORY_IMAGE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/dtype.h"
#include "models/gm/gm_port.h"

namespace pto {

// The contents of global memory: one byte buffer per tensor, found by
// address. Only declared tensors exist; any access outside them is an error,
// which catches kernels that stray past their views. In timing-only runs no
// buffer is allocated and accesses are refused, except for control regions:
// tensors whose host-written values decide device control (a kernel's
// pl.read), kept so that ReadScalar can give them; the run's junk writes
// never reach them, they only mark the region as written on the device.
class MemoryImage : public ScalarMemory {
 public:
  // Declares [addr, addr + size). Regions must not overlap (the trace reader
  // guarantees it). `allocate` = false declares the range without storage.
  void AddRegion(uint64_t addr, uint64_t size, std::string name, bool allocate);
  // A timing-only run's control tensor: storage for its initial values.
  void AddControlRegion(uint64_t addr, uint64_t size, std::string name);

  // A READ's bytes: from any region with contents that no task has written
  // in a timing-only run; otherwise an error naming the tensor and why.
  absl::Status ReadScalar(uint64_t addr, void* dst, size_t size) const override;
  void NoteDeviceWrite(uint64_t addr, uint64_t bytes) const override;

  // Pointer to `size` bytes at `addr` inside one region, or null.
  uint8_t* Span(uint64_t addr, uint64_t size);
  const uint8_t* Span(uint64_t addr, uint64_t size) const;
  // Where a device write lands: Span, except that a control region gives
  // null and is marked as written instead.
  uint8_t* WritableSpan(uint64_t addr, uint64_t size);

  absl::Status Read(uint64_t addr, void* dst, size_t size) const;
  absl::Status Write(uint64_t addr, const void* src, size_t size);
  // Elementwise add of `count` elements of `dtype` (atomic on the device).
  absl::Status AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count);

  bool allocated() const { return allocated_; }

 private:
  struct Region {
    uint64_t addr;
    uint64_t size;
    std::string name;
    std::vector<uint8_t> bytes;
    bool control = false;          // timing-only values (AddControlRegion)
    mutable bool written = false;  // a control region a task wrote
  };
  // The region holding [addr, addr + size), with storage or (`any`) without.
  const Region* Find(uint64_t addr, uint64_t size, bool any = false) const;

  absl::Status OutOfRange(uint64_t addr, size_t size) const;

  std::vector<Region> regions_;  // sorted by address
  bool allocated_ = false;
};

}  // namespace pto

#endif  // PTO_MODELS_GM_MEMORY_IMAGE_H_
