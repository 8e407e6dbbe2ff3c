#ifndef PTO_MODELS_RUN_OBSERVER_H_
#define PTO_MODELS_RUN_OBSERVER_H_

#include <cstdint>

#include "models/aicpu/dep_inference.h"
#include "models/aicpu/task.h"

namespace pto {

// One block (or one core's share of a MIX block) on one core.
struct CoreInterval {
  int32_t core = -1;
  TaskSeq task = kNoTask;
  int64_t block = 0;
  TimePs dispatch = 0;  // the scheduler's dispatch register write
  TimePs receive = 0;   // the core saw the dispatch
  TimePs start = 0;     // the kernel started
  TimePs end = 0;       // the kernel ended (FIN raised)
};

// What the chip tells the outside world as the run goes. The writers of
// stats.json (and later the swimlane and deps.json) implement it; the models
// never format output themselves.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void OnEdge(const Task& consumer, const DepEdge& edge) {}
  virtual void OnCoreInterval(const CoreInterval& interval) {}
  // A task left the in-flight window; its times are final.
  virtual void OnTaskRetired(const Task& task) {}
};

}  // namespace pto

#endif  // PTO_MODELS_RUN_OBSERVER_H_
