#ifndef PTO_SIM_OVERHEAD_ANALYSIS_H_
#define PTO_SIM_OVERHEAD_ANALYSIS_H_

#include <functional>
#include <string>

#include "nlohmann/json.hpp"
#include "sim/launch_log.h"

namespace pto {

// The scheduler-overhead model of the runtime's sched_overhead_analysis
// (hw-native-sys/simpler@6ebaf771 simpler_setup/tools/sched_overhead_analysis.py,
// docs/dfx/sched-overhead-model.md), computed from one launch's LaunchLog with the
// tool's definitions, so its numbers equal what the tool prints for the same
// chip_swimlane_records.json + deps.json. "Records" are core intervals; a
// task's timing folds its records (min dispatch/start, max end/finish);
// producers are the task's unique producers that ran on a core (a dummy
// producer has no record, so it counts as absent, as in the tool). Returns the
// object the driver merges into stats.json as "scheduler_overhead":
//   makespan_us, window_us {start, end}: first record start to last record end;
//   overhead_us / overhead_share {aic, aiv, all, has}: time (fraction of the
//     makespan) in which an engine has an idle core (of the cores of its type
//     that ran anything) AND a ready, undispatched task of its type, MIX
//     counting for both; "all" = every engine that ran anything is in
//     overhead, "has" = every engine with ready work is. A task is ready at
//     its latest producer end, or at its own dispatch when it has none;
//   head_overhead_us / tail_overhead_us {aic, aiv, all: {records, total, avg,
//     max}} per record: head = start - dispatch, or min(that, start - end of
//     the core's previous record); tail = finish - end; both clamped at 0;
//   aicore_switch {per_core [{core, name, switches, total_us}],
//     makespan_bound_us [min over cores, sum of per-engine minima]}: a record
//     dispatched before its core's previous record ended adds the gap
//     [previous end, start] (clamped to the window) when positive;
//   scheduler_loop {per_thread [{thread, loops, total_us, busy_us, idle_us,
//     ns_per_loop, finishes, pop_hit, pop_miss}], avg_ns_per_loop, pop_hit,
//     pop_miss}: loops = the largest loop_iter, total = busy + idle gaps over
//     complete/dispatch phases, avg = sum of totals / sum of loops;
//   critical_path {hops, span_us, compute_us, injected_us, other_us, path
//     [{index, task_id, name, dispatch_us, start_us, end_us, finish_us,
//     compute_us, injected_us}] root first}: from the task with the latest
//     finish walk back through the producer with the largest end (ties: the
//     larger task id); per task compute = end - start, scheduler-injected =
//     start - producer end (the root: start - dispatch), clamped at 0; hops =
//     edges walked; span = last finish - earliest start on the path;
//     bound_pipe: the pipe with the most busy time summed over the path's
//     tasks (each hop's own in path[].bound_pipe; null when none ran on the
//     pipes), bound_pipe_share: that busy time over the path's tasks' op
//     time (their segments' first op start to last op end, summed over
//     blocks), 0 without a bound pipe.
nlohmann::json AnalyzeOverhead(const LaunchLog& log, const OutputChip& chip);

// The overhead model's state between two event times, for counter tracks:
// per engine [aic, aiv] idle used cores, ready undispatched tasks, and
// whether it is in overhead; "all" and "has" as in AnalyzeOverhead.
struct OverheadState {
  int idle_cores[2] = {0, 0};
  int ready_tasks[2] = {0, 0};
  bool overhead[2] = {false, false};
  bool present[2] = {false, false};  // the engine ran anything
  bool all = false;
  bool has = false;
};

// Calls `visit` for each stretch [from, to) of the window in time order.
void SweepOverheadStates(
    const LaunchLog& log, const OutputChip& chip,
    const std::function<void(TimePs from, TimePs to, const OverheadState& state)>& visit);

// A few lines for stdout (overhead shares, head/tail, loop cost and pops,
// the critical path split and the pipe that bound it, "critical path bound
// by mte2 (61 %)") from AnalyzeOverhead's result. Uses the tool's
// wording for "Avg scheduler loop iteration: N ns" and "Pop: hit=N, miss=M".
std::string DescribeOverhead(const nlohmann::json& analysis);

}  // namespace pto

#endif  // PTO_SIM_OVERHEAD_ANALYSIS_H_
