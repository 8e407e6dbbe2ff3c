#ifndef PTO_SIM_PERFETTO_WRITER_H_
#define PTO_SIM_PERFETTO_WRITER_H_

#include <array>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "models/run_observer.h"
#include "sim/launch_log.h"
#include "sim/rate_windows.h"
#include "sim/spooled_json.h"

namespace pto {

// Writes one launch's perfetto.json: Chrome Trace Event format laid out like
// the runtime's swimlane_converter (hw-native-sys/simpler@6ebaf771
// simpler_setup/tools/swimlane_converter.py), timestamps in
// simulated µs:
//   pid 1 "AICPU Orchestrator": tid 4000 "Orch_0", one orch_submit bar per submit;
//   pid 2 "AICPU Scheduler": tid 30000+10t "Sched_t", the outer phase bars;
//         tid 3999 "shared_ready_queue (global)" counter {AIC, AIV, MIX} at
//         each dispatch phase;
//   pid 3 "Scheduler View": tid 10000+10c "AIC_c"/"AIV_c", [dispatch, finish];
//   pid 4 "Worker View": same tids, kernel bars [receive, end] named
//         "<name>(rXtY)" ("_spmd" appended to SPMD task names without "spmd", category
//         the task shape so MIX halves are tellable); tid 19000+t "AICPU_t"
//         carries 0.02 µs dummy / predicated-skip markers;
//   overhead counters (with `overhead_counters`), pid 2, as the converter's
//         --overhead: oh_aic_idle / oh_aic_ready / oh_aic_overhead (tids
//         9101-9103), oh_aiv_* (9111-9113), oh_all_overhead (9121) and
//         oh_has_overhead (9122), from SweepOverheadStates, one sample per change;
//         Under each core's lane, one sub-track per pipe the core used
//         ("AIV_1 mte2", "AIV_1 vector", ...; tid 1000000 + 1000c + 100p +
//         k), a bar per op named by its kind ("LOAD", "EXP"), category
//         "pipe"; a DMA pipe with transfers in flight together gets
//         sub-tracks "mte2 #0", "mte2 #1", ..., each op on the lowest one
//         free at its start, so no two bars of one track overlap;
//   pid 5 "GM": tid 5000 "HBM bandwidth (GB/s)", a counter of the HBM's
//         mean bandwidth per 1 µs window (only when the memory system moved
//         any HBM bytes);
//   flows "dependency" (or "hb_violation" when the producer ended after the
//         consumer started), ph s/f, cat "flow", one per unique producer pair
//         between the tasks' earliest bars (tasks that never ran on a core,
//         such as dummies, have no bar and no flows).
// Bars stream to a temporary file; metadata and flows are added from `log`
// (fed before this writer) at Finalize(); the file appears by rename.
class PerfettoWriter : public RunObserver {
 public:
  PerfettoWriter(std::string dir, const OutputChip& chip, const LaunchLog* log,
                 bool overhead_counters = true);

  absl::Status Open();
  void OnTaskSubmitted(const Task& task, absl::Span<const DepEdge> edges, TimePs start,
                       TimePs end) override;
  void OnCoreInterval(const CoreInterval& interval) override;
  // A MIX block's engine busy time: a bar on the core's engine sub-lane.
  void OnEngineBusy(const EngineInterval& interval) override;
  // A segment's ops: a bar each on the core's pipe sub-tracks.
  void OnPipeOps(const PipeSegment& segment) override;
  void OnSchedulerPhase(const SchedulerPhase& phase) override;
  void OnInlineRetire(int thread, const Task& task, TimePs at) override;
  // The HBM's summed rate: a counter track of its mean per 1 µs window.
  void OnHbmRate(TimePs at, double bytes_per_ns) override;
  absl::Status Finalize();

 private:
  void Bar(int pid, int tid, const std::string& name_json, const char* cat, TimePs start,
           TimePs end, const std::string& args);
  std::string BarName(const LaunchLog::TaskInfo* info, uint64_t fallback_id) const;
  void MarkThread(int thread);
  void AddOverheadCounters();

  std::string dir_;
  OutputChip chip_;
  const LaunchLog* log_;
  bool overhead_counters_;
  SpooledArray events_;
  std::vector<bool> core_used_;
  std::vector<bool> engine_lane_used_;  // per core
  // Per core, in the Worker and the Scheduler View: each sub-track's last
  // bar end (a block dispatched into a free slot while the last one runs
  // overlaps it, so it goes on the next sub-track).
  std::vector<std::array<std::vector<TimePs>, 2>> core_lanes_;
  // Per core, per pipe: each sub-track's last bar end (their count: the
  // sub-tracks used).
  std::vector<std::array<std::vector<TimePs>, kPipeCount>> pipe_lanes_;
  std::vector<uint32_t> pipe_order_;  // scratch: a segment's ops by start
  std::vector<bool> sched_thread_used_;
  std::vector<bool> marker_thread_used_;
  bool orchestrator_used_ = false;
  bool queue_counter_used_ = false;
  uint64_t submit_idx_ = 0;
  std::string line_;
  RateWindows hbm_;
  bool hbm_used_ = false;
};

}  // namespace pto

#endif  // PTO_SIM_PERFETTO_WRITER_H_
