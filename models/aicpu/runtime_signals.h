#ifndef PTO_MODELS_AICPU_RUNTIME_SIGNALS_H_
#define PTO_MODELS_AICPU_RUNTIME_SIGNALS_H_

#include "models/aicpu/task.h"

namespace pto {

// Wake-ups and MMIO writes between the AICPU threads and the cores. On the
// device the threads spin on shared memory; the model instead wakes a
// sleeping thread exactly when something it would observe has changed, so
// idle loops cost no events.
class RuntimeSignals {
 public:
  virtual ~RuntimeSignals() = default;
  // Ready work (or a dummy) becomes visible at `visible_at`.
  virtual void WakeSchedulers(TimePs visible_at) = 0;
  // A task completed or retired; the orchestrator may be waiting for it.
  virtual void WakeOrchestrator() = 0;
  // Releases the gated (early-dispatched) block of `task` on `core`: the
  // doorbell write happens at simulated time `at` (>= now).
  virtual void RingDoorbell(int core, TaskSeq task, TimePs at) = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_RUNTIME_SIGNALS_H_
