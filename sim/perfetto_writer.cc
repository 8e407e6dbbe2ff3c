#include "sim/perfetto_writer.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "sim/overhead_analysis.h"

namespace pto {
namespace {

constexpr int kOrchestratorPid = 1;
constexpr int kSchedulerPid = 2;
constexpr int kSchedulerViewPid = 3;
constexpr int kWorkerViewPid = 4;
constexpr int kGmPid = 5;
constexpr int kHbmTid = 5000;
constexpr TimePs kHbmWindowPs = 1'000'000;  // the HBM track's mean over 1 µs windows
constexpr int kOrchestratorTid = 4000;
constexpr int kQueueCounterTid = 3999;
constexpr TimePs kMarkerPs = 20000;  // 0.02 µs, the converter's marker width

int CoreTid(int core) { return 10000 + 10 * core; }
// The engine sub-lane under a core's lane (MIX blocks' cube or vector time).
int EngineTid(int core) { return CoreTid(core) + 1; }
// A pipe sub-track: core, pipe and the sub-track's index (a DMA pipe's
// transfers in flight together; below PipeLimits' 64).
int PipeTid(int core, int pipe, int lane) { return 1000000 + 1000 * core + 100 * pipe + lane; }
// Worker View sorts its tracks by tid, with room under each core's engine
// lane for its pipe sub-tracks.
constexpr int kWorkerSortScale = 1000;
int SchedTid(int thread) { return 30000 + 10 * thread; }
// A core's lane in the Worker or Scheduler View: sub-track 0 is the core's
// own track; the next dispatch slot's blocks, dispatched while the last one
// still runs, go below it.
int CoreLaneTid(int core, int lane) {
  return lane == 0 ? CoreTid(core) : 2000000 + 100 * core + lane;
}

// The lowest sub-track whose last bar ended by `start`, which then ends at
// `end`: bars on one sub-track never overlap.
size_t TakeLane(std::vector<TimePs>& ends, TimePs start, TimePs end) {
  size_t lane = 0;
  while (lane < ends.size() && ends[lane] > start) ++lane;
  if (lane == ends.size()) ends.push_back(0);
  ends[lane] = end;
  return lane;
}
int MarkerTid(int thread) { return 19000 + thread; }

std::string Quoted(const std::string& s) { return nlohmann::json(s).dump(); }

std::string Meta(const char* what, int pid, int tid, const std::string& args) {
  return absl::StrCat("{\"name\":\"", what, "\",\"ph\":\"M\",\"pid\":", pid, ",\"tid\":", tid,
                      ",\"args\":", args, "}");
}

}  // namespace

PerfettoWriter::PerfettoWriter(std::string dir, const OutputChip& chip, const LaunchLog* log,
                               bool overhead_counters)
    : dir_(std::move(dir)),
      chip_(chip),
      log_(log),
      overhead_counters_(overhead_counters),
      events_(absl::StrCat(dir_, "/.perfetto_events.tmp")),
      core_used_(chip.core_count(), false),
      hbm_(kHbmWindowPs, [this](TimePs at, double gb_per_s) {
        hbm_used_ = true;
        // 1 byte per ns is 1 GB/s.
        events_.Append(absl::StrCat("{\"name\":\"HBM bandwidth\",\"ph\":\"C\",\"pid\":", kGmPid,
                                    ",\"tid\":", kHbmTid, ",\"ts\":", FormatUs(at),
                                    ",\"args\":{\"GB/s\":", absl::StrFormat("%.3f", gb_per_s),
                                    "}}"));
      }) {}

void PerfettoWriter::OnHbmRate(TimePs at, double bytes_per_ns) { hbm_.Set(at, bytes_per_ns); }

absl::Status PerfettoWriter::Open() { return events_.Open(); }

void PerfettoWriter::Bar(int pid, int tid, const std::string& name_json, const char* cat,
                         TimePs start, TimePs end, const std::string& args) {
  line_ = absl::StrCat("{\"name\":", name_json, ",\"cat\":\"", cat, "\",\"ph\":\"X\",\"pid\":", pid,
                       ",\"tid\":", tid, ",\"ts\":", FormatUs(start),
                       ",\"dur\":", FormatUs(std::max<TimePs>(end - start, 0)), ",\"args\":", args,
                       "}");
  events_.Append(line_);
}

std::string PerfettoWriter::BarName(const LaunchLog::TaskInfo* info, uint64_t fallback_id) const {
  if (info == nullptr) return TaskLabel("task", fallback_id);
  std::string name = log_->name(*info);
  // The converter's rule: SPMD tasks get "_spmd" unless the name says so.
  if (info->block_num > 1 && !absl::StrContains(absl::AsciiStrToLower(name), "spmd")) {
    absl::StrAppend(&name, "_spmd");
  }
  return TaskLabel(name, info->runtime_id);
}

void PerfettoWriter::MarkThread(int thread) {
  thread = std::max(thread, 0);
  if (sched_thread_used_.size() <= static_cast<size_t>(thread)) {
    sched_thread_used_.resize(thread + 1, false);
  }
  sched_thread_used_[thread] = true;
}

void PerfettoWriter::OnTaskSubmitted(const Task& task, absl::Span<const DepEdge>, TimePs start,
                                     TimePs end) {
  orchestrator_used_ = true;
  const std::string args =
      absl::StrCat("{\"submit_idx\":", submit_idx_++, ",\"taskId\":\"", task.runtime_id, "\"}");
  Bar(kOrchestratorPid, kOrchestratorTid, Quoted(TaskLabel(task.name, task.runtime_id)),
      "orch_submit", start, end, args);
}

void PerfettoWriter::OnCoreInterval(const CoreInterval& c) {
  if (c.core < 0) return;
  if (static_cast<size_t>(c.core) >= core_used_.size()) core_used_.resize(c.core + 1, false);
  core_used_[c.core] = true;
  const LaunchLog::TaskInfo* info = log_ ? log_->Find(c.task) : nullptr;
  const uint64_t id = info ? info->runtime_id : 0;
  const std::string name = Quoted(BarName(info, id));
  const char* cat = info ? TaskShapeName(info->shape) : "task";
  if (static_cast<size_t>(c.core) >= core_lanes_.size()) core_lanes_.resize(c.core + 1);
  const size_t worker_lane = TakeLane(core_lanes_[c.core][0], c.receive, c.end);
  const size_t scheduler_lane = TakeLane(core_lanes_[c.core][1], c.dispatch, c.finish);
  Bar(kWorkerViewPid, CoreLaneTid(c.core, static_cast<int>(worker_lane)), name, cat, c.receive,
      c.end,
      absl::StrCat("{\"taskId\":\"", id, "\",\"block\":", c.block, ",\"reg_task_id\":",
                   c.reg_task_id, ",\"duration-us\":", FormatUs(c.end - c.receive),
                   ",\"kernel-duration-us\":", FormatUs(c.end - c.start),
                   ",\"local_setup_us\":", FormatUs(c.start - c.receive), "}"));
  Bar(kSchedulerViewPid, CoreLaneTid(c.core, static_cast<int>(scheduler_lane)), name, cat,
      c.dispatch, c.finish,
      absl::StrCat("{\"taskId\":\"", id, "\",\"dispatch-time-us\":", FormatUs(c.dispatch),
                   ",\"finish-time-us\":", FormatUs(c.finish),
                   ",\"aicpu-duration-us\":", FormatUs(c.finish - c.dispatch), "}"));
}

void PerfettoWriter::OnEngineBusy(const EngineInterval& e) {
  if (e.core < 0) return;
  if (static_cast<size_t>(e.core) >= engine_lane_used_.size()) {
    engine_lane_used_.resize(e.core + 1, false);
  }
  engine_lane_used_[e.core] = true;
  const LaunchLog::TaskInfo* info = log_ ? log_->Find(e.task) : nullptr;
  const uint64_t id = info ? info->runtime_id : 0;
  const char* engine = e.cube ? "cube" : "vector";
  Bar(kWorkerViewPid, EngineTid(e.core), Quoted(absl::StrCat(engine, ": ", BarName(info, id))),
      e.cube ? "mix_cube" : "mix_vector", e.start, e.end,
      absl::StrCat("{\"taskId\":\"", id, "\",\"block\":", e.block, ",\"engine\":\"", engine,
                   "\"}"));
}

void PerfettoWriter::OnPipeOps(const PipeSegment& segment) {
  if (segment.core < 0) return;
  if (static_cast<size_t>(segment.core) >= pipe_lanes_.size()) {
    pipe_lanes_.resize(segment.core + 1);
  }
  auto& lanes = pipe_lanes_[segment.core];
  const absl::Span<const PipeOpInterval> ops = segment.ops;
  // Greedy by start: each op takes the lowest sub-track free by then.
  pipe_order_.clear();
  for (uint32_t i = 0; i < ops.size(); ++i) {
    if (ops[i].end > ops[i].start) pipe_order_.push_back(i);
  }
  std::sort(pipe_order_.begin(), pipe_order_.end(), [&](uint32_t a, uint32_t b) {
    return std::make_pair(ops[a].start, a) < std::make_pair(ops[b].start, b);
  });
  const LaunchLog::TaskInfo* info = log_ ? log_->Find(segment.task) : nullptr;
  const uint64_t id = info ? info->runtime_id : 0;
  for (uint32_t i : pipe_order_) {
    const PipeOpInterval& op = ops[i];
    const size_t lane = TakeLane(lanes[static_cast<int>(op.pipe)], op.start, op.end);
    Bar(kWorkerViewPid, PipeTid(segment.core, static_cast<int>(op.pipe), static_cast<int>(lane)),
        Quoted(trace::Op::Kind_Name(op.kind)), "pipe", op.start, op.end,
        absl::StrCat("{\"taskId\":\"", id, "\",\"block\":", segment.block, ",\"op\":", op.op,
                     ",\"pipe\":\"", PipeName(op.pipe), "\"}"));
  }
}

void PerfettoWriter::OnSchedulerPhase(const SchedulerPhase& p) {
  MarkThread(p.thread);
  std::string args =
      absl::StrCat("{\"loop_iter\":", p.loop_iter, ",\"tasks_processed\":", p.tasks_processed);
  if (p.kind == SchedulerPhaseKind::kDispatch) {
    absl::StrAppend(&args, ",\"pop_hit\":", p.pop_hit, ",\"pop_miss\":", p.pop_miss);
  }
  args += "}";
  Bar(kSchedulerPid, SchedTid(std::max(p.thread, 0)), Quoted(SchedulerPhaseName(p.kind)), "phase",
      p.start, p.end, args);
  if (p.kind == SchedulerPhaseKind::kDispatch) {
    queue_counter_used_ = true;
    line_ =
        absl::StrCat("{\"name\":\"shared_ready_queue\",\"ph\":\"C\",\"pid\":", kSchedulerPid,
                     ",\"tid\":", kQueueCounterTid, ",\"ts\":", FormatUs(p.start),
                     ",\"args\":{\"AIC\":", p.shared_at_start[0], ",\"AIV\":", p.shared_at_start[1],
                     ",\"MIX\":", p.shared_at_start[2], "}}");
    events_.Append(line_);
  }
}

void PerfettoWriter::OnInlineRetire(int thread, const Task& task, TimePs at) {
  thread = std::max(thread, 0);
  if (marker_thread_used_.size() <= static_cast<size_t>(thread)) {
    marker_thread_used_.resize(thread + 1, false);
  }
  marker_thread_used_[thread] = true;
  const char* kind = task.predicated_skip ? "predicated_skip" : "dummy_task";
  Bar(kWorkerViewPid, MarkerTid(thread),
      Quoted(absl::StrCat(kind, ": ", TaskLabel(task.name, task.runtime_id))), kind, at,
      at + kMarkerPs, absl::StrCat("{\"taskId\":\"", task.runtime_id, "\"}"));
}

void PerfettoWriter::AddOverheadCounters() {
  struct Series {
    const char* name;
    int tid;
    int64_t last = -1;
  };
  Series series[8] = {{"oh_aic_idle", 9101},     {"oh_aic_ready", 9102},
                      {"oh_aic_overhead", 9103}, {"oh_aiv_idle", 9111},
                      {"oh_aiv_ready", 9112},    {"oh_aiv_overhead", 9113},
                      {"oh_all_overhead", 9121}, {"oh_has_overhead", 9122}};
  auto sample = [&](Series& s, TimePs at, int64_t value) {
    if (value == s.last) return;
    s.last = value;
    events_.Append(absl::StrCat("{\"name\":\"", s.name, "\",\"ph\":\"C\",\"pid\":", kSchedulerPid,
                                ",\"tid\":", s.tid, ",\"ts\":", FormatUs(at),
                                ",\"args\":{\"value\":", value, "}}"));
  };
  TimePs last_to = kNever;
  bool present[2] = {false, false};
  SweepOverheadStates(*log_, chip_, [&](TimePs from, TimePs to, const OverheadState& state) {
    for (int e = 0; e < 2; ++e) {
      present[e] = state.present[e];
      if (!state.present[e]) continue;
      sample(series[3 * e], from, state.idle_cores[e]);
      sample(series[3 * e + 1], from, state.ready_tasks[e]);
      sample(series[3 * e + 2], from, state.overhead[e]);
    }
    sample(series[6], from, state.all);
    sample(series[7], from, state.has);
    last_to = to;
  });
  if (last_to == kNever) return;
  // Close the series at the end of the window.
  for (int e = 0; e < 2; ++e) {
    if (!present[e]) continue;
    sample(series[3 * e + 1], last_to, 0);
    sample(series[3 * e + 2], last_to, 0);
  }
  sample(series[6], last_to, 0);
  sample(series[7], last_to, 0);
}

absl::Status PerfettoWriter::Finalize() {
  if (overhead_counters_ && log_ != nullptr) AddOverheadCounters();
  hbm_.Finish();
  if (hbm_used_) {
    events_.Append(Meta("process_name", kGmPid, 0, "{\"name\":\"GM\"}"));
    events_.Append(
        Meta("process_sort_index", kGmPid, 0, absl::StrCat("{\"sort_index\":", kGmPid, "}")));
    events_.Append(Meta("thread_name", kGmPid, kHbmTid, "{\"name\":\"HBM bandwidth (GB/s)\"}"));
  }
  // Process and thread names, then flows, after the streamed bars.
  const std::pair<int, const char*> processes[] = {{kOrchestratorPid, "AICPU Orchestrator"},
                                                   {kSchedulerPid, "AICPU Scheduler"},
                                                   {kSchedulerViewPid, "Scheduler View"},
                                                   {kWorkerViewPid, "Worker View"}};
  for (const auto& [pid, name] : processes) {
    events_.Append(Meta("process_name", pid, 0, absl::StrCat("{\"name\":\"", name, "\"}")));
    events_.Append(Meta("process_sort_index", pid, 0, absl::StrCat("{\"sort_index\":", pid, "}")));
  }
  auto thread_name = [&](int pid, int tid, const std::string& name, int64_t sort = -1) {
    if (sort < 0) sort = pid == kWorkerViewPid ? int64_t{tid} * kWorkerSortScale : tid;
    events_.Append(Meta("thread_name", pid, tid, absl::StrCat("{\"name\":", Quoted(name), "}")));
    events_.Append(
        Meta("thread_sort_index", pid, tid, absl::StrCat("{\"sort_index\":", sort, "}")));
  };
  if (orchestrator_used_) thread_name(kOrchestratorPid, kOrchestratorTid, "Orch_0");
  for (size_t t = 0; t < sched_thread_used_.size(); ++t) {
    if (sched_thread_used_[t]) thread_name(kSchedulerPid, SchedTid(t), absl::StrCat("Sched_", t));
  }
  if (queue_counter_used_) {
    thread_name(kSchedulerPid, kQueueCounterTid, "shared_ready_queue (global)");
  }
  for (size_t core = 0; core < core_used_.size(); ++core) {
    if (!core_used_[core]) continue;
    // Each view's dispatch-slot sub-tracks right under the core's own.
    const int pids[2] = {kWorkerViewPid, kSchedulerViewPid};
    for (int view = 0; view < 2; ++view) {
      const size_t lanes = core < core_lanes_.size() ? core_lanes_[core][view].size() : 1;
      for (size_t lane = 0; lane < std::max<size_t>(lanes, 1); ++lane) {
        const int64_t base = pids[view] == kWorkerViewPid
                                 ? int64_t{CoreTid(static_cast<int>(core))} * kWorkerSortScale
                                 : int64_t{CoreTid(static_cast<int>(core))} * 100;
        std::string name = chip_.CoreName(core);
        if (lane > 0) absl::StrAppend(&name, " #", lane);
        thread_name(pids[view], CoreLaneTid(static_cast<int>(core), static_cast<int>(lane)), name,
                    base + static_cast<int64_t>(lane));
      }
    }
    if (core < engine_lane_used_.size() && engine_lane_used_[core]) {
      thread_name(kWorkerViewPid, EngineTid(core), absl::StrCat(chip_.CoreName(core), " engine"));
    }
  }
  // Pipe sub-tracks, in Pipe order under their core's lanes.
  for (size_t core = 0; core < pipe_lanes_.size(); ++core) {
    int64_t sort = int64_t{EngineTid(static_cast<int>(core))} * kWorkerSortScale;
    for (int p = 0; p < kPipeCount; ++p) {
      const size_t lanes = pipe_lanes_[core][p].size();
      for (size_t lane = 0; lane < lanes; ++lane) {
        std::string name = absl::StrCat(chip_.CoreName(static_cast<int>(core)), " ",
                                        PipeName(static_cast<Pipe>(p)));
        if (lanes > 1) absl::StrAppend(&name, " #", lane);
        thread_name(kWorkerViewPid, PipeTid(static_cast<int>(core), p, static_cast<int>(lane)),
                    name, ++sort);
      }
    }
  }
  for (size_t t = 0; t < marker_thread_used_.size(); ++t) {
    if (marker_thread_used_[t])
      thread_name(kWorkerViewPid, MarkerTid(t), absl::StrCat("AICPU_", t));
  }
  if (log_ != nullptr) {
    uint64_t flow_id = 0;
    for (size_t succ = 0; succ < log_->task_count(); ++succ) {
      const LaunchLog::TaskInfo& s = log_->task(succ);
      if (!s.ran()) continue;
      for (uint32_t pred : log_->producers(succ)) {
        const LaunchLog::TaskInfo& p = log_->task(pred);
        if (!p.ran()) continue;
        const char* name = p.end > s.start ? "hb_violation" : "dependency";
        ++flow_id;
        events_.Append(absl::StrCat(
            "{\"name\":\"", name, "\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":", flow_id,
            ",\"bind_id\":", flow_id, ",\"pid\":", kWorkerViewPid,
            ",\"tid\":", CoreTid(p.anchor_core), ",\"ts\":", FormatUs(p.receive), "}"));
        events_.Append(absl::StrCat(
            "{\"name\":\"", name, "\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\",\"id\":", flow_id,
            ",\"bind_id\":", flow_id, ",\"pid\":", kWorkerViewPid,
            ",\"tid\":", CoreTid(s.anchor_core), ",\"ts\":", FormatUs(s.receive), "}"));
      }
    }
  }
  AtomicFile file(absl::StrCat(dir_, "/perfetto.json"));
  if (absl::Status s = file.Open(); !s.ok()) return s;
  file.out() << "{\"displayTimeUnit\": \"ns\",\n\"traceEvents\": ";
  if (absl::Status s = events_.SpliceInto(file.out()); !s.ok()) return s;
  file.out() << "}\n";
  return file.Commit();
}

}  // namespace pto
