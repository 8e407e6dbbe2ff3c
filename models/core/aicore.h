#ifndef PTO_MODELS_CORE_AICORE_H_
#define PTO_MODELS_CORE_AICORE_H_

#include <array>
#include <cstdint>
#include <vector>

#include "models/aicpu/task.h"
#include "models/chip_context.h"
#include "models/core/access_recorder.h"
#include "models/core/execution_profile.h"
#include "models/core/gm_port.h"
#include "models/core/tile_executor.h"
#include "models/gm/data_cache.h"
#include "models/gm/line_backend.h"
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

class AiCore;

// The barriers a core meets at a SYNCALL (the chip's FFTS block and soft
// counters). The core arrives at `at`; the fabric calls
// AiCore::ReleaseSyncall on every participant when the barrier releases.
class SyncFabric {
 public:
  virtual ~SyncFabric() = default;
  virtual void ArriveAtSyncall(AiCore* core, TaskSeq task, const SyncallRequest& request,
                               TimePs at) = 0;
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
  bool doorbell_sent = false;  // the scheduler rang this block's doorbell
  bool doorbell_rung = false;  // it arrived before the core took the block up
  uint32_t token = 0;          // the per-core register token (reg_task_id)
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
  void set_sync_fabric(SyncFabric* fabric) { fabric_ = fabric; }
  // The barrier the running block waits at released; it resumes at `at`.
  void ReleaseSyncall(TimePs at);
  // The task of the block waiting at a SYNCALL, or kNoTask.
  TaskSeq waiting_at_syncall() const { return at_syncall_ ? running_.task : kNoTask; }
  int id() const { return id_; }
  CoreKind core_kind() const { return kind_; }
  int cluster() const { return cluster_; }

  // The dispatch register write happens `publish_delay` from now; the core
  // sees it one propagation latency later.
  void Dispatch(const BlockWork& work, TimePs publish_delay);
  // The early-dispatch doorbell for `task`'s gated block (running or
  // pending slot), arriving `delay` from now.
  void RingDoorbell(TaskSeq task, TimePs delay);
  // When the gated task dispatched last to this idle core will be prepared
  // and waiting for its doorbell (the sync_start rendezvous waits for it).
  TimePs gated_prepared_at() const { return gated_prepared_at_; }

  // The timing of the block with `token`, once it has ended (for the
  // scheduler, which reports it when it observes the FIN).
  const CoreInterval* IntervalOf(uint32_t token) const;

 private:
  enum class EventKind : uint8_t {
    kArrive,
    kSetupDone,
    kDoorbell,
    kSyncArrive,
    kSyncResume,
    kEnd,
    kCondVisible,
    kRecordDone,  // profiled: the swimlane record is written back
  };
  struct Event {
    TimePs at;
    EventKind kind;
    uint32_t token;
    CondValue cond;
  };
  // kRecord: profiled runs write the task's swimlane record back after FIN.
  enum class Phase : uint8_t { kIdle, kSetup, kGated, kRunning, kRecord };

  // The data cache's backend: whole-line fills and write-backs (and atomic
  // adds past the cache) become b_transport calls to GlobalMemory at the
  // core's local time; their annotated delays stall the kernel.
  class TlmLineBackend : public LineBackend {
   public:
    explicit TlmLineBackend(AiCore* core) : core_(core) {}
    void ReadLine(uint64_t addr, void* dst, size_t size) override;
    void WriteLine(uint64_t addr, const void* src, size_t size) override;
    void AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) override;
    bool Contains(uint64_t addr, size_t size) const override;
    // A tile transfer: its line fills are issued together at the transfer's
    // start, and the kernel stalls once, for whatever GM takes beyond the
    // core-side time of the whole transfer.
    void BeginTransfer() override;
    void EndTransfer() override;

   private:
    void Transport(tlm::tlm_command command, uint64_t addr, void* data, size_t size,
                   DType atomic_dtype);
    // Stalls the kernel for what a read of `bytes` issued at `issued` and
    // done at `done` takes beyond its core-side time (latency + MTE rate).
    void StallForRead(TimePs issued, TimePs done, uint64_t bytes);
    AiCore* core_;
    bool in_transfer_ = false;
    TimePs transfer_start_ = 0;
    TimePs transfer_read_done_ = 0;
    uint64_t transfer_read_bytes_ = 0;
  };
  // The executor's CACHE_INVALID and FENCE: the cache, and their time.
  class Hooks : public CoreSyncHooks {
   public:
    explicit Hooks(AiCore* core) : core_(core) {}
    void CleanInvalidateAll() override;
    void CleanInvalidateLine(uint64_t addr) override;
    void Fence() override;

   private:
    AiCore* core_;
  };

  void Step();
  void Schedule(TimePs at, EventKind kind, uint32_t token = 0, CondValue cond = {});
  // `pending_pickup`: the latched task taken right after the previous FIN
  // (its setup pays core.setup_ns; an idle core's pays core.idle_setup_ns).
  void Receive(const BlockWork& work, bool pending_pickup);
  void Start();
  void End();
  // Times the executor's run that just returned: schedules the SYNCALL
  // arrival or, at the block's end, the write-backs and the FIN.
  void FinishSegment(const absl::Status& status);
  void BeginSegment();
  // When the running segment's ops end on this core: LocalPs(), or for a MIX
  // program the end of this lane's engine in the cross-core ring schedule
  // (whose busy intervals it reports). Sets `status` if the ring deadlocks.
  TimePs SegmentEnd(absl::Status* status);
  bool RunsMixPipeline() const;
  absl::StatusOr<TimePs> MixSegmentEnd();
  // At the block's end: the cache's write-backs; false while FIN must wait
  // for them (kEnd is rescheduled).
  bool WriteBackBeforeFin();
  // The core's local time inside the running segment (temporal decoupling).
  TimePs LocalPs() const;
  // The block's GM traffic goes through the cache (functional or not: a
  // timing-only run makes the same accesses with junk bytes).
  bool UsesCache() const { return running_.executes_data; }
  // The COND write happens `delay` from now; the AICPU sees it later still.
  void WriteCond(uint32_t token, bool fin, TimePs delay = 0);
  // Tells the observer (the hazard detector) of the running block's dcci,
  // fence or syncall; only the lane that executes the block's data.
  void ReportSync(RunObserver::BlockSync kind, uint64_t addr);
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
  bool delivered_before_ = false;  // a dispatch has reached this core
  TimePs gated_prepared_at_ = 0;
  bool pickup_after_record_ = false;  // profiled: take running_ at kRecordDone
  bool pickup_is_pending_ = false;    // ...and it was the latched pending task
  CoreInterval current_;
  std::array<CoreInterval, 4> recent_;  // ended intervals, by token % 4
  std::vector<Event> events_;           // few at a time: a min-heap by time
  sc_core::sc_event wake_;
  TimePs wake_at_ = kNever;
  SyncFabric* fabric_ = nullptr;
  TlmLineBackend backend_;
  DataCache cache_;
  AccessRecorder recorder_;  // reports the kernel's accesses, then the cache
  Hooks hooks_;
  // Segment timing: a block runs in segments split at SYNCALLs.
  TimePs segment_start_ = 0;
  double segment_op_base_ns_ = 0;
  size_t segment_record_base_ = 0;  // the segment's first profile record
  TimePs stall_ps_ = 0;             // GM stalls, dcci and fences in this segment
  TimePs last_write_done_ = 0;      // when the latest write-back is accepted
  TimePs last_transfer_done_ = 0;   // when the latest transaction is done
  bool at_syncall_ = false;
  bool written_back_ = false;  // the running block's end write-back is done
  // Whether GM stalls and write-back waits count in the kernel time. Not for
  // MIX blocks: their AIC moves the data of all three lanes, so its stalls
  // belong to no one engine; the lanes keep the cross-core ring's schedule.
  bool charge_gm_ = true;
  TileExecutor executor_;
  ExecutionProfile profile_;
  std::vector<BoundArg> args_;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_AICORE_H_
