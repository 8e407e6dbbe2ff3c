#ifndef PTO_MODELS_CORE_TESTING_FAKE_TASK_PORT_H_
#define PTO_MODELS_CORE_TESTING_FAKE_TASK_PORT_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/base/ids.h"
#include "models/base/time.h"
#include "models/core/task_port.h"
#include "models/core/tile_executor.h"

namespace pto::core_testing {

// A TaskPort over a map, for core tests: each task has a name, a kernel and
// its arguments already bound; the port keeps the times the core reported.
class FakeTaskPort : public TaskPort {
 public:
  struct Task {
    std::string name;
    int32_t kernel = -1;
    std::vector<BoundArg> args;
    TimePs first_start = kNever;
    TimePs last_end = kNever;
  };

  TaskSeq Add(std::string name, int32_t kernel, std::vector<BoundArg> args = {}) {
    const TaskSeq seq = next_++;
    tasks_[seq] = Task{std::move(name), kernel, std::move(args)};
    return seq;
  }
  const Task& at(TaskSeq seq) const { return tasks_.at(seq); }

  void StartBlock(TaskSeq seq, TimePs at, std::vector<BoundArg>* args) override {
    Task& task = tasks_.at(seq);
    if (task.first_start == kNever) task.first_start = at;
    *args = task.args;
  }
  void EndBlock(TaskSeq seq, TimePs at) override {
    Task& task = tasks_.at(seq);
    if (task.last_end == kNever || at > task.last_end) task.last_end = at;
  }
  std::string Name(TaskSeq seq) const override {
    auto it = tasks_.find(seq);
    return it != tasks_.end() ? it->second.name : "?";
  }

 private:
  std::map<TaskSeq, Task> tasks_;
  TaskSeq next_ = 0;
};

// A row-major FP32 [1, 16] view at `addr`: one 64-byte cache line.
inline BoundArg Matrix1x16(uint64_t addr) {
  TensorBinding binding;
  binding.gm_addr = addr;
  binding.dtype = trace::FP32;
  binding.rank = 2;
  binding.shape[0] = 1;
  binding.shape[1] = 16;
  binding.strides[0] = 16;
  binding.strides[1] = 1;
  return BoundArg::Tensor(binding);
}

}  // namespace pto::core_testing

#endif  // PTO_MODELS_CORE_TESTING_FAKE_TASK_PORT_H_
