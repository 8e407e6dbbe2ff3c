#ifndef PTO_MODELS_CORE_AICORE_H_
#define PTO_MODELS_CORE_AICORE_H_

#include <cstdint>
#include <deque>
#include <utility>

#include "absl/types/span.h"
#include "models/base/calendar.h"
#include "models/base/chip_config.h"
#include "models/base/ids.h"
#include "models/base/run_failure.h"
#include "models/base/time.h"
#include "models/core/core_observer.h"
#include "models/core/core_phases.h"
#include "models/core/kernel_program.h"
#include "models/core/task_port.h"
#include "models/core/tile_executor.h"
#include "models/gm/l2_model.h"
#include "models/gm/memory_image.h"
#include "models/gm/memory_service.h"
#include "systemc"
#include "tlm"
#include "tlm_utils/simple_initiator_socket.h"

namespace pto {

class AiCore;

// What an AiCore is wired to besides its socket; everything outlives it.
struct AiCoreEnv {
  const ChipConfig* config = nullptr;
  Calendar* calendar = nullptr;  // keeps the core's time
  bool functional = false;       // GM holds real bytes and kernels compute
  // By kernel id; a stream's Declare records add kernels as it runs.
  const std::deque<CompiledKernel>* kernels = nullptr;
  const MemoryImage* memory = nullptr;  // which addresses a kernel may touch
  TaskPort* tasks = nullptr;
  CoreObserver* observer = nullptr;
  RunFailure* failure = nullptr;
  // The chip's shared memory system and the L2 it keeps residency in: tile
  // transfers are timed there. Null: through the socket, as every other
  // transaction is.
  MemoryService* memory_service = nullptr;
  L2Model* l2 = nullptr;
  MixTransferBoard* mix_board = nullptr;  // the core's cluster's
};

// The barriers a core meets at a SYNCALL (the chip's FFTS block and soft
// counters). The core arrives at `at`; the fabric calls
// AiCore::ReleaseSyncall on every participant when the barrier releases.
class SyncFabric {
 public:
  virtual ~SyncFabric() = default;
  virtual void ArriveAtSyncall(AiCore* core, TaskSeq task, const SyncallRequest& request,
                               TimePs at) = 0;
};

// An AICore (cube or vector) as a SystemC module. Its decisions (the two
// dispatch slots, setup, execution, write-back, COND) are CorePhases'
// (core_phases.h); the module turns the wakes CorePhases asks for into the
// chip calendar's wakes (no clock, no process of its own), carries the data
// cache's GM transactions over its TLM socket and hands CorePhases what the
// chip wired it to: the kernels, GM's extent and the sync fabric.
class AiCore : public sc_core::sc_module,
               private CoreHost,
               private SyncallBarrier,
               private TransferSink,
               private Calendar::Client {
 public:
  SC_HAS_PROCESS(AiCore);

  tlm_utils::simple_initiator_socket<AiCore> socket;

  AiCore(sc_core::sc_module_name name, int id, CoreKind kind, int cluster, const AiCoreEnv& env);

  void set_owner(CoreOwner* owner) { phases_.set_owner(owner); }
  void set_sync_fabric(SyncFabric* fabric);
  // The barrier the running block waits at released; it resumes at `at`.
  void ReleaseSyncall(TimePs at) { phases_.ReleaseSyncall(Now(), at); }
  // The task of the block waiting at a SYNCALL, or kNoTask.
  TaskSeq waiting_at_syncall() const { return phases_.waiting_at_syncall(); }
  int id() const { return phases_.id(); }
  CoreKind core_kind() const { return phases_.kind(); }
  int cluster() const { return phases_.cluster(); }

  // The dispatch register write happens `publish_delay` from now; the core
  // sees it one propagation latency later.
  void Dispatch(const BlockWork& work, TimePs publish_delay) {
    phases_.Dispatch(Now(), work, publish_delay);
  }
  // The early-dispatch doorbell for `task`'s gated block (running or
  // pending slot), arriving `delay` from now.
  void RingDoorbell(TaskSeq task, TimePs delay) { phases_.RingDoorbell(Now(), task, delay); }
  // When the gated task dispatched last to this idle core will be prepared
  // and waiting for its doorbell (the sync_start rendezvous waits for it).
  TimePs gated_prepared_at() const { return phases_.gated_prepared_at(); }

  // The timing of the block with `token`, once it has ended (for the
  // scheduler, which reports it when it observes the FIN).
  const CoreInterval* IntervalOf(uint32_t token) const { return phases_.IntervalOf(token); }

  // This launch's counters, reset by BeginLaunch.
  const CoreCounters& counters() const { return phases_.counters(); }
  void BeginLaunch() { phases_.BeginLaunch(); }

  // The core's state, for tests.
  const CorePhases& phases() const { return phases_; }

 private:
  // CoreHost.
  void WakeAt(TimePs at) override { calendar_.WakeAt(wake_, at); }
  const CompiledKernel& Kernel(int32_t id) const override { return (*kernels_)[id]; }
  GmCompletion Transport(const GmTransaction& transaction) override;
  bool Contains(uint64_t addr, size_t size) const override;
  bool times_transfers() const override { return memory_service_ != nullptr; }
  uint64_t StartTransfer(const GmRuns& runs, GmDirection direction) override;
  uint64_t StartUnplacedTransfer(uint64_t bytes, GmDirection direction) override;
  // TransferSink.
  void OnTransferDone(MemorySystem::TransferId transfer, TimePs done) override {
    phases_.OnTransferDone(transfer, done);
  }
  // SyncallBarrier: the chip's fabric.
  void Arrive(TaskSeq task, const SyncallRequest& request, TimePs at) override {
    fabric_->ArriveAtSyncall(this, task, request, at);
  }

  // Calendar::Client.
  void OnWake(TimePs now) override { phases_.Advance(now); }
  TimePs Now() const { return calendar_.now(); }

  const std::deque<CompiledKernel>* kernels_;
  const MemoryImage* memory_;
  SyncFabric* fabric_ = nullptr;
  MemoryService* memory_service_;
  L2Model* l2_;
  const GmParams& gm_params_;
  MemorySystem::RequesterId requester_ = -1;
  Calendar& calendar_;
  Calendar::ClientId wake_;
  CorePhases phases_;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_AICORE_H_
