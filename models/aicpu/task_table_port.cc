#include "models/aicpu/task_table_port.h"

#include <algorithm>

namespace pto {

void TaskTablePort::StartBlock(TaskSeq seq, TimePs at, std::vector<BoundArg>* args) {
  Task* task = tasks_->Find(seq);  // live until its last FIN
  if (task->times.first_start == kNever) task->times.first_start = at;
  args->clear();
  for (const TaskArg& arg : task->args) {
    if (arg.is_tensor) {
      TensorBinding binding;
      binding.gm_addr = arg.view.first_byte();
      binding.dtype = arg.view.dtype;
      binding.rank = arg.view.ndims;
      binding.direction = arg.direction;
      binding.footprint_bytes = arg.view.end_byte() - arg.view.first_byte();
      for (int d = 0; d < arg.view.ndims; ++d) {
        binding.shape[d] = arg.view.shape[d];
        binding.strides[d] = arg.view.strides[d];
      }
      args->push_back(BoundArg::Tensor(binding));
    } else {
      args->push_back(arg.scalar_is_float ? BoundArg::Float(arg.scalar_f)
                                          : BoundArg::Int(arg.scalar_i));
    }
  }
}

void TaskTablePort::EndBlock(TaskSeq seq, TimePs at) {
  if (Task* task = tasks_->Find(seq)) {
    task->times.last_end = std::max(task->times.last_end, at);
  }
}

std::string TaskTablePort::Name(TaskSeq seq) const {
  const Task* task = tasks_->Find(seq);
  return task != nullptr ? task->name : "?";
}

}  // namespace pto
