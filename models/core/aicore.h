#ifndef PTO_MODELS_CORE_AICORE_H_
#define PTO_MODELS_CORE_AICORE_H_

#include <array>
#include <cstdint>
#include <vector>

#include "models/aicpu/task.h"
#include "models/chip_context.h"
#include "models/core/execution_profile.h"
#include "models/core/gm_port.h"
#include "models/core/tile_executor.h"
#include "models/run_observer.h"
#include "systemc"
#include "tlm"
#include "tlm_utils/simple_initiator_socket.h"

namespace pto {

enum class CoreKind : uint8_t { kAic, kAiv };

// The AICore -> AICPU COND register: the token of the last task the core
// acknowledged (ACK, it started) or finished (FIN). It holds only the latest
// value, so a slow poll can miss a FIN and infer it from the next ACK.
struct CondValue {
  uint32_t token = 0;  // 0 = nothing yet
  bool fin = false;
};

// Who polls a core: the scheduler thread that owns its cluster.
class CoreOwner {
 public:
  virtual ~CoreOwner() = default;
  // A new COND value became visible to the AICPU.
  virtual void OnCondVisible(int core_id, CondValue value) = 0;
};

// One block of a task, as dispatched to one core.
struct BlockWork {
  TaskSeq task = kNoTask;
  int64_t block = 0;
  int64_t block_num = 1;
  int32_t kernel = -1;
  int64_t subblock = 0;  // AIV lane within a MIX cluster
  // MIX: the cluster's AIC executes the block's data movement and math; the
  // AIVs only keep time, so the data is written once.
  bool executes_data = true;
  // Early dispatch: the core prepares, then waits for the doorbell.
  bool gated = false;
  uint32_t token = 0;  // the per-core register token (reg_task_id)
  int32_t thread = -1;
  TimePs dispatch = 0;
};

// An AICore (cube or vector) with the runtime's two dispatch slots: the
// running task and one latched pending task, picked up right after the
// running task's FIN. It pays pickup and setup, runs the kernel on real data
// through its TLM socket and raises ACK/FIN in COND. One SC_METHOD serves a
// handful of timed events; no clock.
class AiCore : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(AiCore);

  tlm_utils::simple_initiator_socket<AiCore> socket;

  AiCore(sc_core::sc_module_name name, int id, CoreKind kind, int cluster, ChipContext* context);

  void set_owner(CoreOwner* owner) { owner_ = owner; }
  int id() const { return id_; }
  CoreKind core_kind() const { return kind_; }
  int cluster() const { return cluster_; }

  // The dispatch register write happens `publish_delay` from now; the core
  // sees it one propagation latency later.
  void Dispatch(const BlockWork& work, TimePs publish_delay);
  // The early-dispatch doorbell for the gated task, rung `delay` from now.
  void RingDoorbell(TimePs delay);

  // The timing of the block with `token`, once it has ended (for the
  // scheduler, which reports it when it observes the FIN).
  const CoreInterval* IntervalOf(uint32_t token) const;

 private:
  enum class EventKind : uint8_t { kArrive, kSetupDone, kDoorbell, kEnd, kCondVisible };
  struct Event {
    TimePs at;
    EventKind kind;
    uint32_t token;
    CondValue cond;
  };
  enum class Phase : uint8_t { kIdle, kSetup, kGated, kRunning };

  // GmPort over the TLM socket: the executor's reads and writes become
  // b_transport calls to GlobalMemory.
  class TlmGmPort : public GmPort {
   public:
    explicit TlmGmPort(AiCore* core) : core_(core) {}
    void Read(uint64_t addr, void* dst, size_t size) override;
    void Write(uint64_t addr, const void* src, size_t size) override;
    void AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) override;

   private:
    void Transport(tlm::tlm_command command, uint64_t addr, void* data, size_t size,
                   DType atomic_dtype);
    AiCore* core_;
  };

  void Step();
  void Schedule(TimePs at, EventKind kind, uint32_t token = 0, CondValue cond = {});
  void Receive(const BlockWork& work);
  void Start();
  void End();
  void WriteCond(uint32_t token, bool fin);
  TimePs Now() const;

  int id_;
  CoreKind kind_;
  int cluster_;
  ChipContext* context_;
  CoreOwner* owner_ = nullptr;
  Phase phase_ = Phase::kIdle;
  BlockWork running_;
  BlockWork pending_;
  bool has_pending_ = false;
  bool running_assigned_ = false;  // running_ holds work (arrived or in flight)
  bool pending_arrived_ = false;
  bool doorbell_rung_ = false;  // arrived before the core was ready for it
  bool warmed_up_ = false;
  CoreInterval current_;
  std::array<CoreInterval, 4> recent_;  // ended intervals, by token % 4
  std::vector<Event> events_;           // few at a time: a min-heap by time
  sc_core::sc_event wake_;
  TimePs wake_at_ = kNever;
  TlmGmPort port_;
  TileExecutor executor_;
  ExecutionProfile profile_;
  std::vector<BoundArg> args_;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_AICORE_H_
