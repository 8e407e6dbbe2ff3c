#ifndef PTO_SIM_RUN_DRIVER_H_
#define PTO_SIM_RUN_DRIVER_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace pto {

// pto_sim's exit codes (README.md, "Exit codes"; docs/robustness.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitCheckFailed = 1,
  kExitBadInput = 2,
  kExitRuntime = 3,  // simulated deadlock, hang, runtime fatal or time limit
  // Stopped by SIGINT or SIGTERM: 128 + the signal (130, 143), as a shell
  // reports a process the signal killed, so scripts can tell "interrupted"
  // from "the simulation failed".
};

// The most tensor contents a functional run holds in memory (16 GiB); larger
// workloads run with --timing-only.
inline constexpr uint64_t kMaxTensorContentsBytes = uint64_t{16} << 30;

struct RunOptions {
  std::string config_path;
  std::vector<std::string> overrides;  // --set key=value
  std::string trace_path;
  std::string out_dir;            // empty: no files
  bool summary_only = false;      // summary keys only, no per-task records
  bool timing_only = false;       // no data: tensors without contents, no checks
  int swimlane_level = 2;         // chip_swimlane_records.json detail, 1..4
  bool hazards = true;            // run the hazard detector (--no-hazards turns it off)
  bool fail_on_hazard = false;    // a hazard makes the run exit 1
  double max_wall_seconds = 600;  // --max-wall-seconds: stop with exit 3 after this
  double max_sim_seconds = 10;    // --max-sim-seconds: stop with exit 3 past this simulated time
  bool engine_stats = false;      // --engine-stats: print the simulation kernel's work
  // --swimlane-detail: "tasks", or "pipes" (swimlane.svg's pipe strips under each core's lane).
  std::string swimlane_detail = "tasks";
  // --write-tensors: the tensors' final contents go here (sim/tensor_dump.h).
  std::string tensors_dir;
  // --serve DIR: the trace is read as it is written (a pipe), and after each
  // launch its summary is printed, its argument tensors' contents are
  // written to DIR/launch_<n> (sim/tensor_dump.h's layout) and the line
  // "served launch <n> DIR/launch_<n>" ends its report. No wall-clock limit:
  // the writer's pauses between launches are not simulation.
  std::string serve_dir;
};

// Elaborates the chip once and runs every launch of the trace on it, printing
// the summary to `out` and errors to `err`. Returns the exit code. SystemC
// elaborates once per process, so call this at most once.
int RunSimulation(const RunOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pto

#endif  // PTO_SIM_RUN_DRIVER_H_
