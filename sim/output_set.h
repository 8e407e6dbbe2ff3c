#ifndef PTO_SIM_OUTPUT_SET_H_
#define PTO_SIM_OUTPUT_SET_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "models/run_observer.h"
#include "nlohmann/json.hpp"
#include "proto/task_stream.pb.h"
#include "sim/deps_writer.h"
#include "sim/launch_log.h"
#include "sim/perfetto_writer.h"
#include "sim/swimlane_svg.h"
#include "sim/swimlane_writer.h"

namespace pto {

struct OutputOptions {
  std::string dir;            // the launch's directory; must exist
  std::string case_name;      // the launch name: name_map_<case>.json, orchestrator_name
  int swimlane_level = 2;     // --swimlane-level, 1..4
  bool summary_only = false;  // --summary-only: write nothing, keep nothing
  bool svg = true;
  bool perfetto_overhead_counters = true;  // oh_* counter tracks in perfetto.json
  SwimlaneSvgOptions svg_options;
};

// Every issue-7 output of one launch behind one RunObserver: the driver makes
// one per launch (next to its StatsWriter), forwards the chip's callbacks to
// it, and calls Finalize() when the launch ends. Writes into options.dir:
//   chip_swimlane_records.json, deps.json, name_map_<case>.json,
//   perfetto.json, swimlane.svg;
// and returns the scheduler-overhead analysis for stats.json. With
// summary_only nothing is kept or written and the analysis is null.
//
// The chip must report every task (submits, dummies and allocs) through
// OnTaskSubmitted, in submission order, before any interval of that task;
// OnEdge is not needed (the edges come with OnTaskSubmitted).
class OutputSet : public RunObserver {
 public:
  OutputSet(OutputOptions options, const OutputChip& chip, const trace::StreamHeader& header);

  absl::Status Open();

  void OnTaskSubmitted(const Task& task, absl::Span<const DepEdge> edges, TimePs start,
                       TimePs end) override;
  void OnCoreInterval(const CoreInterval& interval) override;
  void OnSchedulerPhase(const SchedulerPhase& phase) override;
  void OnEngineBusy(const EngineInterval& interval) override;
  // The pipe tracks of perfetto.json, the critical path's bounding pipe and
  // the SVG's pipe strips.
  bool wants_pipe_ops() const override { return !options_.summary_only; }
  void OnPipeOps(const PipeSegment& segment) override;
  void OnHbmRate(TimePs at, double bytes_per_ns) override;
  void OnInlineRetire(int thread, const Task& task, TimePs at) override;

  // Writes every file (each complete or not at all) and sets `*overhead` to
  // AnalyzeOverhead's result, or null with summary_only. `*overhead_text` (if
  // not null) gets DescribeOverhead's lines for stdout.
  absl::Status Finalize(nlohmann::json* overhead, std::string* overhead_text = nullptr);

  const LaunchLog& log() const { return log_; }

 private:
  OutputOptions options_;
  OutputChip chip_;
  LaunchLog log_;
  std::unique_ptr<SwimlaneWriter> swimlane_;
  std::unique_ptr<DepsWriter> deps_;
  std::unique_ptr<PerfettoWriter> perfetto_;
};

}  // namespace pto

#endif  // PTO_SIM_OUTPUT_SET_H_
