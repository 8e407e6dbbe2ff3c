#ifndef PTO_MODELS_CORE_TASK_PORT_H_
#define PTO_MODELS_CORE_TASK_PORT_H_

#include <string>
#include <vector>

#include "models/base/ids.h"
#include "models/base/time.h"
#include "models/core/tile_executor.h"

namespace pto {

// What a core reads and records of the task its block belongs to. The
// AICPU's task table implements it (models/aicpu/task_table_port.h), so the
// core never sees a Task; tests implement it over a map. A task is live
// from its first dispatch until the scheduler observed its last FIN.
class TaskPort {
 public:
  virtual ~TaskPort() = default;
  // A block of `task` starts executing at `at` (the task's first start is
  // its earliest); `args` is cleared and receives the task's arguments,
  // bound for the kernel.
  virtual void StartBlock(TaskSeq task, TimePs at, std::vector<BoundArg>* args) = 0;
  // A block of `task` ended at `at` (the task's last end is its latest).
  virtual void EndBlock(TaskSeq task, TimePs at) = 0;
  // The task's name, for a failure's message; "?" once it is gone.
  virtual std::string Name(TaskSeq task) const = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_TASK_PORT_H_
