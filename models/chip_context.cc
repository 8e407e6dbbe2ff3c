#include "models/chip_context.h"

#include <algorithm>

#include "systemc"

namespace pto {

ChipContext::ChipContext(ChipConfig config, const trace::StreamHeader& header,
                         std::vector<CompiledKernel> kernels, bool functional,
                         RunObserver* observer)
    : config_(std::move(config)),
      header_(header),
      kernels_(std::move(kernels)),
      functional_(functional),
      observer_(observer),
      tasks_([this](Task& task) { OnRetire(task); }) {
  for (int r = 0; r < 4; ++r) {
    ring_limits_[r] =
        RingLimits{config_.ring.task_window, config_.ring.heap_bytes, config_.ring.dep_pool};
  }
  for (const trace::Tensor& t : header.tensors()) {
    memory_.AddRegion(t.gm_addr(), t.size_bytes(), t.name(), functional);
  }
}

void ChipContext::OnRetire(Task& task) {
  deps_.EraseProducer(task.seq);
  if (signals_ != nullptr) signals_->WakeOrchestrator();
  lifecycle_counters_.last_retire = std::max(lifecycle_counters_.last_retire, task.times.finish);
  observer_->OnTaskRetired(task);
}

void ChipContext::Fail(absl::Status status) {
  if (fatal_.ok()) {
    fatal_ = std::move(status);
    sc_core::sc_stop();
  }
}

}  // namespace pto
