#ifndef PTO_MODELS_CORE_CORE_PHASES_H_
#define PTO_MODELS_CORE_CORE_PHASES_H_

// One AICore's life as a plain class (no SystemC): the runtime's two dispatch
// slots, pickup and setup, gated early-dispatched blocks and their doorbells,
// the kernel's execution (TileExecutor, the MIX ring schedule; tile
// transfers issued one by one at their own time to the host's shared memory
// system, a cost-summary kernel's bytes phase by phase beside its compute,
// other GM stalls through the data cache), SYNCALL waits, the
// write-back before FIN, and
// ACK/FIN in COND. The SystemC AiCore (aicore.h) only turns the wakes it asks
// for (CoreHost::WakeAt) into sc_event notifications and carries its GM
// transactions over TLM; tests drive it directly:
//
//   CorePhases core(/*id=*/0, CoreKind::kAiv, /*cluster=*/0, deps);
//   core.Dispatch(/*now=*/0, work, publish_delay);
//   for (TimePs t = core.next_event_at(); t != kNever; t = core.next_event_at()) {
//     core.Advance(t);
//   }

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "models/base/chip_config.h"
#include "models/base/ids.h"
#include "models/base/run_failure.h"
#include "models/base/time.h"
#include "models/core/access_recorder.h"
#include "models/core/block_pipes.h"
#include "models/core/core_observer.h"
#include "models/core/execution_profile.h"
#include "models/core/kernel_program.h"
#include "models/core/mix_lane_transfers.h"
#include "models/core/mix_pipeline.h"
#include "models/core/mix_transfer_board.h"
#include "models/core/pipe_scheduler.h"
#include "models/core/summary_traffic.h"
#include "models/core/task_port.h"
#include "models/core/tile_executor.h"
#include "models/gm/data_cache.h"
#include "models/gm/gm_request.h"
#include "models/gm/line_backend.h"

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
  // The core wrote a new COND value; the AICPU sees it from `visible_at` on
  // (the write plus the register's propagation, aicpu.fin_to_visible_ns).
  // Told at the write, so the value's visibility costs the core no event.
  virtual void OnCondWritten(int core_id, CondValue value, TimePs visible_at) = 0;
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

// A whole-line transaction of a core's data cache (a fill, a write-back or an
// atomic add past the cache), as the core's socket carries it: times are
// offsets from now, as TLM-2.0's loosely timed delays are.
struct GmTransaction {
  bool write = false;
  uint64_t addr = 0;
  void* data = nullptr;
  size_t size = 0;
  DType atomic_dtype = trace::DTYPE_UNSPECIFIED;  // set: an atomic add (a write)
  TimePs delay = 0;  // issued at now + delay: the core's local time (>= 0)
  // The bytes only: the transfer is timed as a whole (CoreHost::StartTransfer).
  bool untimed = false;
};

struct GmCompletion {
  TimePs delay = 0;  // done at now + delay (read: last byte delivered; write: accepted)
  bool ok = true;    // false: the transaction hit no tensor
};

// What a core reaches that belongs to the chip: its clock, the kernel table
// and GM. The SystemC AiCore implements it over an sc_event, the chip's
// kernels and its TLM socket; tests with fixed delays.
class CoreHost {
 public:
  virtual ~CoreHost() = default;
  // The core must be advanced (CorePhases::Advance) at `at`, not before now.
  // Asked when an event is scheduled earlier than the wake asked last (or
  // with none pending), and at the end of each Advance for the next event;
  // the earliest wake asked for counts, as for a timed sc_event.
  virtual void WakeAt(TimePs at) = 0;
  virtual const CompiledKernel& Kernel(int32_t id) const = 0;
  virtual GmCompletion Transport(const GmTransaction& transaction) = 0;
  // Whether the host times tile transfers on the chip's shared memory system
  // (StartTransfer); if not, the core times them through Transport.
  virtual bool times_transfers() const { return false; }
  // Starts a tile transfer of `runs` now; the host calls
  // CorePhases::OnTransferDone with the returned id when it lands.
  virtual uint64_t StartTransfer(const GmRuns& runs, GmDirection direction) {
    (void)runs;
    (void)direction;
    return 0;
  }
  // As StartTransfer, for `bytes` (> 0) no tensor places: reads come from
  // HBM, writes go through L2 on to HBM.
  virtual uint64_t StartUnplacedTransfer(uint64_t bytes, GmDirection direction) {
    (void)bytes;
    (void)direction;
    return 0;
  }
  // Whether a kernel may touch [addr, addr + size) (LineBackend::Contains).
  virtual bool Contains(uint64_t addr, size_t size) const = 0;
};

// The barrier a core's block meets at a SYNCALL. The core arrives at `at`;
// the barrier calls CorePhases::ReleaseSyncall when it releases.
class SyncallBarrier {
 public:
  virtual ~SyncallBarrier() = default;
  virtual void Arrive(TaskSeq task, const SyncallRequest& request, TimePs at) = 0;
};

// MIX blocks' cross-core ring, counted on the AIC lane that runs the cube.
struct MixRingCounters {
  uint64_t blocks = 0;
  uint64_t pushes = 0;
  TimePs cube_busy = 0;
  TimePs vector_busy = 0;
  TimePs overlap = 0;    // both engines busy at once
  TimePs slot_wait = 0;  // producers waiting for a free slot
  TimePs data_wait = 0;  // consumers waiting for a pushed tile
  MixRingCounters& operator+=(const MixRingCounters& other);
};

// A fixed-time cost-summary kernel whose bytes could not move in its fixed
// time under shared GM, so one of its blocks stretched from `fixed` to
// `took` (the worst block of the launch).
struct SummaryStretch {
  uint32_t kernel = 0;
  TimePs fixed = 0;
  TimePs took = 0;
};
// Keeps, per kernel, the block that stretched the most.
void NoteStretch(const SummaryStretch& stretch, std::vector<SummaryStretch>* worst);

// One core's counters of the current launch; the chip sums them over cores
// when the launch ends.
struct CoreCounters {
  TimePs first_kernel_start = kNever;  // its first block's start
  TimePs last_kernel_end = kNever;     // its latest block's end
  TimePs busy = 0;                     // start to end, summed over blocks
  TimePs gm_stall = 0;                 // blocks waiting on GM beyond their ops' own time
  MixRingCounters mix;
  std::vector<SummaryStretch> stretched;
};

// Everything a core's logic reads or updates besides its own state. All
// pointers must outlive the core.
struct CoreDeps {
  const ChipConfig* config = nullptr;
  bool functional = false;    // GM holds real bytes and kernels compute
  TaskPort* tasks = nullptr;  // a running block's task: its args and times
  CoreObserver* observer = nullptr;
  // Where the core's failures go; once one is set, the core handles no events.
  RunFailure* failure = nullptr;
  CoreHost* host = nullptr;
  // The core's cluster's: where a MIX block's lanes meet to time its
  // transfers on the host's shared memory system. Null: MIX blocks keep
  // first-order GM time.
  MixTransferBoard* mix_board = nullptr;
  // A timing-only run's control values (pl.read): null in tests.
  const ScalarMemory* scalars = nullptr;
};

// A core (cube or vector) with the runtime's two dispatch slots: the running
// block and one latched pending block, picked up right after the running
// block's FIN. Time is in picoseconds and comes in with every input; the core
// asks its host to be woken (CoreHost::WakeAt) for the events it schedules,
// at the moment it schedules them, so its wake and what it reports (COND,
// syncall arrivals) reach the simulation kernel in the order they happen. An
// input may arrive while Advance runs (a barrier released by this core's own
// arrival).
class CorePhases : private MixTransferBoard::Lane {
 public:
  // kRecord: profiled runs write the task's swimlane record back after FIN.
  enum class Phase : uint8_t { kIdle, kSetup, kGated, kRunning, kRecord };

  CorePhases(int id, CoreKind kind, int cluster, const CoreDeps& deps);
  CorePhases(const CorePhases&) = delete;
  CorePhases& operator=(const CorePhases&) = delete;

  void set_owner(CoreOwner* owner) { owner_ = owner; }
  // Null: a block that reaches a SYNCALL fails the run.
  void set_barrier(SyncallBarrier* barrier) { barrier_ = barrier; }

  // The dispatch register write happens `publish_delay` after `now`; the core
  // sees it one propagation latency later (longer for its first dispatch).
  // The block takes the running slot when it is free, else the pending one.
  void Dispatch(TimePs now, const BlockWork& work, TimePs publish_delay);
  // The early-dispatch doorbell for `task`'s gated block (running or pending
  // slot), arriving `delay` after `now` plus the propagation latency.
  void RingDoorbell(TimePs now, TaskSeq task, TimePs delay);
  // The barrier the running block waits at released; it resumes at `at` (not
  // before `now`).
  void ReleaseSyncall(TimePs now, TimePs at);
  // A transfer started through CoreHost::StartTransfer is done at `done`.
  void OnTransferDone(uint64_t transfer, TimePs done);
  // Handles every event due at or before `now`, in time order (none once the
  // run failed), then asks to be woken for the next one.
  void Advance(TimePs now);
  // When the earliest scheduled event is due; kNever when there is none.
  TimePs next_event_at() const { return events_.empty() ? kNever : events_.front().at; }

  int id() const { return id_; }
  CoreKind kind() const { return kind_; }
  int cluster() const { return cluster_; }
  // An idle core's block is taken up when its setup ends (its arrival is
  // recorded, CoreInterval::receive): until then the phase reads kIdle.
  Phase phase() const { return phase_; }
  // Whether a block is latched behind the running one.
  bool has_pending() const { return has_pending_; }
  // The task of the block waiting at a SYNCALL, or kNoTask.
  TaskSeq waiting_at_syncall() const { return at_syncall_ ? running_.task : kNoTask; }
  // When the gated block dispatched last to this idle core will be prepared
  // and waiting for its doorbell (the sync_start rendezvous waits for it).
  TimePs gated_prepared_at() const { return gated_prepared_at_; }
  // The block taken up last: its receive and start times; its end once it
  // ended.
  const CoreInterval& current() const { return current_; }
  // The timing of the block with `token`, once it has ended (for the
  // scheduler, which reports it when it observes the FIN).
  const CoreInterval* IntervalOf(uint32_t token) const;

  // This launch's counters; BeginLaunch resets them (the chip calls it when
  // a launch begins).
  const CoreCounters& counters() const { return counters_; }
  void BeginLaunch() { counters_ = CoreCounters{}; }

 private:
  enum class EventKind : uint8_t {
    kArrive,
    kSetupDone,
    kDoorbell,
    kSyncArrive,
    kSyncAdded,  // flow timing: the soft syncall's counter add landed
    kSyncResume,
    kEnd,
    kRecordDone,      // profiled: the swimlane record is written back
    kPipeStart,       // pipe timing: the segment's ops start (after the prologue)
    kPipeTick,        // pipe timing: a compute op ends
    kPipeDone,        // pipe timing: transfer (the token: its op) landed
    kSummaryPhase,    // a cost summary's phase (the token) starts; past the last, it ends
    kMixIssue,        // MIX flow timing: this lane's next transfer is due
    kMixStep,         // MIX flow timing: a transfer of this lane's landed
    kSummaryBarrier,  // a MIX cost summary's lane ended a phase: it meets the others
  };
  struct Event {
    TimePs at;
    EventKind kind;
    uint32_t token;
  };

  // The data cache's backend: whole-line fills and write-backs (and atomic
  // adds past the cache) become host transactions at the core's local time;
  // their completion times stall the kernel.
  class GmBackend : public LineBackend {
   public:
    explicit GmBackend(CorePhases* core) : core_(core) {}
    void ReadLine(uint64_t addr, void* dst, size_t size) override;
    void WriteLine(uint64_t addr, const void* src, size_t size) override;
    void AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) override;
    bool Contains(uint64_t addr, size_t size) const override;
    // A tile transfer: its line fills are issued together at the transfer's
    // start, and the kernel stalls once, for whatever GM takes beyond the
    // core-side time of the whole transfer.
    void BeginTransfer() override;
    void EndTransfer() override;
    // Stalls the kernel for what a read of `bytes` issued at `issued` and
    // done at `done` takes beyond its core-side time (latency + MTE rate).
    void StallForRead(TimePs issued, TimePs done, uint64_t bytes);

   private:
    void Transport(bool write, uint64_t addr, void* data, size_t size, DType atomic_dtype);
    // Out of line: keeps the message's temporaries off Transport's hot path.
    ABSL_ATTRIBUTE_NOINLINE void FailAccess(bool write, uint64_t addr, size_t size);
    CorePhases* core_;
    bool in_transfer_ = false;
    TimePs transfer_start_ = 0;
    TimePs transfer_read_done_ = 0;
    uint64_t transfer_read_bytes_ = 0;
  };
  // The executor's CACHE_INVALID and FENCE: the cache, and their time.
  class Hooks : public CoreSyncHooks {
   public:
    explicit Hooks(CorePhases* core) : core_(core) {}
    void CleanInvalidateAll() override;
    void CleanInvalidateLine(uint64_t addr) override;
    void Fence() override;

   private:
    CorePhases* core_;
  };

  void Schedule(TimePs at, EventKind kind, uint32_t token = 0);
  // `pending_pickup`: the latched block taken right after the previous FIN
  // (its setup pays core.setup_ns; an idle core's pays core.idle_setup_ns).
  void Receive(const BlockWork& work, bool pending_pickup);
  // The setup a block takes from its pickup to its start.
  TimePs SetupOf(const BlockWork& work, bool pending_pickup) const;
  // Takes `work` up, received at `at`: the setup phase begins.
  void BeginReceive(const BlockWork& work, TimePs at);
  void Start();
  void End();
  // Times the executor's run that just returned: schedules the SYNCALL
  // arrival or, at the block's end, the write-backs and the FIN.
  void FinishSegment(const absl::Status& status);
  // After the executor returned: with flow timing, issue the transfer it
  // stopped at (once the load before it landed) or end the segment.
  void Continue(const absl::Status& status);
  // Pipe timing: the segment has run at once; its ops go onto the core's
  // pipes (PipeScheduler), their transfers to the host as they start.
  void RunOnPipes(const absl::Status& executed);
  void StartPipes();
  // After the scheduler moved: issue what started, wake for the next
  // compute op's end, or end the segment.
  void AfterPipes();
  // Tells the observer of the finished segment's ops (when it wants them).
  void ReportPipeOps();
  // A cost summary's phase `phase` starts now: its share of the bytes goes
  // out as transfers; it ends at the later of its compute and their landing.
  void StartSummaryPhase(int64_t phase);
  void IssueSummaryBytes(const std::vector<GmSpan>& spans, uint64_t total,
                         const SummaryShare& share, GmDirection direction);
  void EndSummaryPhase();
  // MIX flow timing. The segment runs at once; this lane notes the
  // transfers of its own engine's ops and issues them as MixLaneTransfers
  // plans. When all landed it posts their durations to the cluster's board,
  // and the ring is scheduled again with every lane's.
  void NoteMixTransfer();
  MixRingParams MixRing() const;
  void BeginMixTiming();
  void IssueMixTransfer();
  void MixStep();
  void OnMixTransfersTimed(TimePs now, absl::Span<const double> durations_ns) override;
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
  // The COND write happens `delay` from now; the AICPU sees it later still
  // (the owner is told now).
  void WriteCond(uint32_t token, bool fin, TimePs delay = 0);
  // Tells the observer (the hazard detector) of the running block's dcci,
  // fence or syncall; only the lane that executes the block's data.
  void ReportSync(CoreObserver::BlockSync kind, uint64_t addr);

  int id_;
  CoreKind kind_;
  int cluster_;
  CoreDeps deps_;
  const ChipConfig& config_;
  CoreCounters counters_;
  CoreOwner* owner_ = nullptr;
  SyncallBarrier* barrier_ = nullptr;
  TimePs now_ = 0;  // the time of the input being handled
  Phase phase_ = Phase::kIdle;
  BlockWork running_;
  BlockWork pending_;
  bool has_pending_ = false;
  bool running_assigned_ = false;  // running_ holds work (arrived or in flight)
  bool pending_arrived_ = false;
  bool doorbell_rung_ = false;  // arrived before the core was ready for it
  bool warmed_up_ = false;
  bool delivered_before_ = false;  // a dispatch has reached this core
  // An idle core's block arriving then: taken up when its setup ends (one
  // event for both).
  TimePs deferred_receive_at_ = kNever;
  TimePs gated_prepared_at_ = 0;
  bool pickup_after_record_ = false;  // profiled: take running_ at kRecordDone
  bool pickup_is_pending_ = false;    // ...and it was the latched pending block
  CoreInterval current_;
  std::array<CoreInterval, 4> recent_;  // ended intervals, by token % 4
  std::vector<Event> events_;           // few at a time: a min-heap by time
  TimePs wake_at_ = kNever;             // the wake asked for last, while pending
  GmBackend backend_;
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
  bool syncall_add_pending_ = false;
  uint64_t syncall_add_ = 0;
  bool written_back_ = false;  // the running block's end write-back is done
  // Whether GM stalls and write-back waits count in the kernel time. Not for
  // MIX blocks: their AIC moves the data of all three lanes, so its stalls
  // belong to no one engine; the lanes keep the cross-core ring's schedule.
  bool charge_gm_ = true;
  // Flow timing (the host times transfers on shared bandwidth) of an op
  // program: the segment runs at once, then its ops run on the core's pipes
  // (pipe timing), each transfer issued when its pipe starts it.
  bool flow_timing_ = false;
  PipeScheduler pipes_;
  BlockPipes block_pipes_;
  bool pipes_active_ = false;           // the segment's ops are on the pipes
  TimePs pipe_wake_at_ = kNever;        // the compute end a kPipeTick is due for
  std::vector<uint32_t> pipe_record_;   // per pipe op: its record's index
  std::vector<GmRuns> pipe_stop_runs_;  // scratch: per executor stop
  std::vector<std::pair<uint64_t, uint32_t>> pipe_transfers_;  // host id, op
  std::vector<uint32_t> pipe_started_;                         // scratch
  std::vector<PipeOpInterval> pipe_ops_;                       // scratch: ReportPipeOps
  // A cost summary whose bytes the host times: its phases run as events.
  bool summary_flows_ = false;
  int64_t summary_phase_ = 0;
  TimePs summary_compute_end_ = 0;  // the running phase's compute ends
  TimePs summary_landed_ = 0;       // ... and its latest transfer landed
  int summary_outstanding_ = 0;
  TimePs summary_stretch_ = 0;       // the block's phases past their compute
  bool summary_at_barrier_ = false;  // a MIX lane waiting for the others' phase end
  std::vector<GmSpan> summary_reads_;
  std::vector<GmSpan> summary_writes_;
  std::vector<GmRuns> summary_runs_;  // scratch
  // MIX flow timing (see NoteMixTransfer).
  bool mix_flow_ = false;
  bool mix_timed_ = false;  // the segment's durations came back from the board
  int32_t mix_segment_ = 0;
  MixLaneTransfers mix_lane_;
  std::vector<double> mix_durations_;  // every lane's, per segment record (ns), -1: none
  double mix_planned_lane_end_ = 0;    // this lane's engine's end in the first schedule
  std::vector<OpRecord> mix_records_;  // scratch: the records with measured costs
  bool mix_issue_scheduled_ = false;
  uint64_t mix_load_id_ = 0;
  TimePs mix_load_done_ = kNever;  // landed, not yet handled
  bool mix_posted_ = false;
  const CompiledKernel* kernel_ = nullptr;  // the running block's
  TileExecutor executor_;
  ExecutionProfile profile_;
  std::vector<BoundArg> args_;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_CORE_PHASES_H_
