#ifndef PTO_SIM_OVERHEAD_ANALYSIS_H_
#define PTO_SIM_OVERHEAD_ANALYSIS_H_

#include <string>

#include "nlohmann/json.hpp"
#include "sim/launch_log.h"

namespace pto {

// The scheduler-overhead model of the runtime's sched_overhead_analysis
// (runtime-semantics.md §4.8), computed from one launch's LaunchLog. Returns
// the object the driver merges into stats.json as "scheduler_overhead":
//   makespan_us, window_us {start, end}: [min start, max end] over core records;
//   overhead_us / overhead_share {aic, aiv, all, has}: time (and fraction of
//     the makespan) in which an engine has an idle core (of the chip's cores of
//     that type) AND a ready, undispatched task of its type (MIX counts for
//     both); "all" = every engine that ran anything is in overhead, "has" =
//     every engine with ready work is. ready(T) = max end over T's producers
//     (producers that never ran on a core, e.g. dummies, are looked through to
//     their own producers); T with no such producer is ready at its dispatch;
//   head_overhead_us / tail_overhead_us {aic, aiv, all: {records, total, avg,
//     max}} per core record: head = start - dispatch, or min(that, start -
//     previous end on the core); tail = finish - end; both clamped at 0;
//   aicore_switch {per_core [{core, name, switches, total_us}],
//     makespan_bound_us [min over cores, sum of per-engine minima]}: records
//     dispatched before the previous one on the core ended add start - prev_end;
//   scheduler_loop {per_thread [{thread, loops, total_us, busy_us,
//     ns_per_loop, pop_hit, pop_miss}], avg_ns_per_loop, pop_hit, pop_miss}:
//     loops = loop_iter span, total = first phase start to last phase end;
//   critical_path {hops [{index, task_id, name, dispatch_us, start_us, end_us,
//     compute_us, injected_us}] root first, compute_us, injected_us}: from the
//     task with the latest end, walk back through the producer with the
//     largest end; per hop compute = end - start and scheduler-injected =
//     start - producer end; the root's injected time is start - dispatch.
//     Tasks are folded over their blocks (min dispatch/start, max end).
nlohmann::json AnalyzeOverhead(const LaunchLog& log, const OutputChip& chip);

// A few lines for stdout: overhead shares, head/tail, loop cost, pops and
// the critical path split, from AnalyzeOverhead's result.
std::string DescribeOverhead(const nlohmann::json& analysis);

}  // namespace pto

#endif  // PTO_SIM_OVERHEAD_ANALYSIS_H_
