#ifndef PTO_MODELS_RUN_OBSERVER_H_
#define PTO_MODELS_RUN_OBSERVER_H_

#include "models/aicpu/aicpu_observer.h"
#include "models/core/core_observer.h"

namespace pto {

// What the chip tells the outside world as the run goes: everything the
// AICPU runtime and the cores report. The output writers implement it (each
// overriding only what it needs); the models never format output themselves.
// The chip hands each module the part it reports to, so no module below the
// chip knows this type.
class RunObserver : public AicpuObserver, public CoreObserver {
 public:
  // GM's HBM moves `bytes_per_ns` in all from `at` on (told at each change).
  virtual void OnHbmRate(TimePs at, double bytes_per_ns) {
    (void)at;
    (void)bytes_per_ns;
  }
};

}  // namespace pto

#endif  // PTO_MODELS_RUN_OBSERVER_H_
