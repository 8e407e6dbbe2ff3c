#include "sim/overhead_tap.h"

#include "models/aicpu/dep_inference.h"

namespace pto {

void OverheadTap::OnTaskSubmitted(const Task& task, absl::Span<const DepEdge> edges, TimePs start,
                                  TimePs /*end*/) {
  // The unique producers, ascending, as LaunchLog keeps them.
  UniqueProducers(task.seq, edges, &producers_);
  analyzer_.AddTask(task.seq, task.index_in_launch, task.runtime_id, task.name, task.shape,
                    producers_, start);
}

}  // namespace pto
