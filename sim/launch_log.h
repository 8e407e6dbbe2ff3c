#ifndef PTO_SIM_LAUNCH_LOG_H_
#define PTO_SIM_LAUNCH_LOG_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "models/aicpu/dep_inference.h"
#include "models/aicpu/task.h"
#include "models/run_observer.h"

namespace pto {

// The chip facts the writers need, filled by the driver from the ChipConfig
// (this library does not depend on the config loader).
struct OutputChip {
  int clusters = 24;          // chip.clusters: 1 AIC + 2 AIV each
  int scheduler_threads = 3;  // aicpu.scheduler_threads
  double counter_hz = 50e6;   // chip.counter_hz: the swimlane cycle clock
  int aic_count() const { return clusters; }
  int aiv_count() const { return 2 * clusters; }
  int core_count() const { return 3 * clusters; }
  // The runtime's blocked core ids: AICs 0..C-1, then AIV pairs.
  bool is_aic(int core) const { return core < clusters; }
  int cluster_of(int core) const { return is_aic(core) ? core : (core - clusters) / 2; }
  // Cluster ci belongs to scheduler thread ci % threads.
  int thread_of(int core) const { return cluster_of(core) % scheduler_threads; }
  // "AIC_3" / "AIV_30".
  std::string CoreName(int core) const;
};

// Counter cycles at `hz` for simulated picoseconds, rounded down.
uint64_t PsToCycles(TimePs ps, double hz);
// Microseconds, for Perfetto, SVG and the analyses.
inline double PsToUs(TimePs ps) { return static_cast<double>(ps) / 1e6; }

// Exact microseconds with 6 decimals ("12.345678"), for JSON and SVG text.
std::string FormatUs(TimePs ps);

// "name(tY)" for ring 0, "name(rXtY)" otherwise, as swimlane_converter names bars.
std::string TaskLabel(const std::string& name, uint64_t runtime_id);

// The little the analyses and pictures need about each task of one launch,
// kept compactly by index_in_launch (producers may retire long before the
// end), with its core intervals and unique producer lists. Memory grows with
// the launch (about 100 bytes per task plus 64 per interval); the streaming
// writers (swimlane, deps, perfetto bars) do not use it for their rows.
class LaunchLog {
 public:
  struct TaskInfo {
    bool known = false;  // OnTaskSubmitted seen
    uint64_t runtime_id = 0;
    uint32_t name_id = 0;  // into names()
    TaskShape shape = TaskShape::kDummy;
    bool predicated_skip = false;
    bool inline_retired = false;
    int32_t inline_thread = -1;
    int32_t kernel = -1;
    int64_t block_num = 1;
    TimePs submit_start = kNever;
    TimePs submit_end = kNever;
    TimePs inline_at = kNever;
    // Folded over the task's core intervals (min dispatch/receive/start,
    // max end/finish); kNever when it never ran on a core.
    TimePs dispatch = kNever;
    TimePs receive = kNever;
    TimePs start = kNever;
    TimePs end = kNever;
    TimePs finish = kNever;
    int32_t anchor_core = -1;  // the core of the earliest receive
    int32_t intervals = 0;
    bool ran() const { return start != kNever; }
  };

  // Registers a submitted task (any shape) and its unique producers.
  void AddTask(const Task& task, absl::Span<const DepEdge> edges, TimePs submit_start,
               TimePs submit_end);
  void AddInterval(const CoreInterval& interval);
  void AddInlineRetire(int thread, const Task& task, TimePs at);
  void AddEngineBusy(const EngineInterval& interval) { engine_intervals_.push_back(interval); }
  void AddPhase(const SchedulerPhase& phase);
  // A segment's ops on its core's pipes: folded into its task's PipeTime,
  // and kept op by op when keep_pipe_ops is set (the SVG's pipe strips).
  void AddPipeOps(const PipeSegment& segment);
  void set_keep_pipe_ops(bool keep) { keep_pipe_ops_ = keep; }

  // The launch-local index of a run-wide sequence number; -1 if unknown.
  int64_t IndexOf(TaskSeq seq) const;
  const TaskInfo* Find(TaskSeq seq) const;
  size_t task_count() const { return tasks_.size(); }
  const TaskInfo& task(size_t index) const { return tasks_[index]; }
  const std::string& name(const TaskInfo& info) const { return names_[info.name_id]; }
  // Unique producers of task `index`, as launch indices, ascending.
  absl::Span<const uint32_t> producers(size_t index) const;
  const std::vector<CoreInterval>& intervals() const { return intervals_; }
  // MIX blocks' cube and vector busy time, per core.
  const std::vector<EngineInterval>& engine_intervals() const { return engine_intervals_; }

  // A task's time on the pipes, summed over its blocks' segments.
  struct PipeTime {
    std::array<TimePs, kPipeCount> busy{};  // per pipe, as PipeSegment::busy
    TimePs span = 0;                        // the segments' first op start to last op end
  };
  // Task `index`'s, or null when it ran nothing on the pipes.
  const PipeTime* pipe_time(size_t index) const {
    return index < pipe_times_.size() && pipe_times_[index].span > 0 ? &pipe_times_[index]
                                                                     : nullptr;
  }
  // One op on a core's pipe (kept with keep_pipe_ops).
  struct PipeOp {
    int32_t core;
    Pipe pipe;
    trace::Op::Kind kind;
    TimePs start;
    TimePs end;
  };
  const std::vector<PipeOp>& pipe_ops() const { return pipe_ops_; }

  // A scheduler thread's loop budget as sched_overhead_analysis counts it:
  // over its "work" records (complete and dispatch, in the order the thread
  // emits them), busy time, idle gaps between them, the largest loop_iter
  // (the runtime's iteration counter), and the dispatch pop counts.
  struct ThreadLoops {
    TimePs busy = 0;
    TimePs idle = 0;
    TimePs last_end = kNever;
    uint64_t max_iter = 0;
    uint64_t pop_hit = 0;
    uint64_t pop_miss = 0;
    uint64_t finishes = 0;  // complete-phase tasks_processed
    int64_t records = 0;
  };
  // Per scheduler thread, indexed by thread id.
  const std::vector<ThreadLoops>& threads() const { return threads_; }
  // Folds one scheduler phase into `threads`' loop budgets.
  static void AccumulatePhase(const SchedulerPhase& phase, std::vector<ThreadLoops>* threads);

 private:
  TaskInfo& Slot(TaskSeq seq);
  uint32_t Intern(const std::string& name);

  TaskSeq base_seq_ = kNoTask;
  std::vector<TaskInfo> tasks_;
  std::vector<std::string> names_;
  absl::flat_hash_map<std::string, uint32_t> name_ids_;
  // Producers in CSR form: task i's list is producer_list_[offset_[i]..offset_[i+1]).
  std::vector<uint32_t> producer_offset_ = {0};
  std::vector<uint32_t> producer_list_;
  std::vector<CoreInterval> intervals_;
  std::vector<EngineInterval> engine_intervals_;
  std::vector<PipeTime> pipe_times_;  // by launch index; only as far as tasks ran on pipes
  bool keep_pipe_ops_ = false;
  std::vector<PipeOp> pipe_ops_;
  std::vector<ThreadLoops> threads_;
  std::vector<TaskSeq> scratch_;
};

}  // namespace pto

#endif  // PTO_SIM_LAUNCH_LOG_H_
