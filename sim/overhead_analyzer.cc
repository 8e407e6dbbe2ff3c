#include "sim/overhead_analyzer.h"

#include <unistd.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <tuple>

#include "sim/pipe_stats.h"

namespace pto {
namespace {

using Json = nlohmann::json;

constexpr const char* kEngineNames[] = {"aic", "aiv"};

Json PipeJson(std::optional<Pipe> pipe) {
  return pipe ? Json(std::string(PipeName(*pipe))) : Json(nullptr);
}

}  // namespace

void OverheadAnalyzer::Stat::Add(TimePs v) {
  ++records;
  total += v;
  max = std::max(max, v);
}

Json OverheadAnalyzer::Stat::ToJson() const {
  return {{"records", records},
          {"total", PsToUs(total)},
          {"avg", records ? PsToUs(total) / records : 0.0},
          {"max", PsToUs(max)}};
}

OverheadAnalyzer::OverheadAnalyzer(const OutputChip& chip) : chip_(chip) {
  spool_ = std::tmpfile();
  spool_failed_ = spool_ == nullptr;
  spool_fd_ = spool_ == nullptr ? -1 : fileno(spool_);
}

OverheadAnalyzer::~OverheadAnalyzer() {
  if (spool_ != nullptr) std::fclose(spool_);
}

OverheadAnalyzer::Live& OverheadAnalyzer::LiveTasks::Add(TaskSeq seq) {
  if (size_ == 0) oldest_ = seq;
  // Room for the span oldest_..seq: double, placing the live ones again.
  while (seq - oldest_ >= ring_.size()) {
    std::vector<Slot> grown(ring_.size() * 2);
    for (TaskSeq s = oldest_; s < next_; ++s) {
      Slot& slot = ring_[s & (ring_.size() - 1)];
      if (slot.used) grown[s & (grown.size() - 1)] = std::move(slot);
    }
    ring_.swap(grown);
  }
  Slot& slot = ring_[seq & (ring_.size() - 1)];
  slot.used = true;
  slot.task = Live();
  next_ = seq + 1;
  ++size_;
  return slot.task;
}

void OverheadAnalyzer::LiveTasks::Erase(TaskSeq seq) {
  if (Find(seq) == nullptr) return;
  ring_[seq & (ring_.size() - 1)].used = false;
  --size_;
  while (size_ > 0 && !ring_[oldest_ & (ring_.size() - 1)].used) ++oldest_;
}

std::vector<TaskSeq> OverheadAnalyzer::LiveTasks::Sequences() const {
  std::vector<TaskSeq> out;
  if (size_ == 0) return out;
  for (TaskSeq s = oldest_; s < next_; ++s) {
    if (ring_[s & (ring_.size() - 1)].used) out.push_back(s);
  }
  return out;
}

uint32_t OverheadAnalyzer::Intern(const std::string& name) {
  // Tasks come in runs of one kernel.
  if (!names_.empty() && names_[last_name_] == name) return last_name_;
  auto [it, inserted] = name_ids_.try_emplace(name, static_cast<uint32_t>(names_.size()));
  if (inserted) names_.push_back(name);
  last_name_ = it->second;
  return it->second;
}

void OverheadAnalyzer::AddTask(TaskSeq seq, uint64_t index, uint64_t runtime_id,
                               const std::string& name, TaskShape shape,
                               absl::Span<const TaskSeq> producers, TimePs submit_start) {
  Live& task = live_.Add(seq);
  task.index = index;
  task.runtime_id = runtime_id;
  task.name_id = Intern(name);
  task.shape = shape;
  task.submit_start = submit_start;
  for (TaskSeq p : producers) {
    Live* producer = live_.Find(p);
    if (producer == nullptr) continue;  // retired: ordered before, never gating
    task.producers.push_back(p);
    ++producer->consumers_open;
  }
  // A task never seen submitting (a LaunchLog's placeholder) bounds from 0:
  // kNever here would read as "no bound".
  submits_.emplace_back(submit_start == kNever ? 0 : submit_start, seq);
}

void OverheadAnalyzer::AddInterval(const CoreInterval& c) {
  const Engine e = EngineOf(c.core);
  window_start_ = window_start_ == kNever ? c.start : std::min(window_start_, c.start);
  window_end_ = window_end_ == kNever ? c.end : std::max(window_end_, c.end);
  present_[e] = true;
  if (c.core >= 0) {
    if (core_seen_.size() <= static_cast<size_t>(c.core)) core_seen_.resize(c.core + 1, false);
    if (!core_seen_[c.core]) {
      core_seen_[c.core] = true;
      ++cores_[e];
    }
  }
  if (c.end > c.start) {
    PushEvent({c.start, static_cast<int8_t>(e), 1, 0});
    PushEvent({c.end, static_cast<int8_t>(e), -1, 0});
  }
  if (c.core >= 0) {
    if (cores_state_.size() <= static_cast<size_t>(c.core)) cores_state_.resize(c.core + 1);
    CoreState& core = cores_state_[c.core];
    core.seen = true;
    // After every record that sorts before it or equal (arrival order).
    const auto key = [](const CoreInterval& r) { return std::tie(r.start, r.end, r.dispatch); };
    auto at = core.pending.end();
    while (at != core.pending.begin() && key(c) < key(*(at - 1))) --at;
    core.pending.insert(at, c);
  }
  Live* found = live_.Find(c.task);
  if (found == nullptr) return;
  Live& task = *found;
  auto min_time = [](TimePs& slot, TimePs t) {
    if (slot == kNever || t < slot) slot = t;
  };
  min_time(task.dispatch, c.dispatch);
  min_time(task.start, c.start);
  task.end = task.end == kNever ? c.end : std::max(task.end, c.end);
  task.finish = task.finish == kNever ? c.finish : std::max(task.finish, c.finish);
}

void OverheadAnalyzer::AddPipeTime(TaskSeq seq, const PipeTimes& busy, TimePs span) {
  Live* task = live_.Find(seq);
  if (task == nullptr) return;
  for (int p = 0; p < kPipeCount; ++p) task->pipe_busy[p] += busy[p];
  task->pipe_span += span;
}

void OverheadAnalyzer::AddPhase(const SchedulerPhase& phase) {
  LaunchLog::AccumulatePhase(phase, &threads_);
}

void OverheadAnalyzer::CompleteTask(TaskSeq seq) {
  Live* found = live_.Find(seq);
  if (found == nullptr || found->complete) return;
  Live& task = *found;
  task.complete = true;
  // Its producers are complete: the gating one (the latest end among those
  // that ran; ties: the larger runtime id) is final, and so is the first
  // (by launch index) that ran on no core.
  const Live* gating = nullptr;
  const Live* unran = nullptr;
  producers_.clear();
  for (TaskSeq p : task.producers) {
    Live* found_producer = live_.Find(p);
    if (found_producer == nullptr) continue;
    Live& producer = *found_producer;
    producers_.emplace_back(p, &producer);
    --producer.consumers_open;
    if (!producer.ran()) {
      if (unran == nullptr || producer.index < unran->index) unran = &producer;
    } else if (gating == nullptr || std::make_pair(producer.end, producer.runtime_id) >
                                        std::make_pair(gating->end, gating->runtime_id)) {
      gating = &producer;
    }
  }
  if (task.ran()) {
    // Waiting from its gating producer's end to its dispatch, on each
    // engine it counts for (a MIX task on both).
    const TimePs ready = gating != nullptr ? gating->end : task.dispatch;
    if (task.dispatch > ready) {
      for (int e = 0; e < kEngines; ++e) {
        if (!WaitsOnEngine(task.shape, e == kAiv)) continue;
        PushEvent({ready, static_cast<int8_t>(e), 0, 1});
        PushEvent({task.dispatch, static_cast<int8_t>(e), 0, -1});
      }
    }
    PathRecord record;
    record.gating = gating != nullptr ? static_cast<int64_t>(gating->index) : -1;
    record.runtime_id = task.runtime_id;
    record.name_id = task.name_id;
    record.dispatch = task.dispatch;
    record.start = task.start;
    record.end = task.end;
    record.finish = task.finish;
    record.pipe_busy = task.pipe_busy;
    record.pipe_span = task.pipe_span;
    if (unran != nullptr) {
      record.has_unran = true;
      record.unran_shape = unran->shape;
      record.unran_name_id = unran->name_id;
      record.unran_runtime_id = unran->runtime_id;
    }
    WriteRecord(task.index, record);
    const auto index = static_cast<int64_t>(task.index);
    if (sink_ < 0 || task.finish > sink_finish_ || (task.finish == sink_finish_ && index < sink_)) {
      sink_ = index;
      sink_finish_ = task.finish;
    }
    PushBound({task.end, seq, true});  // a later consumer may be ready at it
  }
  // Producers no open consumer needs any more, and the task itself.
  for (const auto& [p, producer] : producers_) MaybeDrop(p, *producer);
  MaybeDrop(seq, task);
  Advance();
}

void OverheadAnalyzer::RetireTask(TaskSeq seq) {
  Live* task = live_.Find(seq);
  if (task == nullptr) return;
  task->retired = true;
  MaybeDrop(seq, *task);
  Advance();
}

void OverheadAnalyzer::MaybeDrop(TaskSeq seq, const Live& task) {
  if (!task.complete || !task.retired || task.consumers_open > 0) return;
  live_.Erase(seq);  // its bounds go stale
}

void OverheadAnalyzer::PushBound(const Bound& bound) {
  ends_.push_back(bound);
  std::push_heap(ends_.begin(), ends_.end(), std::greater<Bound>());
}

void OverheadAnalyzer::PushEvent(const Event& event) {
  timeline_.push_back(event);
  std::push_heap(timeline_.begin(), timeline_.end(), std::greater<Event>());
}

TimePs OverheadAnalyzer::Horizon() {
  // Submission starts grow with submission order, but a task can complete
  // before older ones: skip the complete ones at the front.
  while (!submits_.empty()) {
    const Live* task = live_.Find(submits_.front().second);
    if (task != nullptr && !task->complete) break;
    submits_.pop_front();
  }
  while (!ends_.empty()) {
    const Live* task = live_.Find(ends_.front().seq);
    if (task != nullptr && task->complete && task->ran()) break;
    std::pop_heap(ends_.begin(), ends_.end(), std::greater<Bound>());
    ends_.pop_back();
  }
  TimePs horizon = kNever;
  if (!submits_.empty()) horizon = submits_.front().first;
  if (!ends_.empty() && (horizon == kNever || ends_.front().at < horizon)) {
    horizon = ends_.front().at;
  }
  return horizon;
}

void OverheadAnalyzer::Advance() {
  // In batches: what is final stays final, so sweeping less often changes
  // nothing but the memory held in between.
  if (++since_advance_ < kAdvanceEvery) return;
  since_advance_ = 0;
  const TimePs horizon = Horizon();
  Sweep(horizon);
  WalkCores(horizon);
}

void OverheadAnalyzer::Sweep(TimePs before) {
  // kNever stands for no bound: with nothing open, every event is final.
  while (!timeline_.empty() && (before == kNever || timeline_.front().at < before)) {
    const Event event = timeline_.front();
    std::pop_heap(timeline_.begin(), timeline_.end(), std::greater<Event>());
    timeline_.pop_back();
    if (swept_any_ && window_start_ != kNever) {
      const TimePs from = std::max(swept_at_, window_start_);
      if (event.at > from) {
        histogram_[StateKey(running_[kAic], waiting_[kAic] > 0, running_[kAiv],
                            waiting_[kAiv] > 0)] += event.at - from;
      }
    }
    running_[event.engine] += event.running;
    waiting_[event.engine] += event.waiting;
    swept_any_ = true;
    swept_at_ = event.at;
  }
}

void OverheadAnalyzer::WalkCores(TimePs before) {
  for (size_t core = 0; core < cores_state_.size(); ++core) {
    CoreState& state = cores_state_[core];
    const Engine e = EngineOf(static_cast<int>(core));
    while (!state.pending.empty() && (before == kNever || state.pending.front().start < before)) {
      const CoreInterval c = state.pending.front();
      state.pending.pop_front();
      TimePs h = c.start - c.dispatch;
      if (state.has_prev) h = std::min(h, c.start - state.prev_end);
      for (int slot : {static_cast<int>(e), static_cast<int>(kEngines)}) {
        head_[slot].Add(std::max<TimePs>(h, 0));
        tail_[slot].Add(std::max<TimePs>(c.finish - c.end, 0));
      }
      if (state.has_prev) {
        // Clamped to the window, as the tool does: a no-op here, since the
        // window spans every record.
        const TimePs gap = c.start - state.prev_end;
        if (gap > 0 && c.dispatch < state.prev_end) {
          ++state.switches;
          state.switched += gap;
        }
      }
      state.has_prev = true;
      state.prev_end = c.end;
    }
  }
}

void OverheadAnalyzer::WriteRecord(uint64_t index, const PathRecord& record) {
  // Tasks complete nearly in index order: records wait here and go out as
  // runs of consecutive indices, a write each.
  unwritten_.emplace_back(index, record);
  if (unwritten_.size() >= kSpoolBatch) FlushRecords();
}

void OverheadAnalyzer::FlushRecords() {
  std::sort(unwritten_.begin(), unwritten_.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<PathRecord> run;
  for (size_t i = 0; i < unwritten_.size();) {
    const uint64_t first = unwritten_[i].first;
    run.clear();
    while (i < unwritten_.size() && unwritten_[i].first == first + run.size()) {
      run.push_back(unwritten_[i++].second);
    }
    const size_t bytes = run.size() * sizeof(PathRecord);
    if (!spool_failed_ &&
        pwrite(spool_fd_, run.data(), bytes, static_cast<off_t>(first * sizeof(PathRecord))) !=
            static_cast<ssize_t>(bytes)) {
      spool_failed_ = true;
    }
  }
  unwritten_.clear();
}

bool OverheadAnalyzer::ReadRecord(uint64_t index, PathRecord* record) const {
  if (spool_failed_) return false;
  return pread(spool_fd_, record, sizeof(*record),
               static_cast<off_t>(index * sizeof(PathRecord))) ==
         static_cast<ssize_t>(sizeof(*record));
}

Json OverheadAnalyzer::Finish() {
  std::vector<TaskSeq> open;
  for (TaskSeq seq : live_.Sequences()) {
    if (!live_.Find(seq)->complete) open.push_back(seq);
  }
  for (TaskSeq seq : open) CompleteTask(seq);
  submits_.clear();
  ends_.clear();
  Sweep(kNever);
  WalkCores(kNever);
  FlushRecords();

  const TimePs w0 = window_start_ == kNever ? 0 : window_start_;
  const TimePs w1 = window_end_ == kNever ? 0 : window_end_;
  const TimePs makespan = w1 - w0;
  Json out;
  out["makespan_us"] = PsToUs(makespan);
  out["window_us"] = {{"start", PsToUs(w0)}, {"end", PsToUs(w1)}};

  // Part 1: overhead shares, from the time spent in each state.
  TimePs engine_time[kEngines] = {0, 0}, all_time = 0, has_time = 0;
  for (const auto& [state, time] : histogram_) {
    const int running[kEngines] = {static_cast<int>(state >> 34),
                                   static_cast<int>(state >> 1 & 0xffffffffu)};
    const bool waiting[kEngines] = {(state >> 33 & 1) != 0, (state & 1) != 0};
    bool all = true, any_present = false, any_work = false, has = true;
    for (int e = 0; e < kEngines; ++e) {
      if (!present_[e]) continue;  // its tasks never count as waiting
      const bool idle = cores_[e] - running[e] > 0;
      const bool overhead = idle && waiting[e];
      if (overhead) engine_time[e] += time;
      any_present = true;
      all = all && overhead;
      if (waiting[e]) {
        any_work = true;
        has = has && idle;
      }
    }
    if (any_present && all) all_time += time;
    if (any_work && has) has_time += time;
  }
  auto share = [makespan](TimePs t) {
    return makespan > 0 ? static_cast<double>(t) / static_cast<double>(makespan) : 0.0;
  };
  out["overhead_us"] = {{"aic", PsToUs(engine_time[kAic])},
                        {"aiv", PsToUs(engine_time[kAiv])},
                        {"all", PsToUs(all_time)},
                        {"has", PsToUs(has_time)}};
  out["overhead_share"] = {{"aic", share(engine_time[kAic])},
                           {"aiv", share(engine_time[kAiv])},
                           {"all", share(all_time)},
                           {"has", share(has_time)}};

  // Parts 2-4: head, tail and switches.
  Json per_core = Json::array();
  TimePs min_all = kNever, min_engine[kEngines] = {kNever, kNever};
  for (size_t core = 0; core < cores_state_.size(); ++core) {
    const CoreState& state = cores_state_[core];
    if (!state.seen) continue;
    const Engine e = EngineOf(static_cast<int>(core));
    per_core.push_back({{"core", core},
                        {"name", chip_.CoreName(static_cast<int>(core))},
                        {"switches", state.switches},
                        {"total_us", PsToUs(state.switched)}});
    if (min_all == kNever || state.switched < min_all) min_all = state.switched;
    if (min_engine[e] == kNever || state.switched < min_engine[e]) min_engine[e] = state.switched;
  }
  Json head_json, tail_json;
  for (int e = 0; e <= kEngines; ++e) {
    const char* key = e == kEngines ? "all" : kEngineNames[e];
    head_json[key] = head_[e].ToJson();
    tail_json[key] = tail_[e].ToJson();
  }
  out["head_overhead_us"] = std::move(head_json);
  out["tail_overhead_us"] = std::move(tail_json);
  TimePs upper = 0;
  for (TimePs m : min_engine) upper += m == kNever ? 0 : m;
  out["aicore_switch"] = {
      {"per_core", std::move(per_core)},
      {"makespan_bound_us", {PsToUs(min_all == kNever ? 0 : min_all), PsToUs(upper)}}};

  // Part 5: scheduler loop budget.
  Json threads = Json::array();
  uint64_t hits = 0, misses = 0, loops_total = 0;
  TimePs time_total = 0;
  for (size_t t = 0; t < threads_.size(); ++t) {
    const LaunchLog::ThreadLoops& l = threads_[t];
    if (l.records == 0) continue;
    const TimePs total = l.busy + l.idle;
    hits += l.pop_hit;
    misses += l.pop_miss;
    loops_total += l.max_iter;
    time_total += total;
    threads.push_back(
        {{"thread", t},
         {"loops", l.max_iter},
         {"total_us", PsToUs(total)},
         {"busy_us", PsToUs(l.busy)},
         {"idle_us", PsToUs(l.idle)},
         {"ns_per_loop", l.max_iter ? static_cast<double>(total) / 1000.0 / l.max_iter : 0.0},
         {"finishes", l.finishes},
         {"pop_hit", l.pop_hit},
         {"pop_miss", l.pop_miss}});
  }
  out["scheduler_loop"] = {
      {"per_thread", std::move(threads)},
      {"avg_ns_per_loop",
       loops_total ? static_cast<double>(time_total) / 1000.0 / loops_total : 0.0},
      {"pop_hit", hits},
      {"pop_miss", misses}};

  // Part 6: the critical path, read back from the spool from the sink to
  // the root. The sums need no more than the hop after; the listing keeps
  // the kMaxListedHops nearest the sink.
  std::deque<Json> hops;
  int64_t hop_count = 0;
  TimePs compute = 0, injected = 0, path_start = kNever;
  PipeTimes path_busy{};
  TimePs path_span = 0;
  PathRecord later;  // the hop after the current one
  int64_t later_index = -1;
  auto hop_json = [this](int64_t index, const PathRecord& t, TimePs hop_injected) {
    const std::optional<Pipe> hop_bound =
        t.pipe_span > 0 ? BoundingPipe(t.pipe_busy) : std::optional<Pipe>();
    return Json{{"index", index},
                {"bound_pipe", PipeJson(hop_bound)},
                {"task_id", std::to_string(t.runtime_id)},
                {"name", names_[t.name_id]},
                {"dispatch_us", PsToUs(t.dispatch)},
                {"start_us", PsToUs(t.start)},
                {"end_us", PsToUs(t.end)},
                {"finish_us", PsToUs(t.finish)},
                {"compute_us", PsToUs(std::max<TimePs>(t.end - t.start, 0))},
                {"injected_us", PsToUs(hop_injected)}};
  };
  for (int64_t cur = sink_; cur >= 0;) {
    PathRecord record;
    if (!ReadRecord(static_cast<uint64_t>(cur), &record)) break;
    ++hop_count;
    compute += std::max<TimePs>(record.end - record.start, 0);
    if (path_start == kNever || record.start < path_start) path_start = record.start;
    if (record.pipe_span > 0) {
      for (int p = 0; p < kPipeCount; ++p) path_busy[p] += record.pipe_busy[p];
      path_span += record.pipe_span;
    }
    if (later_index >= 0) {
      // The later hop waited from this one's end.
      const TimePs wait = std::max<TimePs>(later.start - record.end, 0);
      injected += wait;
      if (hops.size() < kMaxListedHops) hops.push_front(hop_json(later_index, later, wait));
    }
    later = record;
    later_index = cur;
    cur = record.gating;
  }
  Json stopped = nullptr;
  if (later_index >= 0) {
    // The root waited from its own dispatch.
    const TimePs wait = std::max<TimePs>(later.start - later.dispatch, 0);
    injected += wait;
    if (hops.size() < kMaxListedHops) hops.push_front(hop_json(later_index, later, wait));
    if (later.has_unran) {
      stopped = {{"task_id", std::to_string(later.runtime_id)},
                 {"name", names_[later.name_id]},
                 {"waits_on_id", std::to_string(later.unran_runtime_id)},
                 {"waits_on_name", names_[later.unran_name_id]},
                 {"waits_on_shape", TaskShapeName(later.unran_shape)}};
    }
  }
  Json path = Json::array();
  for (Json& hop : hops) path.push_back(std::move(hop));
  const TimePs span = sink_ < 0 ? 0 : sink_finish_ - path_start;
  const std::optional<Pipe> bound = BoundingPipe(path_busy);
  out["critical_path"] = {
      {"hops", hop_count == 0 ? 0 : hop_count - 1},
      {"hops_not_listed", hop_count - static_cast<int64_t>(hops.size())},
      {"bound_pipe", PipeJson(bound)},
      {"bound_pipe_share", bound ? static_cast<double>(path_busy[static_cast<int>(*bound)]) /
                                       static_cast<double>(path_span)
                                 : 0.0},
      {"span_us", PsToUs(span)},
      {"compute_us", PsToUs(compute)},
      {"injected_us", PsToUs(injected)},
      {"other_us", PsToUs(std::max<TimePs>(span - compute - injected, 0))},
      {"stopped_at", std::move(stopped)},
      {"path", std::move(path)}};
  if (spool_failed_) {
    out["critical_path"]["unavailable"] =
        "its records could not be spooled to an unnamed file in /tmp (is it full or read-only?)";
  }
  return out;
}

}  // namespace pto
