#ifndef PTO_MODELS_AICPU_TASK_TABLE_PORT_H_
#define PTO_MODELS_AICPU_TASK_TABLE_PORT_H_

#include <string>
#include <vector>

#include "models/aicpu/task_table.h"
#include "models/core/task_port.h"

namespace pto {

// The cores' view of the task table (TaskPort): a block's arguments, bound
// from the task's views and scalars, and the task's first start and last
// end.
class TaskTablePort final : public TaskPort {
 public:
  // `tasks` outlives the port.
  explicit TaskTablePort(TaskTable* tasks) : tasks_(tasks) {}

  void StartBlock(TaskSeq task, TimePs at, std::vector<BoundArg>* args) override;
  void EndBlock(TaskSeq task, TimePs at) override;
  std::string Name(TaskSeq task) const override;

 private:
  TaskTable* tasks_;
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_TASK_TABLE_PORT_H_
