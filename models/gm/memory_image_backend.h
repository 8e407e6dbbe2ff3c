#ifndef PTO_MODELS_GM_MEMORY_IMAGE_BACKEND_H_
#define PTO_MODELS_GM_MEMORY_IMAGE_BACKEND_H_

// Header-only so that pto_gm_logic does not need memory_image.cc (it lives in
// pto_chip); whoever uses these links MemoryImage.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "models/gm/line_backend.h"
#include "models/gm/memory_image.h"

namespace pto {

// Line transfers that clip at tensor ends: tensors need not be whole lines
// long, so a line fill may run past one. Bytes outside every tensor read as
// zero and are not written. The byte-by-byte path only runs for such tail
// lines.
inline void ReadClipped(const MemoryImage& image, uint64_t addr, void* dst, size_t size) {
  if (const uint8_t* src = image.Span(addr, size)) {
    std::memcpy(dst, src, size);
    return;
  }
  auto* out = static_cast<uint8_t*>(dst);
  for (size_t i = 0; i < size; ++i) {
    const uint8_t* byte = image.Span(addr + i, 1);
    out[i] = byte == nullptr ? 0 : *byte;
  }
}

inline void WriteClipped(MemoryImage& image, uint64_t addr, const void* src, size_t size) {
  if (uint8_t* dst = image.WritableSpan(addr, size)) {
    std::memcpy(dst, src, size);
    return;
  }
  const auto* in = static_cast<const uint8_t*>(src);
  for (size_t i = 0; i < size; ++i) {
    if (uint8_t* byte = image.WritableSpan(addr + i, 1)) *byte = in[i];
  }
}

// A LineBackend straight over a MemoryImage, without timing: for tests and
// for reference runs that want the caches' semantics without the chip.
class MemoryImageLineBackend : public LineBackend {
 public:
  explicit MemoryImageLineBackend(MemoryImage* image) : image_(image) {}
  void ReadLine(uint64_t addr, void* dst, size_t size) override {
    ReadClipped(*image_, addr, dst, size);
  }
  void WriteLine(uint64_t addr, const void* src, size_t size) override {
    WriteClipped(*image_, addr, src, size);
  }
  // The cache checked Contains() first, so this cannot fail on an allocated
  // image; an unallocated (timing-only) image has no data to add to.
  void AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) override {
    image_->AtomicAdd(addr, dtype, src, count).IgnoreError();
  }
  bool Contains(uint64_t addr, size_t size) const override {
    return image_->Span(addr, size) != nullptr;
  }

 private:
  MemoryImage* image_;
};

}  // namespace pto

#endif  // PTO_MODELS_GM_MEMORY_IMAGE_BACKEND_H_
