#ifndef PTO_SIM_SWIMLANE_WRITER_H_
#define PTO_SIM_SWIMLANE_WRITER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "models/run_observer.h"
#include "sim/launch_log.h"
#include "sim/spooled_json.h"

namespace pto {

// Writes one launch's chip_swimlane_records.json in the runtime's on-disk
// schema (hw-native-sys/simpler@6ebaf771
// src/common/platform/shared/host/chip_swimlane_collector.cpp,
// docs/dfx/chip-swimlane-profiling.md), so swimlane_converter and
// sched_overhead_analysis read it unchanged:
//   level 1: metadata {clock_freq_hz, num_cores, core_types} + aicore_tasks
//            [core_id, task_token_raw (the 64-bit runtime id), reg_task_id,
//             start_cycles, end_cycles, receive_to_start_cycles];
//   level 2: + aicpu_tasks [core_id, reg_task_id, dispatch_cycles, finish_cycles];
//   level 3: + metadata.core_to_thread and aicpu_scheduler_phases, one list per
//            scheduler thread, with dummy_task / predicated_skip markers;
//   level 4: + aicpu_orchestrator_phases [[{submit_idx, task_id, start_cycles,
//             end_cycles}]].
// Cycles are simulated picoseconds at the counter clock, rounded down. Rows
// are streamed to temporary files in DIR and spliced by Finalize(); the file
// appears by rename. `log` resolves an interval's task to its runtime id; the
// caller feeds it before this writer (OutputSet does). An interval of a task
// the log does not know makes Finalize() fail rather than write a wrong id.
class SwimlaneWriter : public RunObserver {
 public:
  SwimlaneWriter(std::string dir, int level, const OutputChip& chip, const LaunchLog* log);

  absl::Status Open();
  void OnTaskSubmitted(const Task& task, absl::Span<const DepEdge> edges, TimePs start,
                       TimePs end) override;
  void OnCoreInterval(const CoreInterval& interval) override;
  void OnSchedulerPhase(const SchedulerPhase& phase) override;
  void OnInlineRetire(int thread, const Task& task, TimePs at) override;
  absl::Status Finalize();

 private:
  uint64_t Cycles(TimePs ps) const { return PsToCycles(ps, chip_.counter_hz); }
  SpooledArray& ThreadPhases(int thread);

  std::string dir_;
  int level_;
  OutputChip chip_;
  const LaunchLog* log_;
  SpooledArray aicore_;
  SpooledArray aicpu_;
  SpooledArray orchestrator_;
  std::vector<std::unique_ptr<SpooledArray>> phases_;  // per scheduler thread
  uint64_t submit_idx_ = 0;
  int64_t unknown_tasks_ = 0;  // intervals of tasks the log does not know
  absl::Status status_;
  std::string line_;  // reused
};

}  // namespace pto

#endif  // PTO_SIM_SWIMLANE_WRITER_H_
