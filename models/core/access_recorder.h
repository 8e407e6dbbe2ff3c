#ifndef PTO_MODELS_CORE_ACCESS_RECORDER_H_
#define PTO_MODELS_CORE_ACCESS_RECORDER_H_

#include "models/core/core_observer.h"
#include "models/gm/gm_port.h"

namespace pto {

// A GmPort that reports every access of the block it serves to the run's
// observer (the hazard detector reads exactly what kernels touched, not the
// whole views they were given), then passes it on unchanged.
class AccessRecorder : public GmPort {
 public:
  AccessRecorder(GmPort* next, CoreObserver* observer) : next_(next), observer_(observer) {}

  void set_block(TaskSeq task, int64_t block, int core) {
    task_ = task;
    block_ = block;
    core_ = core;
  }

  void Read(uint64_t addr, void* dst, size_t size) override {
    observer_->OnGmAccess(task_, block_, core_, CoreObserver::GmAccess::kRead, addr, size);
    next_->Read(addr, dst, size);
  }
  void Write(uint64_t addr, const void* src, size_t size) override {
    observer_->OnGmAccess(task_, block_, core_, CoreObserver::GmAccess::kWrite, addr, size);
    next_->Write(addr, src, size);
  }
  void AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) override {
    observer_->OnGmAccess(task_, block_, core_, CoreObserver::GmAccess::kAtomicAdd, addr,
                          count * DTypeSize(dtype));
    next_->AtomicAdd(addr, dtype, src, count);
  }
  void BeginTransfer() override { next_->BeginTransfer(); }
  void EndTransfer() override { next_->EndTransfer(); }

 private:
  GmPort* next_;
  CoreObserver* observer_;
  TaskSeq task_ = kNoTask;
  int64_t block_ = 0;
  int core_ = -1;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_ACCESS_RECORDER_H_
