#ifndef PTO_MODELS_CORE_ACCESS_RECORDER_H_
#define PTO_MODELS_CORE_ACCESS_RECORDER_H_

#include "models/core/core_observer.h"
#include "models/gm/gm_port.h"

namespace pto {

// A GmPort that reports every access of the block it serves to the run's
// observer (the hazard detector reads exactly what kernels touched, not the
// whole views they were given), then passes it on unchanged. A timing-only
// core whose tile transfers are timed elsewhere (the shared memory system)
// has no bytes to move and DMA bypasses the data cache, so it can ask that
// the accesses inside a transfer (BeginTransfer .. EndTransfer) are only
// reported; scalar accesses always pass on.
class AccessRecorder : public GmPort {
 public:
  AccessRecorder(GmPort* next, CoreObserver* observer) : next_(next), observer_(observer) {}

  void set_block(TaskSeq task, int64_t block, int core) {
    task_ = task;
    block_ = block;
    core_ = core;
  }

  // Off: a transfer's accesses are reported, not passed on. On by default.
  void set_forwards_transfers(bool on) { forwards_transfers_ = on; }

  void Read(uint64_t addr, void* dst, size_t size) override {
    observer_->OnGmAccess(task_, block_, core_, CoreObserver::GmAccess::kRead, addr, size);
    if (Forwards()) next_->Read(addr, dst, size);
  }
  void Write(uint64_t addr, const void* src, size_t size) override {
    observer_->OnGmAccess(task_, block_, core_, CoreObserver::GmAccess::kWrite, addr, size);
    if (Forwards()) next_->Write(addr, src, size);
  }
  // A tile's rows are reported as one observation (the hazard detector keeps
  // them as one strided range), then pass on row by row.
  void ReadRows(uint64_t addr, int64_t rows, size_t row_bytes, uint64_t stride,
                void* dst) override {
    observer_->OnGmRows(task_, block_, core_, CoreObserver::GmAccess::kRead, addr, rows, row_bytes,
                        stride);
    if (Forwards()) next_->ReadRows(addr, rows, row_bytes, stride, dst);
  }
  void WriteRows(uint64_t addr, int64_t rows, size_t row_bytes, uint64_t stride,
                 const void* src) override {
    observer_->OnGmRows(task_, block_, core_, CoreObserver::GmAccess::kWrite, addr, rows, row_bytes,
                        stride);
    if (Forwards()) next_->WriteRows(addr, rows, row_bytes, stride, src);
  }
  void AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) override {
    observer_->OnGmAccess(task_, block_, core_, CoreObserver::GmAccess::kAtomicAdd, addr,
                          count * DTypeSize(dtype));
    if (Forwards()) next_->AtomicAdd(addr, dtype, src, count);
  }
  void BeginTransfer() override {
    in_transfer_ = true;
    if (forwards_transfers_) next_->BeginTransfer();
  }
  void EndTransfer() override {
    in_transfer_ = false;
    if (forwards_transfers_) next_->EndTransfer();
  }

 private:
  bool Forwards() const { return forwards_transfers_ || !in_transfer_; }

  GmPort* next_;
  CoreObserver* observer_;
  bool forwards_transfers_ = true;
  bool in_transfer_ = false;
  TaskSeq task_ = kNoTask;
  int64_t block_ = 0;
  int core_ = -1;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_ACCESS_RECORDER_H_
