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
#include "models/aicpu/task_table.h"
#include "models/base/chip_config.h"
#include "models/base/time.h"
#include "models/core/kernel_program.h"
#include "models/gm/memory_image.h"
#include "models/run_observer.h"
#include "proto/task_stream.pb.h"

namespace pto {

// Counters of one launch, reset when it begins.
struct LaunchCounters {
  uint64_t tasks = 0;  // submits (dummies and allocs counted apart)
  uint64_t dummy_tasks = 0;
  uint64_t alloc_tasks = 0;
  uint64_t task_dispatches = 0;   // tasks popped from the ready queues
  uint64_t block_dispatches = 0;  // blocks launched on a core or cluster
  uint64_t predicated_skips = 0;
  uint64_t edges = 0;  // inferred edge records (before de-duplication)
  TimePs launch_start = 0;
  TimePs first_kernel_start = kNever;
  TimePs last_kernel_end = kNever;
  TimePs last_retire = 0;
  TimePs aic_busy = 0;  // summed core-busy time per core type
  TimePs aiv_busy = 0;
  TimePs orchestrator_busy = 0;
  TimePs scheduler_busy = 0;  // summed over threads
  uint64_t scheduler_loops = 0;
  uint64_t early_blocks = 0;    // blocks pre-staged by early dispatch
  uint64_t sync_drains = 0;     // sync_start cohorts launched by the global drain
  uint64_t inline_retires = 0;  // dummies and predicate-false tasks, by schedulers
  uint64_t pop_hit = 0;
  uint64_t pop_miss = 0;
  // The orchestrator's submit time by part (the split of hw-native-sys/simpler@6ebaf771
  // src/a2a3/runtime/tensormap_and_ringbuffer/docs/device_log_profiling.md).
  TimePs submit_base = 0;
  TimePs submit_param_copy = 0;
  TimePs submit_lookup = 0;
  TimePs submit_insert = 0;
  uint64_t submits = 0;  // submits and dummies costed
  struct Ring {
    uint64_t peak_tasks = 0;
    uint64_t peak_heap_bytes = 0;
    uint64_t peak_dep_entries = 0;
    TimePs blocked = 0;  // orchestrator time spent waiting for space
  };
  std::array<Ring, 4> rings;
  // MIX blocks' cross-core rings, summed over blocks (from each AIC lane).
  struct MixRing {
    uint64_t blocks = 0;
    uint64_t pushes = 0;
    TimePs cube_busy = 0;
    TimePs vector_busy = 0;
    TimePs overlap = 0;    // both engines busy at once
    TimePs slot_wait = 0;  // producers waiting for a free slot
    TimePs data_wait = 0;  // consumers waiting for a pushed tile
  };
  MixRing mix;
};

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
  LaunchCounters& counters() { return counters_; }
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
  LaunchCounters counters_;
  std::vector<TaskSeq> ready_scratch_;
  std::array<RingLimits, 4> ring_limits_;
  absl::Status fatal_;
};

}  // namespace pto

#endif  // PTO_MODELS_CHIP_CONTEXT_H_
