#ifndef PTO_SIM_OVERHEAD_ANALYZER_H_
#define PTO_SIM_OVERHEAD_ANALYZER_H_

#include <array>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "models/aicpu/aicpu_observer.h"
#include "models/core/core_observer.h"
#include "nlohmann/json.hpp"
#include "sim/launch_log.h"
#include "sim/pipe_stats.h"

namespace pto {

// The scheduler-overhead model of AnalyzeOverhead (sim/overhead_analysis.h
// defines every figure), computed as a launch runs, with memory bounded by
// the tasks in flight rather than by the launch's length, so every run can
// print it (--summary-only and no --out too).
//
// Feed it each task at submission (with its unique producers), each core
// interval, each task's pipe time, the scheduler phases, and each task's
// completion and retirement; Finish() returns the same object as
// AnalyzeOverhead on the whole launch's records. How it stays bounded:
//   - the overhead shares sweep the timeline of core counts and waiting
//     tasks in time order. An event is final once no later report can come
//     before it: every event still to come belongs to a task not yet
//     complete (at or after its submission) or is a consumer's ready time,
//     the end of a live producer. Final events are swept into a histogram
//     of (running cores, waiting tasks) per engine; the shares come from it
//     at the end, when the used core counts are known;
//   - the head, tail and switch figures walk each core's records in start
//     order once they are final in the same sense;
//   - the critical path's walk needs every task's gating producer: one
//     fixed-size record per task that ran goes to an unnamed temporary file,
//     read back only along the path.
class OverheadAnalyzer {
 public:
  // Whether a waiting task of `shape` counts for engine `aiv` (false: the
  // AIC's): a MIX task counts for both, as the tool has it.
  static bool WaitsOnEngine(TaskShape shape, bool aiv) {
    return shape == TaskShape::kMix || shape == (aiv ? TaskShape::kAiv : TaskShape::kAic);
  }

  explicit OverheadAnalyzer(const OutputChip& chip);
  ~OverheadAnalyzer();
  OverheadAnalyzer(const OverheadAnalyzer&) = delete;
  OverheadAnalyzer& operator=(const OverheadAnalyzer&) = delete;

  // `index` is the task's launch-local index; `producers` its unique
  // producers' sequence numbers.
  void AddTask(TaskSeq seq, uint64_t index, uint64_t runtime_id, const std::string& name,
               TaskShape shape, absl::Span<const TaskSeq> producers, TimePs submit_start);
  void AddInterval(const CoreInterval& interval);
  void AddPipeTime(TaskSeq task, const PipeTimes& busy, TimePs span);
  void AddPhase(const SchedulerPhase& phase);
  // Every interval of `task` was added.
  void CompleteTask(TaskSeq task);
  // `task` left the in-flight window: no later task depends on it.
  void RetireTask(TaskSeq task);
  // Uses the loop budgets of `threads` instead of the phases (for a
  // LaunchLog that keeps only those).
  void SetThreadLoops(const std::vector<LaunchLog::ThreadLoops>& threads) { threads_ = threads; }

  // Completes every task still open and returns the analysis.
  nlohmann::json Finish();

  // Tasks and events held now (for tests of the bound).
  size_t held_tasks() const { return live_.size(); }
  size_t held_events() const { return timeline_.size(); }

 private:
  enum Engine { kAic = 0, kAiv = 1, kEngines = 2 };
  struct Live {
    uint64_t index = 0;
    uint64_t runtime_id = 0;
    uint32_t name_id = 0;
    TaskShape shape = TaskShape::kDummy;
    absl::InlinedVector<TaskSeq, 4> producers;
    TimePs submit_start = 0;
    TimePs dispatch = kNever;
    TimePs start = kNever;
    TimePs end = kNever;
    TimePs finish = kNever;
    PipeTimes pipe_busy{};
    TimePs pipe_span = 0;
    int consumers_open = 0;  // submitted consumers not yet complete
    bool complete = false;
    bool retired = false;
    bool ran() const { return start != kNever; }
  };
  // The live tasks by sequence number: a ring over the span from the
  // oldest live one to the newest (tasks are added in sequence order), so
  // a lookup is an index, not a hash.
  class LiveTasks {
   public:
    Live* Find(TaskSeq seq) {
      if (size_ == 0 || seq < oldest_ || seq >= next_) return nullptr;
      Slot& slot = ring_[seq & (ring_.size() - 1)];
      return slot.used ? &slot.task : nullptr;
    }
    // `seq` is above every sequence number added before.
    Live& Add(TaskSeq seq);
    void Erase(TaskSeq seq);
    size_t size() const { return size_; }
    // Sequence numbers of the live tasks, ascending.
    std::vector<TaskSeq> Sequences() const;

   private:
    struct Slot {
      bool used = false;
      Live task;
    };
    std::vector<Slot> ring_ = std::vector<Slot>(64);
    TaskSeq oldest_ = 0;  // no live task below
    TaskSeq next_ = 0;    // above every live task
    size_t size_ = 0;
  };
  // What the critical path's walk needs of a task that ran, spooled.
  struct PathRecord {
    int64_t gating = -1;  // launch index of its gating producer
    uint64_t runtime_id = 0;
    uint32_t name_id = 0;
    TimePs dispatch = 0;
    TimePs start = 0;
    TimePs end = 0;
    TimePs finish = 0;
    PipeTimes pipe_busy{};
    TimePs pipe_span = 0;
    // Its first producer (by launch index) that ran on no core, if any:
    // where the walk stops when it is the path's first task.
    bool has_unran = false;
    TaskShape unran_shape = TaskShape::kDummy;
    uint32_t unran_name_id = 0;
    uint64_t unran_runtime_id = 0;
  };
  // A change at one time: running cores or waiting tasks of one engine.
  struct Event {
    TimePs at;
    int8_t engine;
    int8_t running;
    int8_t waiting;
    bool operator>(const Event& other) const { return at > other.at; }
  };
  // A lower bound of reports to come, valid while its task is open
  // (kSubmit) or live and complete (kEnd); stale ones are dropped lazily.
  struct Bound {
    TimePs at;
    TaskSeq seq;
    bool end;
    bool operator>(const Bound& other) const { return at > other.at; }
  };
  struct Stat {
    int64_t records = 0;
    TimePs total = 0;
    TimePs max = 0;
    void Add(TimePs v);
    nlohmann::json ToJson() const;
  };
  struct CoreState {
    bool seen = false;
    // Records not yet final, in (start, end, dispatch) order, ties in
    // arrival order (they arrive nearly in that order).
    std::deque<CoreInterval> pending;
    bool has_prev = false;
    TimePs prev_end = 0;
    int64_t switches = 0;
    TimePs switched = 0;
  };

  Engine EngineOf(int core) const { return chip_.is_aic(core) ? kAic : kAiv; }
  uint32_t Intern(const std::string& name);
  // The earliest time a report still to come can carry.
  TimePs Horizon();
  // Sweeps the events and core records before Horizon().
  void Advance();
  void Sweep(TimePs before);
  void PushBound(const Bound& bound);
  void PushEvent(const Event& event);
  void WalkCores(TimePs before);
  // Forgets `task` once no report can need it: complete, retired, and no
  // open consumer's gating choice left to make.
  void MaybeDrop(TaskSeq seq, const Live& task);
  void WriteRecord(uint64_t index, const PathRecord& record);
  void FlushRecords();
  bool ReadRecord(uint64_t index, PathRecord* record) const;

  OutputChip chip_;
  LiveTasks live_;
  // Lower bounds of reports to come: open tasks' submission starts, in
  // submission order (so nondecreasing: the first open one is the least),
  // and complete live tasks' ends, a min-heap. Stale entries go lazily.
  std::deque<std::pair<TimePs, TaskSeq>> submits_;
  std::vector<Bound> ends_;
  std::vector<std::string> names_;
  absl::flat_hash_map<std::string, uint32_t> name_ids_;
  uint32_t last_name_ = 0;
  static constexpr int kAdvanceEvery = 64;  // completions and retirements
  int since_advance_ = 0;

  // The timeline sweep: events not yet final, a min-heap.
  std::vector<Event> timeline_;
  bool swept_any_ = false;
  TimePs swept_at_ = 0;  // time of the last swept event
  int running_[kEngines] = {0, 0};
  int waiting_[kEngines] = {0, 0};
  TimePs window_start_ = kNever;  // first interval start
  TimePs window_end_ = kNever;    // last interval end
  std::vector<bool> core_seen_;
  int cores_[kEngines] = {0, 0};
  bool present_[kEngines] = {false, false};
  // Time spent in each (running AIC, AIC waiting, running AIV, AIV waiting)
  // state, from the window's start.
  // Keyed by StateKey.
  absl::flat_hash_map<uint64_t, TimePs> histogram_;
  static uint64_t StateKey(int running_aic, bool waiting_aic, int running_aiv, bool waiting_aiv) {
    return static_cast<uint64_t>(static_cast<uint32_t>(running_aic)) << 34 |
           static_cast<uint64_t>(waiting_aic) << 33 |
           static_cast<uint64_t>(static_cast<uint32_t>(running_aiv)) << 1 |
           static_cast<uint64_t>(waiting_aiv);
  }

  // Head, tail and switches, per core in core order.
  std::vector<CoreState> cores_state_;  // by core
  Stat head_[kEngines + 1];
  Stat tail_[kEngines + 1];

  std::vector<LaunchLog::ThreadLoops> threads_;

  // The critical path.
  std::FILE* spool_ = nullptr;  // unnamed: gone with the process
  int spool_fd_ = -1;
  bool spool_failed_ = false;
  static constexpr size_t kSpoolBatch = 4096;
  // The critical path's hops listed in the analysis (the ones nearest its
  // end); its sums cover every hop.
  static constexpr size_t kMaxListedHops = 1000;
  std::vector<std::pair<uint64_t, PathRecord>> unwritten_;
  std::vector<std::pair<TaskSeq, Live*>> producers_;  // scratch for CompleteTask
  int64_t sink_ = -1;  // launch index of the ran task with the latest finish
  TimePs sink_finish_ = 0;
};

}  // namespace pto

#endif  // PTO_SIM_OVERHEAD_ANALYZER_H_
