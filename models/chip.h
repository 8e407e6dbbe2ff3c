#ifndef PTO_MODELS_CHIP_H_
#define PTO_MODELS_CHIP_H_

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "models/aicpu/dep_inference.h"
#include "models/aicpu/orchestrator.h"
#include "models/aicpu/ready_queues.h"
#include "models/aicpu/ring_pool.h"
#include "models/aicpu/runtime_signals.h"
#include "models/aicpu/scheduler_thread.h"
#include "models/aicpu/task_lifecycle.h"
#include "models/aicpu/task_table.h"
#include "models/aicpu/task_table_port.h"
#include "models/base/calendar.h"
#include "models/base/calendar_process.h"
#include "models/base/chip_config.h"
#include "models/base/run_failure.h"
#include "models/core/aicore.h"
#include "models/core/kernel_program.h"
#include "models/ffts/barrier.h"
#include "models/ffts/soft_barrier.h"
#include "models/gm/global_memory.h"
#include "models/gm/memory_image.h"
#include "models/gm/memory_service.h"
#include "models/run_observer.h"
#include "proto/task_stream.pb.h"
#include "systemc"

namespace pto {

// The cores' counters of one launch, summed over the cores.
struct CoreTotals {
  TimePs first_kernel_start = kNever;  // the earliest block start
  TimePs last_kernel_end = kNever;     // the latest block end
  TimePs aic_busy = 0;                 // block time summed per core type
  TimePs aiv_busy = 0;
  TimePs aic_gm_stall = 0;  // GM stalls summed per core type
  TimePs aiv_gm_stall = 0;
  MixRingCounters mix;                    // from each AIC lane
  std::vector<SummaryStretch> stretched;  // per kernel, its worst block
  void Add(CoreKind kind, const CoreCounters& core);
};

// A launch's counters, each part as its owner kept it: the chip collects
// them when the launch ends.
struct LaunchCounters {
  OrchestratorCounters orchestrator;
  std::array<RingPool::Stats, kNumRings> rings;
  SchedulerCounters schedulers;            // summed over threads
  std::vector<SchedulerCounters> threads;  // per scheduler thread
  uint64_t sync_drains = 0;                // sync_start cohorts launched by the global drain
  CoreTotals cores;
  LifecycleCounters lifecycle;
  MemorySystem::Counters gm;  // the tile transfers the memory system timed
};

// Told about launch boundaries and checks as the chip reaches them.
class LaunchListener {
 public:
  virtual ~LaunchListener() = default;
  virtual void OnLaunchBegin(int launch, const std::string& name) = 0;
  // Every task of the launch has retired; `counters` are final.
  virtual void OnLaunchEnd(int launch, const LaunchCounters& counters) = 0;
  // A check record; the launch it follows has fully retired.
  virtual void OnCheck(const trace::Check& check) = 0;
};

// What a chip is built from. Everything pointed to outlives the chip.
struct ChipSetup {
  const ChipConfig* config = nullptr;
  const trace::StreamHeader* header = nullptr;          // the trace's tensors
  const std::deque<CompiledKernel>* kernels = nullptr;  // by kernel id; may grow
  MemoryImage* memory = nullptr;  // GM's contents (declared, unallocated in a timing-only run)
  bool functional = false;        // GM holds real bytes and kernels compute
  std::array<RingLimits, kNumRings> ring_limits;
  // A launch's own ring sizes as limits (see OrchestratorEnv).
  std::function<std::array<RingLimits, kNumRings>(const trace::RingSizes&)> launch_ring_limits;
  RunObserver* observer = nullptr;
  RecordSource* source = nullptr;
  LaunchListener* listener = nullptr;
};

// The modelled chip: GM, `clusters` x (1 AIC + 2 AIV) cores, the AICPU's
// scheduler threads (each owning clusters round-robin) and its orchestrator.
// Core ids follow the runtime's blocked layout: AIC of cluster c is c, its
// AIVs are clusters + 2c and clusters + 2c + 1.
//
// The chip owns what its components share, the AICPU runtime's shared
// memory (task table, ready queues, dependency inference) and the run's
// failure, and hands each component the pieces it uses, so none sees the
// rest. The first failure stops the simulation. When a launch begins the
// chip has each component reset its counters; when it ends it collects them
// into one LaunchCounters for the listener.
class Chip : public sc_core::sc_module,
             public RuntimeSignals,
             public SyncFabric,
             private LaunchEvents {
 public:
  Chip(sc_core::sc_module_name name, const ChipSetup& setup);

  void WakeSchedulers(TimePs visible_at) override;
  void WakeOrchestrator() override;
  void RingDoorbell(int core, TaskSeq task, TimePs at) override;
  // SyncFabric: the FFTS hard barrier per (task, core type) and the soft
  // GM-counter barrier per (task, workspace).
  void ArriveAtSyncall(AiCore* core, TaskSeq task, const SyncallRequest& request,
                       TimePs at) override;

  const Orchestrator& orchestrator() const { return *orchestrator_; }
  // A tensor a Declare record added after the header (the next id); the
  // caller has given it GM (the MemoryImage region and contents).
  void AddTensor(const trace::Tensor* tensor) { orchestrator_->AddTensor(tensor); }

  // The run's first runtime fatal error (OK while there is none).
  const absl::Status& fatal() const { return failure_.status(); }
  // Reports a failure outside the models (the listener's): the first one
  // ends the simulation.
  void Fail(absl::Status status) { failure_.Fail(std::move(status)); }
  // The chip's calendar: its wakes, per component (--engine-stats).
  const Calendar& calendar() const { return calendar_; }
  // SystemC process runs: the simulation kernel's work (--engine-stats).
  uint64_t activations() const { return calendar_process_.activations(); }
  // Why the run cannot finish, when the simulation ran out of events early:
  // the runtime's queues and, for cores stuck at a syncall, the barrier's
  // report (507018-style for the FFTS barrier).
  std::string DescribeStall() const;

 private:
  // LaunchEvents, from the orchestrator.
  void OnLaunchBegin(int launch, const std::string& name) override;
  void OnLaunchEnd(int launch) override;
  void OnCheck(const trace::Check& check) override { listener_->OnCheck(check); }
  // The task table's retire hook.
  void OnRetire(Task& task);

  const ChipConfig& config_;
  RunObserver* observer_;
  LaunchListener* listener_;
  // Every component keeps its time on the one calendar (README, "How time
  // advances"); its process is the chip's only SystemC process.
  Calendar calendar_;
  CalendarProcess calendar_process_;
  RunFailure failure_;
  TaskTable tasks_;
  ReadyQueues ready_;
  DependencyInference deps_;
  TaskTablePort task_port_;
  TaskLifecycle lifecycle_;
  std::unique_ptr<GlobalMemory> gm_;
  std::unique_ptr<MemoryService> memory_service_;
  std::vector<std::unique_ptr<MixTransferBoard>> mix_boards_;  // per cluster
  MemorySystem::Counters gm_at_launch_begin_;                  // times the cores' tile transfers
  std::vector<std::unique_ptr<AiCore>> cores_;
  SchedulerGroup group_;
  std::vector<std::unique_ptr<SchedulerThread>> schedulers_;
  std::vector<SchedulerThread*> owner_of_core_;
  std::unique_ptr<Orchestrator> orchestrator_;
  // Barriers with cores waiting; a released barrier is dropped (the next
  // syncall of the kernel arms a fresh one). Ordered maps: tiny, and reports
  // come out in a deterministic order.
  struct HardWait {
    std::unique_ptr<HardBarrier> barrier;
    std::vector<AiCore*> waiting;
  };
  std::map<std::pair<TaskSeq, int>, HardWait> hard_barriers_;
  std::map<std::pair<TaskSeq, uint64_t>, std::unique_ptr<SoftBarrier>> soft_barriers_;
};

}  // namespace pto

#endif  // PTO_MODELS_CHIP_H_
