#ifndef PTO_MODELS_CHIP_H_
#define PTO_MODELS_CHIP_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/aicpu/orchestrator.h"
#include "models/aicpu/runtime_signals.h"
#include "models/aicpu/scheduler_thread.h"
#include "models/chip_context.h"
#include "models/core/aicore.h"
#include "models/ffts/barrier.h"
#include "models/ffts/soft_barrier.h"
#include "models/gm/global_memory.h"
#include "systemc"

namespace pto {

// The cores' counters of one launch, summed over the cores.
struct CoreTotals {
  TimePs first_kernel_start = kNever;  // the earliest block start
  TimePs last_kernel_end = kNever;     // the latest block end
  TimePs aic_busy = 0;                 // block time summed per core type
  TimePs aiv_busy = 0;
  MixRingCounters mix;  // from each AIC lane
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

// The modelled chip: GM, `clusters` x (1 AIC + 2 AIV) cores, the AICPU's
// scheduler threads (each owning clusters round-robin) and its orchestrator.
// Core ids follow the runtime's blocked layout: AIC of cluster c is c, its
// AIVs are clusters + 2c and clusters + 2c + 1. When a launch begins it
// has each component reset its counters; when it ends it collects them into
// one LaunchCounters for the listener.
class Chip : public sc_core::sc_module,
             public RuntimeSignals,
             public SyncFabric,
             private LaunchEvents {
 public:
  Chip(sc_core::sc_module_name name, ChipContext* context, RecordSource* source,
       LaunchListener* listener);

  void WakeSchedulers(TimePs visible_at) override;
  void WakeOrchestrator() override;
  void RingDoorbell(int core, TaskSeq task, TimePs at) override;
  // SyncFabric: the FFTS hard barrier per (task, core type) and the soft
  // GM-counter barrier per (task, workspace).
  void ArriveAtSyncall(AiCore* core, TaskSeq task, const SyncallRequest& request,
                       TimePs at) override;

  const Orchestrator& orchestrator() const { return *orchestrator_; }
  const std::vector<std::unique_ptr<SchedulerThread>>& schedulers() const { return schedulers_; }
  const std::vector<std::unique_ptr<AiCore>>& cores() const { return cores_; }
  // Why the run cannot finish, when the simulation ran out of events early:
  // the runtime's queues and, for cores stuck at a syncall, the barrier's
  // report (507018-style for the FFTS barrier).
  std::string DescribeStall() const;

 private:
  // LaunchEvents, from the orchestrator.
  void OnLaunchBegin(int launch, const std::string& name) override;
  void OnLaunchEnd(int launch) override;
  void OnCheck(const trace::Check& check) override { listener_->OnCheck(check); }

  ChipContext* context_;
  LaunchListener* listener_;
  std::unique_ptr<GlobalMemory> gm_;
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
