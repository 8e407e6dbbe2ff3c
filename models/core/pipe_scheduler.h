#ifndef PTO_MODELS_CORE_PIPE_SCHEDULER_H_
#define PTO_MODELS_CORE_PIPE_SCHEDULER_H_

// One block's ops on its core's pipes, as a plain class (no SystemC).
//
// An Ascend AI Core runs one in-order instruction queue per pipe and orders
// the queues with set_flag / wait_flag: the AIC has MTE2 (GM -> L1), MTE1
// (L1 -> L0A/L0B), CUBE, FIXPIPE (L0C -> GM/L1) and SCALAR; the AIV has MTE2
// (GM -> UB), VECTOR, MTE3 (UB -> GM) and SCALAR. Instructions of one
// queue run in order, queues run in parallel, and SetFlag/WaitFlag and
// PipeBarrier order them (CANN Ascend C operator development guide, "control
// unit", atlas_ascendc_10_0011; the lanes of PyPTO's L0 trace,
// hw-native-sys/pypto@e2d0f78a docs/en/user/performance/04-incore.md).
// The scheduler takes a block's ops in program order and starts each when
//   - its pipe's queue reaches it and the pipe has a free slot (one op at a
//     time, or up to `in_flight` outstanding transfers on a DMA pipe),
//   - the ops that wrote the buffers it reads have ended (RAW, the forward
//     flag),
//   - for each buffer it writes, the ops that read the buffer's previous
//     value and the op that wrote it have ended (WAR / WAW, the backward
//     flag),
//     where only ops of other pipes count: two instructions of one queue are
//     ordered by the queue (no flag between them, and a DMA queue lands its
//     transfers in issue order), so DataCopies back to back into one buffer
//     stream at the queue's depth rather than one at a time (Huawei's
//     DataCopy best practice, mirror-cann/asc-devkit@82b89a15
//     examples/01_simd_cpp_api/05_best_practices/04_memory_access/data_copy:
//     48 cores copying 128 B at a time into one UB buffer each still move
//     0.55 TB/s),
//   - every earlier op whose GM bytes overlap its own, one of the two
//     writing, has ended (the block's GM accesses keep program order), and
//   - no earlier barrier is still pending; a barrier itself waits for every
//     earlier op.
// Compute ops end after their duration; transfers and external barriers end
// when the caller says (the memory system decides). Times are picoseconds;
// ties resolve in a fixed order, so schedules are deterministic.
//
//   PipeScheduler pipes(limits);
//   PipeOpSpec load;  // a tile load into buffer 0, timed by the memory system
//   load.pipe = Pipe::kMte2;
//   load.external = true;
//   load.writes = {0};
//   const uint32_t id = pipes.Add(load);
//   ...                  // the ops that read buffer 0, and the rest
//   pipes.Start(now);
//   pipes.TakeStarted(&started);  // issue these transfers now
//   pipes.Complete(id, landed);   // then TakeStarted again
//   pipes.RunUntil(pipes.next_internal_at());  // compute ops' ends

#include <array>
#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "models/base/time.h"
#include "models/gm/gm_request.h"

namespace pto {

enum class Pipe : uint8_t { kScalar, kMte2, kMte1, kCube, kFixpipe, kVector, kMte3 };
inline constexpr int kPipeCount = 7;
absl::string_view PipeName(Pipe pipe);  // "scalar", "mte2", ...

// How many ops each pipe runs at once: 1 for a compute pipe; a DMA pipe's
// outstanding transfers.
struct PipeLimits {
  std::array<int, kPipeCount> in_flight{1, 1, 1, 1, 1, 1, 1};
};

struct PipeOpSpec {
  Pipe pipe = Pipe::kScalar;
  // A compute op: how long it holds its pipe. Ignored when external.
  TimePs duration = 0;
  // Ends when the caller says (Complete): a transfer, or a barrier whose
  // work (a fence's write-backs) the caller times.
  bool external = false;
  // Waits for every earlier op; every later op waits for it.
  bool barrier = false;
  // Every later op waits for it (a scalar load whose value the next
  // instructions need); it waits only for what its own operands need.
  bool stalls_issue = false;
  // Buffer ids (the caller's: one per on-chip allocation).
  std::vector<uint32_t> reads;
  std::vector<uint32_t> writes;
  // The GM bytes it moves, if any, and whether it writes them.
  bool touches_gm = false;
  GmRuns gm;
  bool gm_write = false;
};

struct PipeOpTiming {
  TimePs start = kNever;
  TimePs end = kNever;
};

class PipeScheduler {
 public:
  explicit PipeScheduler(const PipeLimits& limits = PipeLimits{});

  // Forgets every op; keeps the storage.
  void Clear();
  // Adds the next op in program order; returns its id (0, 1, ...). Only
  // before Start.
  uint32_t Add(const PipeOpSpec& op);
  // The block begins at `now`: every op that can start then starts.
  void Start(TimePs now);
  // Ends every compute op due at or before `now` and starts what that
  // frees, in time order.
  void RunUntil(TimePs now);
  // External op `op` (started) ended at `at` (not before the last time the
  // scheduler saw): runs until `at`, then starts what its end frees.
  void Complete(uint32_t op, TimePs at);
  // The external ops started since the last call, in the order they
  // started (their start times in timing()), into `out` (cleared first).
  void TakeStarted(std::vector<uint32_t>* out);

  // When the next compute op ends; kNever when none is running.
  TimePs next_internal_at() const;
  bool finished() const { return completed_ == ops_.size(); }
  // The last op's end (Start's time for an empty block), once finished.
  TimePs end_time() const { return end_time_; }
  size_t size() const { return ops_.size(); }
  const PipeOpTiming& timing(uint32_t op) const { return ops_[op].timing; }
  Pipe pipe_of(uint32_t op) const { return ops_[op].pipe; }
  // A compute op's time; an external op's least time (its caller's).
  TimePs duration(uint32_t op) const { return ops_[op].duration; }
  // An op that touches GM (PipeOpSpec::touches_gm): its bytes and whether it
  // writes them.
  const GmRuns& gm_runs(uint32_t op) const {
    return gm_ops_[static_cast<size_t>(ops_[op].gm)].runs;
  }
  bool gm_write(uint32_t op) const { return gm_ops_[static_cast<size_t>(ops_[op].gm)].write; }
  // Time each pipe had at least one op running, so far.
  TimePs busy(Pipe pipe) const { return pipes_[static_cast<int>(pipe)].busy; }

 private:
  enum class State : uint8_t { kWaiting, kRunning, kDone };
  struct Op {
    Pipe pipe;
    bool external;
    bool barrier;
    bool blocks_later;  // a barrier or a stalls_issue op: later ops wait for it
    State state;
    TimePs duration;
    PipeOpTiming timing;
    uint32_t preds_begin;  // into preds_
    uint32_t preds_end;
    uint32_t preds_done;  // preds_[preds_begin, preds_done) have ended
    int32_t gm = -1;      // index into gm_ops_
  };
  struct GmOp {
    uint32_t op;
    GmRuns runs;
    bool write;
  };
  struct PipeState {
    std::vector<uint32_t> queue;  // its ops in program order
    size_t head = 0;              // the next to start
    int running = 0;
    TimePs busy_since = 0;
    TimePs busy = 0;
  };
  struct BufferState {
    int64_t writer = -1;            // the op that wrote its current value
    std::vector<uint32_t> readers;  // ops that read it since
    bool touched = false;
  };

  // Most heads looked at wait for the predecessor they waited for last time:
  // a check that spares CanStart's call.
  bool WaitsForItsNextPred(uint32_t id) const {
    const Op& op = ops_[id];
    return op.preds_done < op.preds_end && ops_[preds_[op.preds_done]].state != State::kDone;
  }
  bool CanStart(uint32_t id);
  void StartOp(uint32_t id);
  void Finish(uint32_t id, TimePs at);
  void DropEndedGmOp();
  // Starts queue heads at now_ until none can.
  void StartReady();
  // Room for buffer ids up to `buffer`; then Touch notes one for Clear.
  void Reserve(uint32_t buffer);
  BufferState& Touch(uint32_t buffer);

  PipeLimits limits_;
  TimePs now_ = 0;
  TimePs end_time_ = kNever;
  bool started_ = false;
  size_t completed_ = 0;
  std::vector<Op> ops_;
  std::vector<uint32_t> preds_;
  std::vector<GmOp> gm_ops_;
  // GM ops in program order from the head index: the ones a later GM op may
  // wait for, and up to as many that ended out of order (DropEndedGmOp).
  // Erasing each as it ended was quadratic in a block's op count.
  std::vector<uint32_t> gm_pending_;
  size_t gm_pending_head_ = 0;
  size_t gm_pending_ended_ = 0;             // ended entries at or after the head
  std::vector<uint32_t> barriers_pending_;  // ascending, from the head index
  size_t barriers_pending_head_ = 0;
  std::array<PipeState, kPipeCount> pipes_;
  std::vector<BufferState> buffers_;
  std::vector<uint32_t> touched_buffers_;
  // Compute ops running, by end time then id (a small min-heap).
  std::vector<std::pair<TimePs, uint32_t>> running_compute_;
  std::vector<uint32_t> started_external_;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_PIPE_SCHEDULER_H_
