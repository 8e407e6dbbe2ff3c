#ifndef PTO_MODELS_GM_LINE_BACKEND_H_
#define PTO_MODELS_GM_LINE_BACKEND_H_

#include <cstddef>
#include <cstdint>

#include "common/dtype.h"
#include "models/gm/gm_port.h"

namespace pto {

// What sits behind a core's data cache: the L2/GM side, seen in whole cache
// lines. In the chip model it is the core's TLM socket; in tests a flat array.
class LineBackend {
 public:
  virtual ~LineBackend() = default;
  // Reads `size` bytes at `addr`: a line fill of one or more consecutive
  // whole lines (line-aligned). Bytes outside declared memory read as zero: a
  // line may run past a tensor's end.
  virtual void ReadLine(uint64_t addr, void* dst, size_t size) = 0;
  // Writes `size` bytes at `addr`: the write-back of one or more consecutive
  // whole dirty lines. Bytes outside declared memory are dropped.
  virtual void WriteLine(uint64_t addr, const void* src, size_t size) = 0;
  // Atomic read-modify-write add in GM, past every cache.
  virtual void AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) = 0;
  // Whether the kernel may touch [addr, addr + size): the cache checks every
  // access it is given, so a stray access fails as it would without a cache.
  virtual bool Contains(uint64_t addr, size_t size) const = 0;
  // GmPort::BeginTransfer / EndTransfer, passed through the cache.
  virtual void BeginTransfer() {}
  virtual void EndTransfer() {}
};

// A LineBackend over any GmPort (FlatGmPort in tests, the TLM port in the
// chip). It cannot clip lines, so the port must cover whole lines.
class GmPortLineBackend : public LineBackend {
 public:
  explicit GmPortLineBackend(GmPort* port) : port_(port) {}
  void ReadLine(uint64_t addr, void* dst, size_t size) override { port_->Read(addr, dst, size); }
  void WriteLine(uint64_t addr, const void* src, size_t size) override {
    port_->Write(addr, src, size);
  }
  void AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) override {
    port_->AtomicAdd(addr, dtype, src, count);
  }
  bool Contains(uint64_t, size_t) const override { return true; }
  void BeginTransfer() override { port_->BeginTransfer(); }
  void EndTransfer() override { port_->EndTransfer(); }

 private:
  GmPort* port_;
};

}  // namespace pto

#endif  // PTO_MODELS_GM_LINE_BACKEND_H_
