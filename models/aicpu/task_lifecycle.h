#ifndef PTO_MODELS_AICPU_TASK_LIFECYCLE_H_
#define PTO_MODELS_AICPU_TASK_LIFECYCLE_H_

#include <vector>

#include "models/aicpu/task.h"
#include "models/chip_context.h"

namespace pto {

// The runtime's ready routing (push_ready_routed / route_ready_once): a task
// whose last dependency is satisfied at `now` evaluates its predicate (the
// element's bytes sign-extended, compared with the literal); dummies and
// predicate-false tasks go to the dummy queue, the rest to their shape's
// queue. In a timing-only run there is no data, so predicates pass.
void RouteReady(ChipContext& context, Task& task, TimePs now);

// Completes `task` at `now` (its last subtask finished, or it was retired
// inline) and routes the consumers that became ready. Returns the number of
// consumers visited, which the fan-out walk is charged for.
size_t CompleteTask(ChipContext& context, Task& task, TimePs now);

}  // namespace pto

#endif  // PTO_MODELS_AICPU_TASK_LIFECYCLE_H_
