#ifndef PTO_SIM_OVERHEAD_TAP_H_
#define PTO_SIM_OVERHEAD_TAP_H_

#include <vector>

#include "models/run_observer.h"
#include "sim/overhead_analyzer.h"

namespace pto {

// Feeds an OverheadAnalyzer from the chip's observations of one launch, for
// runs that keep no LaunchLog (--summary-only, or no --out): the summary's
// overhead and critical-path lines in memory bounded by the tasks in flight.
class OverheadTap : public RunObserver {
 public:
  // `pipes`: ask the cores for their pipe ops (the critical path's bound
  // pipe); they cost time to collect.
  OverheadTap(const OutputChip& chip, bool pipes) : analyzer_(chip), pipes_(pipes) {}

  void OnTaskSubmitted(const Task& task, absl::Span<const DepEdge> edges, TimePs start,
                       TimePs end) override;
  void OnCoreInterval(const CoreInterval& interval) override { analyzer_.AddInterval(interval); }
  void OnSchedulerPhase(const SchedulerPhase& phase) override { analyzer_.AddPhase(phase); }
  bool wants_pipe_ops() const override { return pipes_; }
  void OnPipeOps(const PipeSegment& segment) override {
    analyzer_.AddPipeTime(segment.task, segment.busy, segment.end - segment.start);
  }
  void OnTaskCompleted(const Task& task) override { analyzer_.CompleteTask(task.seq); }
  void OnTaskRetired(const Task& task) override { analyzer_.RetireTask(task.seq); }

  nlohmann::json Finish() { return analyzer_.Finish(); }
  const OverheadAnalyzer& analyzer() const { return analyzer_; }

 private:
  OverheadAnalyzer analyzer_;
  bool pipes_;
  std::vector<TaskSeq> producers_;  // reused
};

}  // namespace pto

#endif  // PTO_SIM_OVERHEAD_TAP_H_
