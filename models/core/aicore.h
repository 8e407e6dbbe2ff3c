#ifndef PTO_MODELS_CORE_AICORE_H_
#define PTO_MODELS_CORE_AICORE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "models/aicpu/task.h"
#include "models/chip_context.h"
#include "models/core/execution_profile.h"
#include "models/core/gm_port.h"
#include "models/core/tile_executor.h"
#include "systemc"
#include "tlm"
#include "tlm_utils/simple_initiator_socket.h"

namespace pto {

enum class CoreKind : uint8_t { kAic, kAiv };

// Who polls a core: the scheduler thread that owns its cluster.
class CoreOwner {
 public:
  virtual ~CoreOwner() = default;
  // The core's FIN has become visible in its COND register.
  virtual void OnFinVisible(int core_id) = 0;
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
  TimePs dispatch = 0;
};

// An AICore (cube or vector). It receives a dispatch, pays the pickup and
// setup costs, runs the kernel on real data through its TLM socket, and
// raises FIN. One SC_METHOD walks the states; no clock.
class AiCore : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(AiCore);

  tlm_utils::simple_initiator_socket<AiCore> socket;

  AiCore(sc_core::sc_module_name name, int id, CoreKind kind, int cluster, ChipContext* context);

  void set_owner(CoreOwner* owner) { owner_ = owner; }
  int id() const { return id_; }
  CoreKind core_kind() const { return kind_; }
  int cluster() const { return cluster_; }
  bool idle() const { return state_ == State::kIdle; }

  // Latches `work`; the dispatch register write happens `publish_delay` from
  // now and the core sees it one propagation latency later.
  void Dispatch(const BlockWork& work, sc_core::sc_time publish_delay);

 private:
  enum class State { kIdle, kInFlight, kSetup, kRunning, kFinRaised };

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
  void StartKernel();
  TimePs Now() const;

  int id_;
  CoreKind kind_;
  int cluster_;
  ChipContext* context_;
  CoreOwner* owner_ = nullptr;
  State state_ = State::kIdle;
  BlockWork work_;
  CoreInterval interval_;
  bool warmed_up_ = false;
  sc_core::sc_event wake_;
  TlmGmPort port_;
  TileExecutor executor_;
  ExecutionProfile profile_;
  std::vector<BoundArg> args_;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_AICORE_H_
