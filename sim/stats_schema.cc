#include "sim/stats_schema.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace pto {
namespace {

using U = StatUnit;
using T = StatTotal;

// The table. Order: the launch summary as the writer emits it, then the
// analyses, the records, the checks and hazards. Meanings are a reader's: what
// the number is and how it is measured.
const std::vector<StatSpec>& Table() {
  // A table, one key per entry: clang-format would put the fields of entries
  // with an empty one on a line each.
  // clang-format off
  static const auto* table = new std::vector<StatSpec>{
      // ---- identity
      {"launch", U::kCount, "0-based index of the launch in the trace"},
      {"name", U::kText, "the launch's @pl.jit function"},
      // ---- provenance: what the file came from; comparisons skip it
      {"provenance/tool", U::kText, "the program that wrote the file: pto_sim"},
      {"provenance/version", U::kText, "pto_sim's version"},
      {"provenance/git_revision", U::kText,
       "the commit pto_sim was built from (12 hex digits, -dirty with uncommitted changes; "
       "unknown outside a git checkout)"},
      {"provenance/config/path", U::kText, "--config, as given"},
      {"provenance/config/fnv1a64", U::kText, "FNV-1a 64 of the config file's bytes (16 hex digits)"},
      {"provenance/overrides", U::kText, "the --set key=value strings, in order (an array)"},
      {"provenance/traces/[]/path", U::kText, "--trace, as given (never made absolute)"},
      {"provenance/traces/[]/fnv1a64", U::kText,
       "FNV-1a 64 of the trace file's bytes; null for a pipe (--serve)"},
      // ---- time
      {"makespan_us", U::kMicroseconds, "last kernel end minus first kernel start",
       "makespan_us", "makespan_us", T::kSum, true},
      {"device_wall_us", U::kMicroseconds,
       "launch start (the orchestrator reads its first record) to the last task's retirement",
       "device_wall_us", "device_wall_us", T::kSum, true},
      // ---- counts
      {"tasks", U::kCount, "submitted tasks (dummies and allocs counted apart)", "tasks", "tasks",
       T::kSum, true},
      {"dummy_tasks", U::kCount, "dummy tasks (pl.system.task_dummy)", {}, {}, T::kSum, true},
      {"alloc_tasks", U::kCount, "alloc tasks (pl.create_tensor)", {}, {}, T::kSum, true},
      {"task_dispatches", U::kCount, "tasks popped from the ready queues", "task_dispatches",
       "task_dispatches", T::kSum, true},
      {"block_dispatches", U::kCount, "blocks launched on a core (a MIX block on a cluster)",
       "block_dispatches", "block_dispatches", T::kSum, true},
      {"predicated_skips", U::kCount,
       "tasks whose dispatch predicate was false (retired without a core)", "predicated_skips",
       "predicated_skips", T::kSum, true},
      {"edges", U::kCount, "inferred dependency edges, before de-duplication", {}, "edges",
       T::kSum, true},
      {"engine_busy_share/aic", U::kFraction,
       "summed AIC busy time over makespan x AIC count", "aic_busy_share", "busy_share.aic",
       T::kMakespanWeighted},
      {"engine_busy_share/aiv", U::kFraction,
       "summed AIV busy time over makespan x AIV count", "aiv_busy_share", "busy_share.aiv",
       T::kMakespanWeighted},
      {"early_dispatched_blocks", U::kCount,
       "blocks pre-staged by early dispatch (allow_early_resolve), released by a doorbell",
       "early_dispatched_blocks", "early_dispatched_blocks", T::kSum},
      {"sync_drains", U::kCount, "sync_start cohorts launched by the global drain"},
      {"orchestrator_busy_us", U::kMicroseconds,
       "time the orchestrator thread spent submitting (equals orchestrator/busy_us)",
       "orchestrator_busy_us", "orchestrator_busy_us", T::kSum, true},
      {"scheduler_busy_us", U::kMicroseconds,
       "time the scheduler threads spent in loop iterations with work, summed over threads",
       "scheduler_busy_us", "scheduler_busy_us", T::kSum, true},
      // ---- orchestrator
      {"orchestrator/busy_us", U::kMicroseconds, "time the orchestrator spent submitting"},
      {"orchestrator/submit_us_per_task", U::kMicroseconds,
       "mean submit cost per submitted task or dummy", {}, "submit_us_per_task"},
      {"orchestrator/submit_split_us_per_task/base", U::kMicroseconds,
       "of it: the fixed part (slot allocation, scope bookkeeping)"},
      {"orchestrator/submit_split_us_per_task/param_copy", U::kMicroseconds,
       "of it: copying the arguments"},
      {"orchestrator/submit_split_us_per_task/lookup", U::kMicroseconds,
       "of it: tensor-map lookups of inputs"},
      {"orchestrator/submit_split_us_per_task/tensormap_insert", U::kMicroseconds,
       "of it: registering outputs in the tensor map"},
      // ---- schedulers
      {"schedulers/busy_us", U::kMicroseconds, "as scheduler_busy_us"},
      {"schedulers/loops", U::kCount, "scheduler loop iterations with work, summed over threads"},
      {"schedulers/ns_per_loop", U::kNanoseconds,
       "busy time per loop iteration (its work alone; scheduler_loop_total_ns adds the idle "
       "waits)", {},
       "scheduler_loop_busy_ns"},
      {"schedulers/inline_retires", U::kCount,
       "dummies and predicate-false tasks the schedulers retired inline"},
      {"schedulers/pop_hit", U::kCount, "ready-queue pops that found a task"},
      {"schedulers/pop_miss", U::kCount, "ready-queue pops that found none"},
      {"schedulers/per_thread/[]/thread", U::kCount, "scheduler thread index"},
      {"schedulers/per_thread/[]/loops", U::kCount, "its loop iterations with work"},
      {"schedulers/per_thread/[]/busy_us", U::kMicroseconds, "its busy time"},
      {"schedulers/per_thread/[]/ns_per_loop", U::kNanoseconds, "its busy time per loop"},
      // ---- rings (one entry per ring, ring = min(scope depth, 3))
      {"rings/[]/task_window", U::kCount, "the ring's task window (in-flight task slots)"},
      {"rings/[]/heap_bytes", U::kBytes, "the ring's heap for runtime-allocated outputs"},
      {"rings/[]/dep_pool", U::kCount, "the ring's dependency-list pool entries"},
      {"rings/[]/peak_task_window", U::kCount, "most task slots in use at once"},
      {"rings/[]/peak_heap_bytes", U::kBytes, "most heap bytes in use at once"},
      {"rings/[]/peak_dep_pool", U::kCount, "most dep-pool entries in use at once"},
      {"rings/[]/orchestrator_blocked_us", U::kMicroseconds,
       "time the orchestrator waited for space in this ring"},
      {"rings/0/peak_task_window", U::kCount, "ring 0's peak task slots", {},
       "ring0.peak_task_window"},
      {"rings/0/orchestrator_blocked_us", U::kMicroseconds, "time blocked on ring 0", {},
       "ring0.orch_blocked_us"},
      {"rings/1/peak_task_window", U::kCount, "ring 1's peak task slots", {},
       "ring1.peak_task_window"},
      {"rings/1/orchestrator_blocked_us", U::kMicroseconds, "time blocked on ring 1", {},
       "ring1.orch_blocked_us"},
      {"rings/2/peak_task_window", U::kCount, "ring 2's peak task slots", {},
       "ring2.peak_task_window"},
      {"rings/2/orchestrator_blocked_us", U::kMicroseconds, "time blocked on ring 2", {},
       "ring2.orch_blocked_us"},
      {"rings/3/peak_task_window", U::kCount, "ring 3's peak task slots", {},
       "ring3.peak_task_window"},
      {"rings/3/orchestrator_blocked_us", U::kMicroseconds, "time blocked on ring 3", {},
       "ring3.orch_blocked_us"},
      // ---- GM: the transfers the memory system timed
      {"gm/transfers", U::kCount,
       "tile loads and stores, cost-summary externs' byte streams and soft-syncall counter "
       "adds, timed on the shared "
       "memory system"},
      {"gm/l2_read_hit_bytes", U::kBytes, "bytes loaded that were resident in L2"},
      {"gm/l2_read_miss_bytes", U::kBytes, "bytes loaded that L2 fetched from HBM"},
      {"gm/l2_write_bytes", U::kBytes, "bytes stored into L2 (write-back: no HBM read)"},
      {"gm/hbm_read_bytes", U::kBytes, "bytes read from HBM"},
      {"gm/hbm_write_bytes", U::kBytes, "dirty lines L2 evicted to HBM"},
      {"gm/hbm_gb_per_s", U::kGigabytesPerSecond,
       "achieved HBM bandwidth: HBM bytes read and written over the makespan"},
      {"gm/aic_stall_us", U::kMicroseconds,
       "time AIC blocks waited on GM beyond their ops' own time, summed over cores"},
      {"gm/aiv_stall_us", U::kMicroseconds,
       "time AIV blocks waited on GM beyond their ops' own time, summed over cores"},
      // ---- MIX blocks' cross-core ring
      {"mix_ring/blocks", U::kCount, "MIX blocks run"},
      {"mix_ring/pushes", U::kCount, "tiles that crossed the cube/vector ring"},
      {"mix_ring/cube_busy_us", U::kMicroseconds, "cube engine busy time inside MIX blocks"},
      {"mix_ring/vector_busy_us", U::kMicroseconds, "vector engine busy time inside MIX blocks"},
      {"mix_ring/overlap_us", U::kMicroseconds, "time both engines of a MIX block were busy"},
      {"mix_ring/slot_wait_us", U::kMicroseconds, "time producers waited for a free ring slot"},
      {"mix_ring/data_wait_us", U::kMicroseconds, "time consumers waited for a pushed tile"},
      // ---- the cores' pipes (op programs outside MIX; blocks timed on the shared memory system)
      {"pipes/busy_ns/aic/*", U::kNanoseconds,
       "per pipe (`*` = scalar, mte2, mte1, cube, fixpipe, vector, mte3): the time it had an op "
       "running (the union of its ops' time), summed over the AIC cores"},
      {"pipes/busy_ns/aiv/*", U::kNanoseconds, "the same over the AIV cores"},
      {"pipes/op_ns/*/*", U::kNanoseconds,
       "per pipe and op kind (`mte2/LOAD`, `vector/EXP`, ...): the ops' end - start, summed (a "
       "DMA pipe's transfers in flight together each count); kinds that ran are listed"},
      {"pipes/bound_tasks/*", U::kCount,
       "per pipe: tasks whose pipe with the most busy time over their blocks it was"},
      // ---- checks
      {"checks/passed", U::kCount, "checks that passed", "checks_passed", {}, T::kSum, true},
      {"checks/failed", U::kCount, "checks that failed", "checks_failed", {}, T::kSum, true},
      {"checks/results/[]/name", U::kText, "the harness expression checked"},
      {"checks/results/[]/tensor", U::kText, "the checked tensor's name"},
      {"checks/results/[]/origin", U::kText, "file:line of the check"},
      {"checks/results/[]/passed", U::kFlag, "whether every element matched"},
      {"checks/results/[]/max_abs_error", U::kValue,
       "greatest |actual - expected|; null when it is NaN or infinite"},
      {"checks/results/[]/mismatches", U::kCount, "elements outside rtol/atol"},
      {"checks/results/[]/nonfinite_mismatches", U::kCount,
       "of them NaN or Inf where a finite value was expected (or NaN vs NaN without equal_nan)"},
      {"checks/results/[]/nan_mismatches", U::kCount, "of them NaN"},
      {"checks/results/[]/first_mismatch", U::kCount, "index of the first mismatch, per dim", {},
       {}, T::kNone, false, true},
      {"checks/results/[]/actual", U::kValue, "its actual value (null if not finite)", {}, {},
       T::kNone, false, true},
      {"checks/results/[]/expected", U::kValue, "its expected value (null if not finite)", {},
       {}, T::kNone, false, true},
      {"checks/results/[]/first_nan", U::kCount, "index of the first NaN mismatch", {}, {},
       T::kNone, false, true},
      {"checks/results/[]/first_infinite", U::kCount, "index of the first infinite mismatch", {},
       {}, T::kNone, false, true},
      {"checks/results/[]/error", U::kText, "why the check could not be evaluated", {}, {},
       T::kNone, false, true},
      // ---- hazards (without --no-hazards)
      {"hazards", U::kCount, "the hazard reports (a count metric: how many)", "hazards", {},
       T::kSum},
      {"hazards/[]/kind", U::kText,
       "RAW, WAW, WAR, predicate read, stale host read, unpublished hand-off, false sharing", {},
       {}, T::kNone, false, true},
      {"hazards/[]/task/seq", U::kCount, "the reported task's run-wide sequence number", {}, {},
       T::kNone, false, true},
      {"hazards/[]/task/name", U::kText, "its name", {}, {}, T::kNone, false, true},
      {"hazards/[]/others/[]/seq", U::kCount, "the unordered other tasks", {}, {}, T::kNone,
       false, true},
      {"hazards/[]/others/[]/name", U::kText, "their names", {}, {}, T::kNone, false, true},
      {"hazards/[]/blocks/[]/block", U::kCount, "blocks involved (in-task hazards)", {}, {},
       T::kNone, false, true},
      {"hazards/[]/blocks/[]/core", U::kCount, "their cores", {}, {}, T::kNone, false, true},
      {"hazards/[]/tensor", U::kText, "the tensor", {}, {}, T::kNone, false, true},
      {"hazards/[]/region", U::kBytes, "[begin, end) byte offsets in the tensor", {}, {},
       T::kNone, false, true},
      {"hazards/[]/detail", U::kText, "what happened", {}, {}, T::kNone, false, true},
      {"hazards/[]/fix", U::kText, "what to change", {}, {}, T::kNone, false, true},
      {"hazards/[]/line", U::kText, "the printed line", {}, {}, T::kNone, false, true},
      {"hazards/[]/more_others", U::kCount, "unordered other tasks past the 8 named", {}, {},
       T::kNone, false, true},
      {"hazards/[]/repeats", U::kCount,
       "further reports of the same race (same kind, tensor and task names)", {}, {}, T::kNone,
       false, true},
      {"hazards/[]/also/[]", U::kCount, "the first 8 repeats' task seqs (when it repeats)", {}, {}, T::kNone, false,
       true},
      {"hazards_not_stored", U::kCount,
       "distinct hazards past the 1000 stored in \"hazards\" (only when some were dropped)", {},
       {}, T::kNone, false, true},
      {"hazards_unchecked_tasks", U::kCount,
       "tasks whose accesses the detector did not check: 2^32 - 1 or more past the launch's "
       "first (only then)",
       {}, {}, T::kNone, false, true},
      // ---- the runtime's overhead model (with --out; docs in sim/overhead_analysis.h)
      {"scheduler_overhead/makespan_us", U::kMicroseconds,
       "first core record start to last record end", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/window_us/start", U::kMicroseconds, "that window's start", {}, {},
       T::kNone, false, false},
      {"scheduler_overhead/window_us/end", U::kMicroseconds, "that window's end", {}, {},
       T::kNone, false, false},
      {"scheduler_overhead/overhead_us/aic", U::kMicroseconds,
       "time with an idle AIC (of those that ran anything) and a ready undispatched AIC or MIX "
       "task", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/overhead_us/aiv", U::kMicroseconds, "the same for AIV", {}, {},
       T::kNone, false, false},
      {"scheduler_overhead/overhead_us/all", U::kMicroseconds,
       "time every engine that ran anything was in overhead", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/overhead_us/has", U::kMicroseconds,
       "time every engine with ready work was in overhead", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/overhead_share/aic", U::kFraction, "overhead_us/aic over the window",
       {}, "overhead_share.aic", T::kNone, false, false},
      {"scheduler_overhead/overhead_share/aiv", U::kFraction, "overhead_us/aiv over the window",
       {}, "overhead_share.aiv", T::kNone, false, false},
      {"scheduler_overhead/overhead_share/all", U::kFraction, "overhead_us/all over the window",
       "overhead_share", "overhead_share.all", T::kOverheadWindow, false, false},
      {"scheduler_overhead/overhead_share/has", U::kFraction, "overhead_us/has over the window",
       {}, "overhead_share.has", T::kNone, false, false},
      {"scheduler_overhead/head_overhead_us/*/records", U::kCount,
       "per engine (`*` = aic, aiv, all): core records", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/head_overhead_us/*/total", U::kMicroseconds,
       "summed start - dispatch (or start - the core's previous end), clamped at 0", {}, {},
       T::kNone, false, false},
      {"scheduler_overhead/head_overhead_us/*/avg", U::kMicroseconds, "its mean per record", {},
       {}, T::kNone, false, false},
      {"scheduler_overhead/head_overhead_us/all/avg", U::kMicroseconds,
       "the mean head overhead over all records", {}, "head_overhead_avg_us", T::kNone, false,
       false},
      {"scheduler_overhead/head_overhead_us/*/max", U::kMicroseconds, "its largest", {}, {},
       T::kNone, false, false},
      {"scheduler_overhead/tail_overhead_us/*/records", U::kCount,
       "per engine (aic, aiv, all): core records", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/tail_overhead_us/*/total", U::kMicroseconds,
       "summed finish - end, clamped at 0", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/tail_overhead_us/*/avg", U::kMicroseconds, "its mean per record", {},
       {}, T::kNone, false, false},
      {"scheduler_overhead/tail_overhead_us/all/avg", U::kMicroseconds,
       "the mean tail overhead over all records", {}, "tail_overhead_avg_us", T::kNone, false,
       false},
      {"scheduler_overhead/tail_overhead_us/*/max", U::kMicroseconds, "its largest", {}, {},
       T::kNone, false, false},
      {"scheduler_overhead/aicore_switch/per_core/[]/core", U::kCount, "core id", {}, {},
       T::kNone, false, false},
      {"scheduler_overhead/aicore_switch/per_core/[]/name", U::kText, "core name", {}, {},
       T::kNone, false, false},
      {"scheduler_overhead/aicore_switch/per_core/[]/switches", U::kCount,
       "records dispatched before the core's previous record ended", {}, {}, T::kNone, false,
       false},
      {"scheduler_overhead/aicore_switch/per_core/[]/total_us", U::kMicroseconds,
       "their summed gaps [previous end, start]", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/aicore_switch/makespan_bound_us", U::kMicroseconds,
       "[min over cores, sum of per-engine minima] of the switch totals", {}, {}, T::kNone,
       false, false},
      {"scheduler_overhead/scheduler_loop/avg_ns_per_loop", U::kNanoseconds,
       "summed loop time, busy and idle, over summed loops (the runtime's definition)", {},
       "scheduler_loop_total_ns",
       T::kNone, false, false},
      {"scheduler_overhead/scheduler_loop/pop_hit", U::kCount, "ready-queue pops with a task",
       {}, "pop_hit", T::kNone, false, false},
      {"scheduler_overhead/scheduler_loop/pop_miss", U::kCount, "ready-queue pops without one",
       {}, "pop_miss", T::kNone, false, false},
      {"scheduler_overhead/scheduler_loop/per_thread/[]/thread", U::kCount, "thread index", {},
       {}, T::kNone, false, false},
      {"scheduler_overhead/scheduler_loop/per_thread/[]/loops", U::kCount,
       "the largest loop iteration number", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/scheduler_loop/per_thread/[]/total_us", U::kMicroseconds,
       "busy plus idle gaps over complete/dispatch phases", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/scheduler_loop/per_thread/[]/busy_us", U::kMicroseconds,
       "time in phases", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/scheduler_loop/per_thread/[]/idle_us", U::kMicroseconds,
       "gaps between phases", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/scheduler_loop/per_thread/[]/ns_per_loop", U::kNanoseconds,
       "total over loops", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/scheduler_loop/per_thread/[]/finishes", U::kCount,
       "completions it observed", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/scheduler_loop/per_thread/[]/pop_hit", U::kCount, "its pops with a task",
       {}, {}, T::kNone, false, false},
      {"scheduler_overhead/scheduler_loop/per_thread/[]/pop_miss", U::kCount, "its pops without",
       {}, {}, T::kNone, false, false},
      {"scheduler_overhead/critical_path/hops", U::kCount,
       "edges walked back from the latest-finishing task", {}, "critical_path.hops", T::kNone,
       false, false},
      {"scheduler_overhead/critical_path/hops_not_listed", U::kCount,
       "hops nearest the root left out of path (it lists the 1000 nearest the end; the sums "
       "cover every hop)", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/critical_path/span_us", U::kMicroseconds,
       "last finish minus earliest start on the path", {}, "critical_path.span_us", T::kNone,
       false, false},
      {"scheduler_overhead/critical_path/compute_us", U::kMicroseconds,
       "summed end - start of the path's tasks", {}, "critical_path.compute_us", T::kNone, false,
       false},
      {"scheduler_overhead/critical_path/injected_us", U::kMicroseconds,
       "summed start - producer end (the root: start - dispatch): scheduler-injected time",
       "critical_path_injected_us", "critical_path.injected_us", T::kSum, false, false},
      {"scheduler_overhead/critical_path/other_us", U::kMicroseconds,
       "the rest of the span (0 when the root's injected time, which precedes the span, "
       "exceeds it)", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/critical_path/unavailable", U::kText,
       "why the path is empty when its records could not be spooled (the run's other figures "
       "stand)", {}, {}, T::kNone, false, true},
      {"scheduler_overhead/critical_path/stopped_at", U::kText,
       "null: the walk reached a task without producers", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/critical_path/stopped_at/name", U::kText,
       "the path's first task, whose producer ran on no core, so the walk over core records "
       "stops there", {}, {}, T::kNone, false, true},
      {"scheduler_overhead/critical_path/stopped_at/task_id", U::kText, "its runtime task id",
       {}, {}, T::kNone, false, true},
      {"scheduler_overhead/critical_path/stopped_at/waits_on_name", U::kText,
       "that producer (a dummy, alloc or predicated-off task)", {}, {}, T::kNone, false, true},
      {"scheduler_overhead/critical_path/stopped_at/waits_on_id", U::kText,
       "its runtime task id", {}, {}, T::kNone, false, true},
      {"scheduler_overhead/critical_path/stopped_at/waits_on_shape", U::kText,
       "its shape (DUMMY, ALLOC, ...)", {}, {}, T::kNone, false, true},
      {"scheduler_overhead/critical_path/bound_pipe", U::kText,
       "the pipe with the most busy time summed over the path's tasks (null: none ran on pipes)",
       {}, {}, T::kNone, false, false},
      {"scheduler_overhead/critical_path/bound_pipe_share", U::kFraction,
       "that pipe's busy time over the path's tasks' op time (first op start to last op end, "
       "summed over blocks)", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/critical_path/path/[]/index", U::kCount, "task index in the launch", {},
       {}, T::kNone, false, false},
      {"scheduler_overhead/critical_path/path/[]/task_id", U::kText, "runtime task id", {}, {},
       T::kNone, false, false},
      {"scheduler_overhead/critical_path/path/[]/name", U::kText, "task name", {}, {}, T::kNone,
       false, false},
      {"scheduler_overhead/critical_path/path/[]/dispatch_us", U::kMicroseconds, "its dispatch",
       {}, {}, T::kNone, false, false},
      {"scheduler_overhead/critical_path/path/[]/start_us", U::kMicroseconds, "its start", {}, {},
       T::kNone, false, false},
      {"scheduler_overhead/critical_path/path/[]/end_us", U::kMicroseconds, "its end", {}, {},
       T::kNone, false, false},
      {"scheduler_overhead/critical_path/path/[]/finish_us", U::kMicroseconds, "its finish", {},
       {}, T::kNone, false, false},
      {"scheduler_overhead/critical_path/path/[]/compute_us", U::kMicroseconds, "end - start", {},
       {}, T::kNone, false, false},
      {"scheduler_overhead/critical_path/path/[]/injected_us", U::kMicroseconds,
       "start - its producer's end", {}, {}, T::kNone, false, false},
      {"scheduler_overhead/critical_path/path/[]/bound_pipe", U::kText,
       "its pipe with the most busy time over its blocks, or null", {}, {}, T::kNone, false,
       false},
      // ---- per-record arrays (with --out; not read by compare, sweep or regress)
      {"task_records", U::kCount, "one entry per retired task, in retirement order", {}, {},
       T::kNone, false, true},
      {"edge_records", U::kCount, "one entry per inferred dependency edge", {}, {}, T::kNone,
       false, true},
      {"core_intervals", U::kCount, "one entry per block on a core", {}, {}, T::kNone, false,
       true},
      {"engine_intervals", U::kCount, "one entry per busy stretch of an engine in a MIX block",
       {}, {}, T::kNone, false, true},
      {"task_records/[]/index", U::kCount, "task index in the launch", {}, {}, T::kNone, false,
       true},
      {"task_records/[]/seq", U::kCount, "run-wide sequence number", {}, {}, T::kNone, false,
       true},
      {"task_records/[]/task_id", U::kText, "runtime task id (ring << 32 | local id)", {}, {},
       T::kNone, false, true},
      {"task_records/[]/name", U::kText, "task name", {}, {}, T::kNone, false, true},
      {"task_records/[]/kind", U::kText, "AIC, AIV, MIX, DUMMY or ALLOC", {}, {}, T::kNone,
       false, true},
      {"task_records/[]/block_num", U::kCount, "blocks", {}, {}, T::kNone, false, true},
      {"task_records/[]/scope_depth", U::kCount, "scope depth at submit", {}, {}, T::kNone,
       false, true},
      {"task_records/[]/producers", U::kCount, "unique producers wired at submit", {}, {},
       T::kNone, false, true},
      {"task_records/[]/predicated_skip", U::kFlag, "its predicate was false", {}, {}, T::kNone,
       false, true},
      {"task_records/[]/core", U::kCount, "the first core that ran it (-1: none)", {}, {},
       T::kNone, false, true},
      {"task_records/[]/bound_pipe", U::kText,
       "its pipe with the most busy time over its blocks (null: it ran nothing on the pipes)", {},
       {}, T::kNone, false, true},
      {"task_records/[]/gm_read_bytes", U::kBytes,
       "GM bytes its blocks read: tile loads and scalar reads as issued (L2 hits included), or a "
       "cost summary's bytes_in",
       {}, {}, T::kNone, false, true},
      {"task_records/[]/gm_write_bytes", U::kBytes,
       "GM bytes its blocks wrote: stores, atomic adds and scalar writes, or a cost summary's "
       "bytes_out",
       {}, {}, T::kNone, false, true},
      {"task_records/[]/submit_us", U::kMicroseconds, "the orchestrator finished submitting it",
       {}, {}, T::kNone, false, true},
      {"task_records/[]/ready_us", U::kMicroseconds, "its last dependency was satisfied", {}, {},
       T::kNone, false, true},
      {"task_records/[]/dispatch_us", U::kMicroseconds, "its first block's dispatch write", {},
       {}, T::kNone, false, true},
      {"task_records/[]/start_us", U::kMicroseconds, "its first block started", {}, {},
       T::kNone, false, true},
      {"task_records/[]/end_us", U::kMicroseconds, "its last block ended", {}, {}, T::kNone,
       false, true},
      {"task_records/[]/finish_us", U::kMicroseconds, "a scheduler observed it done / retired",
       {}, {}, T::kNone, false, true},
      {"edge_records/[]/pred", U::kCount, "producer task index", {}, {}, T::kNone, false, true},
      {"edge_records/[]/succ", U::kCount, "consumer task index", {}, {}, T::kNone, false, true},
      {"edge_records/[]/source", U::kText, "creator, tensormap or explicit", {}, {}, T::kNone,
       false, true},
      {"edge_records/[]/arg", U::kCount, "the consumer's argument (-1: explicit)", {}, {},
       T::kNone, false, true},
      {"edge_records/[]/overlap", U::kText, "tensormap edges: covered or other", {}, {},
       T::kNone, false, true},
      {"core_intervals/[]", U::kMicroseconds,
       "[core, task seq, block, dispatch_us, receive_us, start_us, end_us] per block on a core",
       {}, {}, T::kNone, false, true},
      {"engine_intervals/[]", U::kMicroseconds,
       "[core, task seq, block, \"cube\" | \"vector\", start_us, end_us] inside MIX blocks", {},
       {}, T::kNone, false, true},
  };
  // clang-format on
  return *table;
}

}  // namespace

const std::vector<StatSpec>& StatsSchema() { return Table(); }

const StatSpec* FindStat(absl::string_view path) {
  static const auto* index = [] {
    auto* m = new absl::flat_hash_map<absl::string_view, const StatSpec*>();
    for (const StatSpec& s : Table()) m->emplace(s.path, &s);
    return m;
  }();
  auto it = index->find(path);
  return it == index->end() ? nullptr : it->second;
}

const StatSpec* FindMetric(absl::string_view name) {
  static const auto* index = [] {
    auto* m = new absl::flat_hash_map<absl::string_view, const StatSpec*>();
    for (const StatSpec& s : Table()) {
      if (!s.metric.empty()) m->emplace(s.metric, &s);
    }
    return m;
  }();
  auto it = index->find(name);
  return it == index->end() ? nullptr : it->second;
}

const std::vector<std::string>& StatMetricNames() {
  // sweep.csv's columns: times first, then shares, counts, checks.
  static const auto* names = [] {
    auto* out = new std::vector<std::string>();
    for (const char* name :
         {"makespan_us", "device_wall_us", "overhead_share", "critical_path_injected_us",
          "aic_busy_share", "aiv_busy_share", "orchestrator_busy_us", "scheduler_busy_us", "tasks",
          "task_dispatches", "block_dispatches", "predicated_skips", "early_dispatched_blocks",
          "hazards", "checks_passed", "checks_failed"}) {
      out->emplace_back(name);
    }
    return out;
  }();
  return *names;
}

double StatNumber(const nlohmann::json& launch, absl::string_view path) {
  const nlohmann::json* node = &launch;
  for (absl::string_view key : absl::StrSplit(path, '/')) {
    if (node->is_array()) {
      char* rest = nullptr;
      const std::string text(key);
      const unsigned long index = std::strtoul(text.c_str(), &rest, 10);
      if (text.empty() || *rest != '\0' || index >= node->size()) return NAN;
      node = &(*node)[index];
    } else {
      const std::string text(key);
      if (!node->is_object() || !node->contains(text)) return NAN;
      node = &(*node)[text];
    }
  }
  if (node->is_array()) return static_cast<double>(node->size());
  return node->is_number() ? node->get<double>() : NAN;
}

namespace {

const char* UnitName(StatUnit unit) {
  switch (unit) {
    case StatUnit::kMicroseconds:
      return "µs";
    case StatUnit::kNanoseconds:
      return "ns";
    case StatUnit::kCount:
      return "count";
    case StatUnit::kBytes:
      return "bytes";
    case StatUnit::kFraction:
      return "fraction";
    case StatUnit::kGigabytesPerSecond:
      return "GB/s";
    case StatUnit::kText:
      return "text";
    case StatUnit::kFlag:
      return "bool";
    case StatUnit::kValue:
      return "value";
  }
  return "";
}

void Leaves(const nlohmann::json& j, const std::string& path, std::vector<std::string>* out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      Leaves(*it, path.empty() ? it.key() : absl::StrCat(path, "/", it.key()), out);
    }
    return;
  }
  // An array of objects is walked per element; an array of scalars (or of
  // arrays of scalars, the interval records), or an empty one, is a leaf.
  if (j.is_array() && !j.empty() && j[0].is_object()) {
    for (const auto& element : j) Leaves(element, absl::StrCat(path, "/[]"), out);
    return;
  }
  if (j.is_array() && !j.empty() && j[0].is_array()) {
    out->push_back(absl::StrCat(path, "/[]"));
    return;
  }
  out->push_back(path);
}

}  // namespace

bool StatPathCovers(absl::string_view schema_path, absl::string_view leaf) {
  const std::vector<absl::string_view> want = absl::StrSplit(schema_path, '/');
  const std::vector<absl::string_view> have = absl::StrSplit(leaf, '/');
  if (want.size() != have.size()) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] != have[i] && !(want[i] == "*" && have[i] != "[]")) return false;
  }
  return true;
}

std::vector<std::string> StatLeafPaths(const nlohmann::json& stats) {
  std::vector<std::string> out;
  Leaves(stats, "", &out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string StatsMarkdownTable() {
  std::string out =
      "| key | unit | metric (`regress`, `sweep`) | `compare` row | meaning |\n"
      "| --- | --- | --- | --- | --- |\n";
  for (const StatSpec& s : Table()) {
    std::string meaning(s.meaning);
    if (s.total == StatTotal::kSum) absl::StrAppend(&meaning, "; summed over launches");
    if (s.total == StatTotal::kMakespanWeighted) {
      absl::StrAppend(&meaning, "; over launches weighted by makespan");
    }
    if (s.total == StatTotal::kOverheadWindow) {
      absl::StrAppend(&meaning, "; over launches: summed overhead over summed windows");
    }
    if (s.conditional) absl::StrAppend(&meaning, " (not in every run)");
    absl::StrAppend(&out, "| `", s.path, "` | ", UnitName(s.unit), " | ",
                    s.metric.empty() ? "" : absl::StrCat("`", s.metric, "`"), " | ",
                    s.compare.empty() ? "" : absl::StrCat("`", s.compare, "`"), " | ", meaning,
                    " |\n");
  }
  return out;
}

}  // namespace pto
