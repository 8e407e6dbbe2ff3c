#ifndef PTO_MODELS_CHIP_CONTEXT_H_
#define PTO_MODELS_CHIP_CONTEXT_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "models/aicpu/dep_inference.h"
#include "models/aicpu/ready_queues.h"
#include "models/aicpu/ring_pool.h"
#include "models/aicpu/runtime_signals.h"
#include "models/aicpu/task_lifecycle.h"
#include "models/aicpu/task_table.h"
#include "models/base/chip_config.h"
#include "models/base/time.h"
#include "models/core/kernel_program.h"
#include "models/gm/memory_image.h"
#include "models/run_observer.h"
#include "proto/task_stream.pb.h"

namespace pto {

// State shared by the chip's modules: the AICPU runtime's shared memory (task
// window, ready queues, tensor map), the compiled kernels, GM contents and the
// observer. Modules hold a pointer; it outlives them.
class ChipContext {
 public:
  ChipContext(ChipConfig config, const trace::StreamHeader& header,
              std::vector<CompiledKernel> kernels, bool functional, RunObserver* observer);

  const ChipConfig& config() const { return config_; }
  const trace::Tensor& tensor(uint32_t id) const { return header_.tensors(id); }
  size_t tensor_count() const { return header_.tensors_size(); }
  const CompiledKernel& kernel(int32_t id) const { return kernels_[id]; }
  bool functional() const { return functional_; }
  RunObserver& observer() { return *observer_; }

  MemoryImage& memory() { return memory_; }
  TaskTable& tasks() { return tasks_; }
  ReadyQueues& ready() { return ready_; }
  DependencyInference& deps() { return deps_; }
  LifecycleCounters& lifecycle_counters() { return lifecycle_counters_; }
  // Every SC_METHOD body of the chip counts itself: the simulation kernel's
  // work per simulated task, for benchmarks (--engine-stats).
  void CountActivation() { ++activations_; }
  uint64_t activations() const { return activations_; }
  RuntimeSignals& signals() { return *signals_; }
  void set_signals(RuntimeSignals* signals) { signals_ = signals; }
  const RingLimits& ring_limits(int ring) const { return ring_limits_[ring]; }
  void set_ring_limits(int ring, const RingLimits& limits) { ring_limits_[ring] = limits; }

  // Reused by CompleteTask so completions allocate nothing.
  std::vector<TaskSeq>& ready_scratch() { return ready_scratch_; }

  // The first runtime fatal error ends the simulation (sc_stop); later ones
  // are dropped so the report names the cause, not its echoes.
  void Fail(absl::Status status);
  const absl::Status& fatal() const { return fatal_; }

 private:
  void OnRetire(Task& task);

  ChipConfig config_;
  const trace::StreamHeader& header_;
  std::vector<CompiledKernel> kernels_;
  bool functional_;
  RunObserver* observer_;
  RuntimeSignals* signals_ = nullptr;
  MemoryImage memory_;
  TaskTable tasks_;
  ReadyQueues ready_;
  DependencyInference deps_;
  uint64_t activations_ = 0;
  LifecycleCounters lifecycle_counters_;
  std::vector<TaskSeq> ready_scratch_;
  std::array<RingLimits, 4> ring_limits_;
  absl::Status fatal_;
};

}  // namespace pto

#endif  // PTO_MODELS_CHIP_CONTEXT_H_
